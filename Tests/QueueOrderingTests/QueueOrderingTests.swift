import KataTestSupport
import QueueOrdering
import Testing

/// One check per puzzle (the two `sync` puzzles together): the prediction must break no
/// happens-before rule, and must contain every output that real runs print.
@Suite("What can this print? Queue-ordering puzzles", .exitIsAFailure)
struct QueueOrderingTests {
    @Test("sync on a serial and on a concurrent queue")
    func syncOnBothKindsOfQueue() async {
        await Confront.inProcess(.serialSync)
        await Confront.inProcess(.concurrentSync)
    }

    @Test("Serial queue, async twice")
    func serialAsync() async {
        await Confront.inProcess(.serialAsync)
    }

    @Test("Serial queue, sync inside async")
    func serialSyncInsideAsync() async {
        await Confront.stopped(.serialSyncInsideAsync)
    }

    @Test("Serial queue, async inside sync")
    func serialAsyncInsideSync() async {
        await Confront.inProcess(.serialAsyncInsideSync)
    }

    @Test("Concurrent queue, async twice")
    func concurrentAsync() async {
        await Confront.inProcess(.concurrentAsync)
    }

    @Test("Concurrent queue, sync inside async")
    func concurrentSyncInsideAsync() async {
        await Confront.inProcess(.concurrentSyncInsideAsync)
    }

    @Test("Concurrent queue, async inside sync")
    func concurrentAsyncInsideSync() async {
        await Confront.inProcess(.concurrentAsyncInsideSync)
    }

    @Test("A barrier on a private concurrent queue")
    func barrierOnPrivateQueue() async {
        await Confront.inProcess(.barrierOnPrivateQueue)
    }

    @Test("A barrier on a global queue")
    func barrierOnGlobalQueue() async {
        await Confront.inProcess(.barrierOnGlobalQueue)
    }

    @Test("DispatchGroup.notify after async work")
    func groupNotify() async {
        await Confront.inProcess(.groupNotify)
    }

    @Test("asyncAfter against async")
    func asyncAfterVersusAsync() async {
        await Confront.inProcess(.asyncAfterVersusAsync)
    }

    @Test("A semaphore handing over between two queues")
    func semaphoreHandover() async {
        await Confront.inProcess(.semaphoreHandover)
    }

    @Test("A semaphore and two blocks on one serial queue")
    func semaphoreOnOneSerialQueue() async {
        await Confront.hanging(.semaphoreOnOneSerialQueue)
    }
}
