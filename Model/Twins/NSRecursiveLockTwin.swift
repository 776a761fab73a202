#if KATA_MODEL
import KataModel

/// Model twin of Foundation's `NSRecursiveLock`: the thread holding it may take it again (and
/// must unlock as often).
public final class NSRecursiveLock: KataModelLockTwin, @unchecked Sendable {
    public init() {
        super.init(modelLock: ModelLock(kind: "NSRecursiveLock", recursive: true))
    }
}
#endif
