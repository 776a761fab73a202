import Dispatch
import Foundation
import KataTestSupport
import MainHop
import Testing

/// Messages between threads over a pipe, received by a read DispatchSource. Isolated: each check
/// counts the process's descriptors, SIGPIPE ends a process, and a source misused traps.
@Suite("Pipe channel", .exitIsAFailure)
struct PipeChannelTests {
    static let crashHint = "libdispatch traps on a source resumed twice or released before it was resumed; a read on a descriptor already closed fails."
    static let signals: [CInt: String] = [
        SIGPIPE: "SIGPIPE ended the process: a write into a pipe whose reader is gone raises SIGPIPE, whose default action ends the process. Ignore it once (signal(SIGPIPE, SIG_IGN)), and the write fails with EPIPE instead.",
    ]

    /// A channel on its own serial queue, with what it delivered.
    final class Lab: Sendable {
        let queue = DispatchQueue(label: "channel receiver")
        let messages = Locked([Data]())
        let ends = Locked(0)
        let ended = DispatchSemaphore(value: 0)
        let messageWatch = ReleaseWatch(), endWatch = ReleaseWatch()
        let channel: PipeChannel?

        init() {
            let messages = self.messages, ends = self.ends, ended = self.ended
            do {
                channel = try PipeChannel(
                    queue: queue,
                    onMessage: messageWatch.tie { (message: Data) in messages.withLock { $0.append(message) } },
                    onEnd: endWatch.tie { ends.withLock { $0 += 1 }; ended.signal() })
            } catch {
                Issue.record("PipeChannel(queue:onMessage:onEnd:) threw \(error).")
                channel = nil
            }
        }

        /// Waits for onEnd; fails at once when the channel let go of onEnd without calling it.
        func waitForEnd(after what: String) -> Bool {
            Deadline.wait(for: ended, in: "the channel after \(what)", waitingFor: "onEnd being called", unless: {
                endWatch.isReleased && ends.current == 0
                    ? "After \(what), the channel let go of onEnd without calling it. Call onEnd once, on the queue, when receiving ends (in the read source's cancel handler)." : nil
            })
        }

        /// Waits until `count` messages have been delivered.
        func waitForMessages(_ count: Int, in place: String) -> Bool {
            Deadline.waitUntil(seconds: Deadline.promptSeconds, in: place, waitingFor: "\(count) messages being delivered", unless: {
                messageWatch.isReleased ? "The channel let go of onMessage: it can never deliver a message. Keep it, and call it on the queue for each whole message." : nil
            }) { messages.current.count >= count }
        }

        /// Holds the receiving queue until `release` is signalled; returns once the hold runs.
        func holdQueue(until release: DispatchSemaphore) {
            let holding = DispatchSemaphore(value: 0)
            queue.async {
                holding.signal()
                _ = release.wait(timeout: .now() + 3)
            }
            _ = holding.wait(timeout: .now() + 3)
        }
    }

    func send(_ channel: PipeChannel, _ message: Data, _ what: String) -> Bool {
        do { try channel.send(message) } catch {
            Issue.record("send(\(what)) threw \(error) on an open channel.")
            return false
        }
        return true
    }

    /// The check's messages: 200 small ones (and an empty one), then 3 of 150,000 bytes each.
    static let small: [Data] = (0..<200).map { Data("message #\($0)".utf8) } + [Data()]
    static let large: [Data] = (0..<3).map { index in Data((0..<150_000).map { UInt8(truncatingIfNeeded: $0 * 7 + index * 13) }) }

    @Test("201 small messages sent while the receiver was busy and 3 of 150 KB arrive whole, in order, one onMessage each")
    func messagesArriveWholeAndInOrder() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "messages through the pipe")
            PipeChannelTests().wholeAndInOrder()
            IsolatedCheck.finish()
        }
        explain(ending, in: "messages through the pipe", crashHint: Self.crashHint, signals: Self.signals)
    }

    func wholeAndInOrder() {
        let lab = Lab()
        guard let channel = lab.channel else { return }
        // The small messages pile up in the pipe while the receiver is held: one read takes many.
        let release = DispatchSemaphore(value: 0)
        lab.holdQueue(until: release)
        for (index, message) in Self.small.enumerated() { guard send(channel, message, "small message \(index)") else { return } }
        release.signal()
        // Each large message is more than a pipe holds: its bytes come in several reads.
        for (index, message) in Self.large.enumerated() { guard send(channel, message, "large message \(index)") else { return } }
        let expected = Self.small + Self.large
        guard lab.waitForMessages(expected.count, in: "receiving 204 messages") else {
            Issue.record(Comment(rawValue: Self.difference(lab.messages.current, expected)))
            return
        }
        Thread.sleep(forTimeInterval: 0.05)
        let received = lab.messages.current
        #expect(received == expected, Comment(rawValue: Self.difference(received, expected)))
        channel.finishSending()
        _ = lab.waitForEnd(after: "finishSending()")
    }

    /// Where the received messages first differ from the sent ones, in words.
    static func difference(_ received: [Data], _ expected: [Data]) -> String {
        let advice = "A read returns what the pipe holds at that moment: part of a message, or several. Keep the bytes in a buffer and cut each message by its length prefix."
        guard let first = zip(received, expected).enumerated().first(where: { $0.element.0 != $0.element.1 }) else {
            return "\(received.count) messages were delivered, expected \(expected.count) (the same ones, in order). \(advice)"
        }
        return "\(received.count) messages were delivered, expected \(expected.count); message \(first.offset) had \(first.element.0.count) bytes, expected \(first.element.1.count) bytes of message \(first.offset). \(advice)"
    }

    @Test("After finishSending(), onEnd runs once, the read end is closed, and the read source stops firing")
    func endOfFileEndsOnce() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "end of file")
            PipeChannelTests().endOfFile()
            IsolatedCheck.finish()
        }
        explain(ending, in: "end of file", crashHint: Self.crashHint, signals: Self.signals)
    }

    func endOfFile() {
        Descriptors.warmUp()
        let before = Descriptors.open()
        let lab = Lab()
        guard let channel = lab.channel else { return }
        let mine = Descriptors.opened(since: before)
        for index in 0..<3 { guard send(channel, Data("last words \(index)".utf8), "message \(index)") else { return } }
        channel.finishSending()
        guard lab.waitForEnd(after: "finishSending()") else { return }
        #expect(lab.messages.current.count == 3, "onEnd came after \(lab.messages.current.count) of the 3 messages sent before finishSending(): deliver every whole message before end of file.")
        let cpuBefore = cpuSeconds()
        Thread.sleep(forTimeInterval: 0.3)
        let burnt = cpuSeconds() - cpuBefore
        #expect(burnt < 0.1, "In the 300 ms after end of file, with nothing left to read, the process used \(Int(burnt * 1000)) ms of CPU: the read source keeps firing (each read returns 0). Cancel the source when read returns 0.")
        #expect(lab.ends.current == 1, "onEnd was called \(lab.ends.current) times, expected once.")
        let stillOpen = mine.intersection(Descriptors.open())
        #expect(mine.count >= 1 && stillOpen.isEmpty, "After end of file and onEnd, \(stillOpen.count) of the channel's \(mine.count) descriptors are still open. When read returns 0, cancel the read source (at end of file a pipe stays readable: on macOS its handler would fire again and again), close the read end in its cancel handler, and the write end in finishSending().")
    }

    @Test("cancel() leaves the descriptors open while the receiving queue is busy, and its cancel handler closes the read end before onEnd")
    func cancelClosesInCancelHandler() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "cancel()")
            PipeChannelTests().cancelWhileBusy()
            IsolatedCheck.finish()
        }
        explain(ending, in: "cancel()", crashHint: Self.crashHint, signals: Self.signals)
    }

    func cancelWhileBusy() {
        Descriptors.warmUp()
        let before = Descriptors.open()
        let lab = Lab()
        guard let channel = lab.channel else { return }
        let mine = Descriptors.opened(since: before)
        guard send(channel, Data("hello".utf8), "hello"), lab.waitForMessages(1, in: "receiving one message") else { return }
        let release = DispatchSemaphore(value: 0)
        lab.holdQueue(until: release)
        channel.cancel()
        Thread.sleep(forTimeInterval: 0.05)
        let openWhileBusy = mine.intersection(Descriptors.open())
        release.signal()
        #expect(openWhileBusy == mine, "cancel() closed \(mine.count - openWhileBusy.count) of the channel's descriptors while its queue was still busy: a handler of the source may still run there and read a closed descriptor (or one the system has already given to someone else). Close the read end only in the source's cancel handler.")
        guard lab.waitForEnd(after: "cancel()") else { return }
        #expect(mine.intersection(Descriptors.open()).count < mine.count, "onEnd ran after cancel(), but none of the channel's descriptors was closed: close the read end in the source's cancel handler, before calling onEnd.")
        channel.cancel()  // a second cancel is harmless
        channel.finishSending()
    }

    @Test("send after the receiving end is closed throws .brokenPipe instead of SIGPIPE ending the process, and .closed after finishSending()")
    func sendAfterReceiverGoneThrows() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "send after the receiver is gone")
            PipeChannelTests().sendAfterReceiverGone()
            IsolatedCheck.finish()
        }
        explain(ending, in: "send after the receiver is gone", crashHint: Self.crashHint, signals: Self.signals)
    }

    func sendAfterReceiverGone() {
        let lab = Lab()
        guard let channel = lab.channel else { return }
        channel.cancel()
        guard lab.waitForEnd(after: "cancel()") else { return }
        #expect(throws: ChannelError.brokenPipe, "send after cancel() (the read end closed) must throw ChannelError.brokenPipe: the write fails with EPIPE once SIGPIPE is ignored.") {
            try channel.send(Data("anyone there?".utf8))
        }
        channel.finishSending()
        #expect(throws: ChannelError.closed, "send after finishSending() must throw ChannelError.closed.") {
            try channel.send(Data("too late".utf8))
        }
    }
}
