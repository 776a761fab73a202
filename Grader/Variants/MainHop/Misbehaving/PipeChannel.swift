import Dispatch
import Foundation
import KataTripwire

// The untouched stub, with `Tripwire.call()` first in every public entry point: `grader verify`
// runs it with each KATA_MISBEHAVE misbehaviour and asserts 0 points.

/// Why a message could not be sent.
public enum ChannelError: Error, Equatable {
    /// `finishSending()` was called: the sending end is closed.
    case closed
    /// Nobody reads any more (the receiving end is closed): the write failed with EPIPE.
    case brokenPipe
    /// Another error from the system, with its errno.
    case system(Int32)
}

/// Messages between threads over a pipe: `send` writes framed messages into the pipe's write end;
/// a read `DispatchSource` on `queue` reads the other end and delivers each whole message.
///
/// Your task (see README.md in this folder):
/// - `init` opens the pipe (`pipe()`), makes the read end non-blocking, and starts a read source
///   on `queue`. A read returns what the pipe holds: part of a message, or several. Frame each
///   message (a length, then the bytes) and cut messages by their length.
/// - At end of file (a read returns 0), cancel the source: it would fire again and again.
/// - Close the read end only in the source's cancel handler, then call `onEnd` there.
/// - Writing into a pipe whose reader is gone raises SIGPIPE, which ends the process by default.
public final class PipeChannel: @unchecked Sendable {
    // TODO: the two descriptors, the read source, the bytes received so far, a lock for sending.

    /// Opens the pipe and starts receiving on `queue` (a serial queue). `onMessage` runs on
    /// `queue`, once per message, in order; `onEnd` runs once on `queue` when receiving ends (end
    /// of file after `finishSending()`, or `cancel()`), after the read end is closed.
    public init(queue: DispatchQueue, onMessage: @escaping @Sendable (Data) -> Void,
                onEnd: @escaping @Sendable () -> Void) throws {
        Tripwire.call()
        // TODO
    }

    /// Writes one message, whole, into the pipe. Blocks while the pipe is full: call it from any
    /// thread but the receiving queue. Throws `.closed` after `finishSending()`, `.brokenPipe`
    /// once the receiving end is closed.
    public func send(_ message: Data) throws {
        Tripwire.call()
        // TODO
    }

    /// Closes the sending end: the receiver gets every message sent so far, then end of file.
    public func finishSending() {
        Tripwire.call()
        // TODO
    }

    /// Stops receiving: the source is cancelled, and its cancel handler closes the read end and
    /// calls `onEnd`. Safe to call twice.
    public func cancel() {
        Tripwire.call()
        // TODO
    }
}
