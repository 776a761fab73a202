/// One systematic check of an exercise: a small program (2–3 threads, a few calls each) whose
/// properties `Model.check` states, explored over many schedules.
public struct ModelCheck: Sendable {
    public let name: String
    public let body: @Sendable () -> Void

    public init(_ name: String, _ body: @escaping @Sendable () -> Void) {
        self.name = name
        self.body = body
    }
}
