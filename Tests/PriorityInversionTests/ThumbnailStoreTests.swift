import Dispatch
import Foundation
import KataTestSupport
import PriorityInversion
import Testing

/// Part 2: a store shared by urgent callers and a `.utility` prefetcher, on real GCD. Each check
/// runs isolated: a store that parks its callers for ever, or crashes, fails its check only.
@Suite("A thumbnail store that urgent callers never wait on lower-priority work for", .exitIsAFailure)
struct ThumbnailStoreTests {
    /// How long a check waits for something a correct store does in microseconds (a call
    /// returning, a background render starting), or for a call that should not come back yet.
    static let patience = 1.0

    static let crashHint = "A crash here usually means two threads changed the cache at once: guard it with a lock (Mutex, NSLock) or a serial queue used with sync."

    // MARK: Urgent callers render on their own thread

    static let urgentPlace = "thumbnail(for:) called from a .userInitiated queue"

    @Test("An urgent miss renders on the caller's own thread, at its priority, and is cached")
    func urgentRendersOnCallersThread() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            ThumbnailStoreTests.urgentMiss()
        }
        IsolatedCheck.explain(ending, in: Self.urgentPlace, crashHint: Self.crashHint)
    }

    static func urgentMiss() -> Never {
        IsolatedCheck.begin(seconds: 8, in: urgentPlace)
        urgentMissBody()
        IsolatedCheck.finish()
    }

    static func urgentMissBody() {
        let log = RenderLog()
        let store = ThumbnailStore(render: log.render)
        for id in [7, 8] {
            let call = Caller.call(at: .userInitiated, seconds: patience) { store.thumbnail(for: id) }
            guard let caller = call.started else {
                Issue.record(Comment(rawValue: "The check's .userInitiated caller did not start within \(patience) s: the machine is overloaded. Run the check again."))
                return
            }
            let renders = log.calls(of: id)
            guard let value = call.returned else {
                let elsewhere = renders.first { $0.thread != caller.thread }
                Issue.record(Comment(rawValue: "thumbnail(for: \(id)), called at \(caller.priority), had not returned after \(patience) s" + (elsewhere.map { " although render(\(id)) had been called on another thread, at \($0.priority)" } ?? "") + ". An urgent caller renders on its own thread; it never waits for another queue to do it."))
                return
            }
            guard let render = renders.first else {
                Issue.record(Comment(rawValue: "thumbnail(for: \(id)) returned \(value.pixels.isEmpty ? "an empty thumbnail" : "a thumbnail") without calling render(\(id)), and nothing was cached: on a miss, render the thumbnail with the function given to init, then cache it."))
                return
            }
            #expect(value == .expected(id), "thumbnail(for: \(id)) returned a thumbnail other than the one render(\(id)) made: return what render gave (or what the cache holds).")
            if render.thread != caller.thread {
                Issue.record(Comment(rawValue: """
                    render(\(id)) ran on another thread, at \(render.priority), while the urgent caller, at \(caller.priority), \
                    waited for it. That is the inverted design: work handed to another queue (a .utility queue, a serial queue \
                    created without a QoS, a global queue with a group) while the caller waits on a semaphore or a group, \
                    primitives with no owner, so no system can lend the caller's priority to the work. Render on the caller's thread.
                    """))
                return
            }
            #expect(render.priority >= caller.priority, "render(\(id)) ran at \(render.priority), below its urgent caller's \(caller.priority).")
            let again = Caller.call(at: .userInitiated, seconds: patience) { store.thumbnail(for: id) }
            #expect(again.returned == .expected(id) && log.calls(of: id).count == 1,
                    "A second thumbnail(for: \(id)) \(again.returned == nil ? "did not return" : "called render(\(id)) again (\(log.calls(of: id).count) renders)"): keep what you render in the cache and return it from there.")
            #expect(store.cachedThumbnail(for: id) == .expected(id), "After thumbnail(for: \(id)), cachedThumbnail(for: \(id)) should return the rendered thumbnail; it returned \(store.cachedThumbnail(for: id) == nil ? "nil" : "another one").")
        }
    }

    // MARK: Urgent callers never wait for a prefetch

    static let prefetchPlace = "thumbnail(for:) while a prefetch renders"

    @Test("An urgent call never waits for a prefetch's render, even of the same thumbnail")
    func urgentNeverWaitsForPrefetch() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            ThumbnailStoreTests.urgentDuringPrefetch()
        }
        IsolatedCheck.explain(ending, in: Self.prefetchPlace, crashHint: Self.crashHint)
    }

    static func urgentDuringPrefetch() -> Never {
        IsolatedCheck.begin(seconds: 9, in: prefetchPlace)
        urgentDuringPrefetchBody()
        IsolatedCheck.finish()
    }

    static func urgentDuringPrefetchBody() {
        let gate = Gate(1)
        let log = RenderLog(gate: gate)
        let store = ThumbnailStore(render: log.render)
        defer { gate.open() }
        let prefetching = Caller.call(at: .utility, seconds: patience) { store.prefetch([1, 2, 3]) }
        guard prefetching.returned != nil else {
            Issue.record(Comment(rawValue: "prefetch([1, 2, 3]) had not returned after \(patience) s (the check held the render of 1): prefetch only schedules the work, on a queue of its own, and returns at once."))
            return
        }
        guard gate.waitForArrival(seconds: patience) else {
            Issue.record(Comment(rawValue: "prefetch([1, 2, 3]) had not begun to render 1 after \(patience) s: it renders the ids not cached yet in the background (on a .utility queue)."))
            return
        }
        // The prefetch's render of 1 is held at the gate: work running at .utility, unfinished.
        for id in [5, 1] {
            let call = Caller.call(at: .userInitiated, seconds: patience) { store.thumbnail(for: id) }
            guard let value = call.returned else {
                let why = id == 1
                    ? "it waited for the prefetch's render of the same thumbnail, work running at .utility. Never wait for lower-priority work: an urgent miss renders on its own thread, even if a prefetch of that id is under way (one of the two results is kept)."
                    : "it waited behind the prefetch, work running at .utility: one serial queue for both, or a lock held while rendering. Hold the cache's lock (or queue) only to look up and to store, never while rendering."
                Issue.record(Comment(rawValue: "thumbnail(for: \(id)), called from a .userInitiated queue while a prefetch was rendering 1, had not returned after \(patience) s: \(why)"))
                return
            }
            #expect(value == .expected(id), "thumbnail(for: \(id)) returned a thumbnail other than the one render(\(id)) made.")
        }
        gate.open()
        // Waits on while thumbnails arrive in the cache (see ProgressDeadline).
        let cached = Deadline.waitUntil(quiet: patience, in: prefetchPlace, waitingFor: "the prefetch of 2 and 3 finishing once the render of 1 was let go",
                                        progress: { [1, 2, 3].filter { store.cachedThumbnail(for: $0) != nil }.count }) {
            store.cachedThumbnail(for: 2) != nil && store.cachedThumbnail(for: 3) != nil
        }
        if cached {
            #expect([1, 2, 3].map { store.cachedThumbnail(for: $0) } == [1, 2, 3].map { Thumbnail.expected($0) },
                    "After the prefetch, cachedThumbnail(for:) of 1, 2 and 3 should return the rendered thumbnails.")
        }
    }

    // MARK: Prefetching runs at .utility

    static let utilityPlace = "prefetch called from a .userInitiated queue"

    @Test("prefetch returns at once and renders in the background at .utility, even when called from urgent code; a store let go while it prefetches is freed, without a crash")
    func prefetchRunsAtUtility() async {
        let ending = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent], IsolatedCheck.exitedEarly) {
            ThumbnailStoreTests.prefetchAtUtility()
        }
        let output = ending.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        IsolatedCheck.explain(ending, in: Self.utilityPlace, crashHint: Self.prefetchCrashHint(output))
    }

    static func prefetchAtUtility() -> Never {
        IsolatedCheck.begin(seconds: 8, in: utilityPlace)
        if prefetchAtUtilityBody() { releasedWhilePrefetching() }
        IsolatedCheck.finish()
    }

    /// True when it ran to its end: the release part then runs only on a store known to prefetch
    /// (a stub fails once, not twice at the same deadline).
    static func prefetchAtUtilityBody() -> Bool {
        guard let utility = Caller.priority(of: .utility) else {
            Issue.record(Comment(rawValue: "A block on DispatchQueue.global(qos: .utility) did not run within \(Deadline.promptSeconds) s: the machine is overloaded. Run the check again."))
            return false
        }
        let gate = Gate(11)
        let log = RenderLog(gate: gate)
        let store = ThumbnailStore(render: log.render)
        defer { gate.open() }
        let ids = [11, 12, 13]
        let call = Caller.call(at: .userInitiated, seconds: patience) { store.prefetch(ids) }
        guard let caller = call.started else {
            Issue.record(Comment(rawValue: "The check's .userInitiated caller did not start within \(patience) s: the machine is overloaded. Run the check again."))
            return false
        }
        guard call.returned != nil else {
            Issue.record(Comment(rawValue: "prefetch(\(ids)) had not returned after \(patience) s (the check held the render of 11): it rendered on the caller's thread, or waited for the work. prefetch only schedules the work on a queue of its own and returns at once."))
            return false
        }
        guard gate.waitForArrival(seconds: patience) else {
            Issue.record(Comment(rawValue: "prefetch(\(ids)) had not begun to render 11 after \(patience) s: it renders the ids not cached yet in the background."))
            return false
        }
        gate.open()
        guard Deadline.waitUntil(quiet: patience, in: utilityPlace, waitingFor: "thumbnails 11, 12 and 13 being cached by the prefetch",
                                 progress: { ids.filter { store.cachedThumbnail(for: $0) != nil }.count },
                                 { ids.allSatisfy { store.cachedThumbnail(for: $0) != nil } }) else { return false }
        let renders = log.calls.filter { ids.contains($0.id) }
        if let onCaller = renders.first(where: { $0.thread == caller.thread }) {
            Issue.record(Comment(rawValue: "prefetch rendered \(onCaller.id) on its caller's thread: prefetching belongs in the background, on a queue of its own."))
        }
        if let tooHigh = renders.first(where: { $0.priority > utility }) {
            Issue.record(Comment(rawValue: """
                prefetch, called at \(caller.priority), rendered \(tooHigh.id) at \(tooHigh.priority), higher than a block on \
                DispatchQueue.global(qos: .utility) runs here, \(utility): \
                background work then competes with the urgent work it should make room for. A block submitted with async to a queue \
                created with qos: .utility runs at .utility whoever submitted it; a queue created without a QoS runs it at the \
                submitter's QoS on Apple platforms (at .default on Linux), and .enforceQoS or async(qos:) raise it.
                """))
        }
        #expect(ids.map { store.cachedThumbnail(for: $0) } == ids.map { Thumbnail.expected($0) }, "After the prefetch, cachedThumbnail(for:) of \(ids) should return the rendered thumbnails.")
        let before = log.calls.count
        let urgent = Caller.call(at: .userInitiated, seconds: patience) { store.thumbnail(for: 12) }
        #expect(urgent.returned == .expected(12) && log.calls.count == before,
                "thumbnail(for: 12) after the prefetch cached it should return the cached thumbnail without rendering it again.")
        return true
    }

    // MARK: A store let go while it prefetches

    /// Written to standard error just before the check lets go of a store whose prefetch renders,
    /// so that a crash after it is explained as the release's.
    static let releaseMarker = "kata: letting go of a store while its prefetch renders"

    /// How long a store let go mid-prefetch is given to crash once the held render has returned
    /// and the store is freed, unless the prefetch goes on to render 22 first. A prefetch that
    /// reads the store through an unowned reference traps right after that return, on the thread
    /// that returned, but a loaded machine may not run that thread for a while (50 ms let the
    /// trap be missed once in a verify round). Only a prefetch that stops without a sign (one that
    /// holds the store weakly and returns when it is gone) waits the whole window.
    static let crashWindow = 0.5

    static func prefetchCrashHint(_ output: String) -> String {
        if output.contains("unowned reference") {
            return "The check let go of a store while its prefetch rendered, and the prefetch then read the store through an unowned reference after it was freed (\"Attempted to read an unowned reference but object … was already deallocated\"). Capture [weak self] in the prefetch's work and drop the result when the store is gone, or capture self strongly: the store then lives until the work ends."
        }
        if output.contains(releaseMarker) {
            return "The crash came after the check let go of a store while its prefetch rendered: the prefetch's work must not use a freed store. Capture [weak self] and drop the result when the store is gone, or capture self strongly (the store then lives until the work ends); never unowned(unsafe) or an unretained pointer."
        }
        return crashHint
    }

    /// The last reference to a store let go while its prefetch's render is held: once the render
    /// returns, the prefetch must not crash, and the store must be freed (a prefetch holding it
    /// strongly frees it when its work ends; one holding it weakly, at once).
    static func releasedWhilePrefetching() {
        let gate = Gate(21)
        let log = RenderLog(gate: gate)
        let released = WeakStore()
        defer { gate.open() }
        var store: ThumbnailStore? = ThumbnailStore(render: log.render)
        released.value = store
        store?.prefetch([21, 22])
        // Held until the render begins: a prefetch that holds the store weakly may skip its work
        // when the store is gone before it starts, and that is right.
        let began = withExtendedLifetime(store) { gate.waitForArrival(seconds: patience) }
        guard began else {
            Issue.record(Comment(rawValue: "prefetch([21, 22]) had not begun to render 21 after \(patience) s: it renders the ids not cached yet in the background."))
            return
        }
        FileHandle.standardError.write(Data((releaseMarker + "\n").utf8))
        store = nil  // the check's only reference: now only the prefetch's work may hold the store
        gate.open()
        guard Deadline.waitUntil(seconds: patience, in: releasePlace, waitingFor: "the held render of 21 returning once let go", { log.hasReturned(21) }) else { return }
        guard Deadline.happens(within: patience, { released.value == nil }) else {
            Issue.record(Comment(rawValue: "The check let go of its only reference to a store while the store's prefetch rendered 21; \(patience) s after that render returned, the store was still alive: something still holds it, for example a work item or closure the store keeps that captures self strongly (a cycle: store → work item → closure → store). Keep nothing that captures self strongly once the work is done, or capture [weak self] in what the store keeps."))
            return
        }
        // The prefetch's next step: one that goes on begins to render 22, which ends the wait; one
        // that reads the freed store through an unowned reference traps before that.
        _ = Deadline.happens(within: crashWindow) { !log.calls(of: 22).isEmpty }
    }

    static let releasePlace = "a store let go while its prefetch renders"

    // MARK: The cache is shared safely

    static let stressPlace = "thumbnail(for:), cachedThumbnail(for:) and prefetch from 7 threads at once"
    static let stressThreads = 6
    /// A new store for each round, so that its dictionary grows from empty while the threads race.
    static let stressStores = 24
    static let stressCalls = 1_000
    static let stressIDs = 2_000
    /// After this many seconds no new store is started, and the threads stop within 0.4 s more: a
    /// locked dictionary goes through every store in a fraction of it, while a store that hands
    /// every call to a queue and waits (right, but slow) would take seconds on a loaded machine.
    static let stressSeconds = 0.8

    @Test("From 6 threads and a prefetcher at once, the cache growing all the while: every thumbnail right, nothing rendered twice once cached")
    func sharedCacheUnderLoad() async {
        // Stores are let go while they prefetch here too: a crash may be a prefetch's (stderr says).
        let ending = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent], IsolatedCheck.exitedEarly) {
            ThumbnailStoreTests.stress()
        }
        let output = ending.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        IsolatedCheck.explain(ending, in: Self.stressPlace, crashHint: Self.prefetchCrashHint(output))
    }

    static func stress() -> Never {
        IsolatedCheck.begin(seconds: 15, in: stressPlace)
        stressBody()
        IsolatedCheck.finish()
    }

    static func stressBody() {
        var last: (store: ThumbnailStore, renders: RenderCounter)?
        let began = DispatchTime.now().uptimeNanoseconds
        for round in 1...stressStores {
            if round > 1 && Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9 > stressSeconds { break }
            // A render that takes no lock of its own, so that nothing but the store orders the
            // threads; one per store, since earlier stores may still be prefetching.
            let renders = RenderCounter()
            let store = ThumbnailStore(render: renders.render)
            let wrong = Locked([String]())
            let finished = ThreadGang.run(stressThreads + 1, seconds: 6, in: "\(stressPlace) (store \(round) of \(stressStores))") { index in
                var seed = UInt64(round * 16 + index + 1) &* 0x9E37_79B9_7F4A_7C15
                func next() -> Int {
                    seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17
                    return Int(seed % UInt64(stressIDs))
                }
                if index == stressThreads {
                    for start in stride(from: 0, to: stressIDs, by: 60) {
                        store.prefetch(Array(start..<min(start + 60, stressIDs)))
                    }
                    return
                }
                for call in 0..<stressCalls {
                    if call % 100 == 99 && Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9 > stressSeconds + 0.4 { break }
                    let id = next()
                    if call % 3 == 0 {
                        if let cached = store.cachedThumbnail(for: id), cached != .expected(id) {
                            wrong.withLock { $0.append("cachedThumbnail(for: \(id))") }
                        }
                    } else if store.thumbnail(for: id) != .expected(id) {
                        wrong.withLock { $0.append("thumbnail(for: \(id))") }
                    }
                }
            }
            guard finished else { return }
            guard wrong.current.isEmpty else {
                Issue.record(Comment(rawValue: "\(wrong.current.count) calls returned a wrong thumbnail, the first \(wrong.current.first ?? ""): the cache must hand back what render made for that id."))
                return
            }
            last = (store, renders)
        }
        guard let (store, renders) = last else { return }
        guard Deadline.waitUntil(quiet: 5, in: stressPlace, waitingFor: "every prefetched thumbnail being cached",
                                 progress: { (0..<stressIDs).filter { store.cachedThumbnail(for: $0) != nil }.count }, {
            (0..<stressIDs).allSatisfy { store.cachedThumbnail(for: $0) != nil }
        }) else { return }
        let before = renders.count
        let again = (0..<stressIDs).filter { store.thumbnail(for: $0) != .expected($0) }
        #expect(again.isEmpty && renders.count == before,
                "Once every thumbnail was cached, thumbnail(for:) should return it from the cache: \(renders.count - before) new renders, \(again.count) wrong thumbnails.")
    }
}
