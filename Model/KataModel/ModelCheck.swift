/// One systematic check of an exercise: a small program (2–3 threads, a few calls each) whose
/// properties `Model.check` states, explored over many schedules.
public struct ModelCheck: Sendable {
    /// English; what `kata-model` and the pinned schedules name the check by.
    public let name: String
    /// The same title in Simplified Chinese, for `--lang zh-Hans`.
    public let zh: String
    /// The graded stress checks (their test names in `Grader/rubric.json`) whose property this
    /// check states on a few threads: when one of them fails in a grade, the grader shows this
    /// check's failing interleaving under it.
    public let stress: [String]
    public let body: @Sendable () -> Void

    public init(_ name: String, zh: String? = nil, stress: [String] = [], _ body: @escaping @Sendable () -> Void) {
        self.name = name
        self.zh = zh ?? name
        self.stress = stress
        self.body = body
    }

    /// The title in `language` ("English / 中文" for `.both`).
    public func title(_ language: SwimLanes.Language) -> String {
        language.words(name, zh)
    }
}
