#if KATA_MODEL
import KataModel

/// Model twin of Foundation's `NSLock`. A module's own declaration wins over an imported one, so
/// the exercise's unchanged code calls this one. Taken twice by one thread, it waits for itself.
public final class NSLock: KataModelLockTwin, @unchecked Sendable {
    public init() {
        super.init(modelLock: ModelLock(kind: "NSLock"))
    }
}
#endif
