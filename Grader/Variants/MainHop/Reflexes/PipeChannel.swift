import Dispatch
import Foundation

// The reference, except that there is no framing: send writes the bytes as they are, and each
// read is delivered as one message (several messages in the pipe come as one, a large one in parts).

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
/// A frame is a 4-byte big-endian length, then that many bytes. A read returns what the pipe holds
/// at that moment: part of a message, or several: the receiver keeps the bytes and cuts messages
/// by their length.
public final class PipeChannel: @unchecked Sendable {
    private let readEnd: Int32
    private let source: DispatchSourceRead
    private let onMessage: @Sendable (Data) -> Void
    private let sendLock = NSLock()
    private var writeEnd: Int32
    private var received = Data()  // touched on the source's queue only

    /// Opens the pipe and starts receiving on `queue` (a serial queue). `onMessage` runs on
    /// `queue`, once per message, in order; `onEnd` runs once on `queue` when receiving ends (end
    /// of file after `finishSending()`, or `cancel()`), after the read end is closed.
    public init(queue: DispatchQueue, onMessage: @escaping @Sendable (Data) -> Void,
                onEnd: @escaping @Sendable () -> Void) throws {
        // A write into a pipe whose reader is gone raises SIGPIPE, whose default action ends the
        // process: ignore it, and the write fails with EPIPE instead.
        signal(SIGPIPE, SIG_IGN)
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw ChannelError.system(errno) }
        readEnd = ends[0]
        writeEnd = ends[1]
        // The read end does not block: the handler reads what is there, never waits for more.
        _ = fcntl(readEnd, F_SETFL, fcntl(readEnd, F_GETFL) | O_NONBLOCK)
        self.onMessage = onMessage
        source = DispatchSource.makeReadSource(fileDescriptor: readEnd, queue: queue)
        let readEnd = readEnd
        source.setEventHandler { [weak self] in self?.readAvailable() }
        // The only place the read end is closed: once cancelled, the source no longer uses it.
        source.setCancelHandler {
            close(readEnd)
            onEnd()
        }
        source.resume()
    }

    /// Writes one message, whole, into the pipe. Blocks while the pipe is full: call it from any
    /// thread but the receiving queue. Throws `.closed` after `finishSending()`, `.brokenPipe`
    /// once the receiving end is closed.
    public func send(_ message: Data) throws {
        let frame = message
        sendLock.lock()
        defer { sendLock.unlock() }
        guard writeEnd >= 0 else { throw ChannelError.closed }
        try frame.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(writeEnd, bytes.baseAddress! + offset, bytes.count - offset)
                if written >= 0 {
                    offset += written
                } else if errno == EINTR {
                    continue
                } else if errno == EPIPE {
                    throw ChannelError.brokenPipe
                } else {
                    throw ChannelError.system(errno)
                }
            }
        }
    }

    /// Closes the sending end: the receiver gets every message sent so far, then end of file.
    public func finishSending() {
        sendLock.lock()
        defer { sendLock.unlock() }
        guard writeEnd >= 0 else { return }
        close(writeEnd)
        writeEnd = -1
    }

    /// Stops receiving: the source is cancelled, and its cancel handler closes the read end and
    /// calls `onEnd`. Messages not yet delivered are dropped. Safe to call twice.
    public func cancel() {
        source.cancel()
    }

    /// On the source's queue: reads all that is there, delivers the whole messages, keeps the rest.
    private func readAvailable() {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = read(readEnd, &chunk, chunk.count)
            if count > 0 {
                onMessage(Data(chunk[0..<count]))
                return
            }
            if count < 0, errno == EINTR { continue }
            if count == 0 {
                // End of file: the event would fire again and again; stop the source instead.
                deliverWholeMessages()
                source.cancel()
                return
            }
            break  // EAGAIN: nothing more for now
        }
        deliverWholeMessages()
    }

    private func deliverWholeMessages() {
        while !source.isCancelled, received.count >= 4 {
            let length = received.prefix(4).reduce(0) { $0 << 8 | Int($1) }
            guard received.count >= 4 + length else { return }
            let message = received.subdata(in: received.startIndex + 4 ..< received.startIndex + 4 + length)
            received.removeSubrange(received.startIndex ..< received.startIndex + 4 + length)
            onMessage(message)
        }
    }

    deinit {
        source.cancel()
        finishSending()
    }
}
