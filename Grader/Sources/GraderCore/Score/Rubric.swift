import Foundation

/// The one place where points live: `Grader/rubric.json`.
///
/// It lists the exercises in course order and, for each, its checks in the order they appear in
/// its suite, by test function name, with their points. `grader verify` fails when it and the
/// suites drift apart.
public struct Rubric: Codable, Equatable, Sendable {
    /// A title in Simplified Chinese, with the English title it was translated from: `grader
    /// verify` fails when the English changes and the translation does not follow.
    public struct Translation: Codable, Equatable, Sendable {
        public var title: String
        public var from: String
    }

    public struct Check: Codable, Equatable, Sendable {
        /// The test function's name, without `()`.
        public var test: String
        public var points: Int
        /// Checks that must pass too for this one to earn its points: for a property that code
        /// without synchronization has by accident (readers overlapping), which is worth
        /// something only together with the safety it presumes.
        public var requires: [String]?
        /// The check's title in Simplified Chinese (the English one is the suite's `@Test` title).
        public var zhHans: Translation?

        public init(test: String, points: Int, requires: [String]? = nil) {
            self.test = test
            self.points = points
            self.requires = requires
        }

        /// The check the grader runs itself, not the suite: see `Rubric.raceCheckTest`.
        public var isRaceCheck: Bool { test == Rubric.raceCheckTest }
    }

    public struct Exercise: Codable, Equatable, Sendable {
        public var name: String
        public var title: String
        public var checks: [Check]
        /// How long one run of the suite may take before it is killed as a suspected deadlock.
        public var timeoutSeconds: Double?
        /// What this exercise asks that only Apple platforms can check; when set, a full score
        /// elsewhere reads "complete on Linux" with this note.
        public var platformNote: String?
        /// The exercise's title (and platform note) in Simplified Chinese.
        public var zhHans: Translation?
        public var platformNoteZhHans: Translation?

        /// The title in the current language.
        public var localizedTitle: String {
            Language.current == .simplifiedChinese ? zhHans?.title ?? title : title
        }

        /// The platform note in the current language.
        public var localizedPlatformNote: String? {
            Language.current == .simplifiedChinese ? platformNoteZhHans?.title ?? platformNote : platformNote
        }

        public var totalPoints: Int { checks.reduce(0) { $0 + $1.points } }
        public var deadline: Double { timeoutSeconds ?? Rubric.defaultTimeoutSeconds }
        /// The checks its suite declares: every check but the race check.
        public var suiteChecks: [Check] { checks.filter { !$0.isRaceCheck } }
        /// The race check's entry (verify requires one, last, in every exercise).
        public var raceCheck: Check? { checks.first(where: \.isRaceCheck) }
    }

    /// Freedom from data races, worth points of its own in every exercise: the grader runs the
    /// exercise's suite under ThreadSanitizer once every other check passes, and the check passes
    /// when it reports no race in the exercise's code. It stands in the rubric like any check (last),
    /// under this name, which no suite declares.
    public static let raceCheckTest = "noDataRace"
    public static let raceCheckEnglishTitle = "No data race: ThreadSanitizer finds none in the exercise's code while its suite runs"
    public static var raceCheckTitle: String {
        L(raceCheckEnglishTitle, "没有数据竞争：运行测试套件时，ThreadSanitizer 在练习代码里没有发现任何数据竞争")
    }

    public var exercises: [Exercise]

    /// A suite on a correct solution runs in seconds; a minute means something is stuck.
    public static let defaultTimeoutSeconds: Double = 60

    public static func load(from url: URL) throws -> Rubric {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw GraderError.badRubric("cannot read \(url.path): \(error.localizedDescription)")
        }
        do { return try JSONDecoder().decode(Rubric.self, from: data) } catch {
            throw GraderError.badRubric("\(url.path) is not a valid rubric: \(error)")
        }
    }

    public func exercise(named name: String) -> Exercise? {
        exercises.first { $0.name.lowercased() == name.lowercased() }
    }

    public var totalPoints: Int { exercises.reduce(0) { $0 + $1.totalPoints } }
}
