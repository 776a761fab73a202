import Foundation

/// The wrong implementations in `Grader/Variants/<Exercise>/<Variant>/` that `grader verify`
/// grades, and the most points each may earn (`Grader/Variants/<Exercise>/caps.json`).
///
/// Every exercise has `Misbehaving`: its stub with `Tripwire.call()` at every entry point, which
/// exits with status 0 on the first call, or on a later call from another thread; it must earn
/// nothing. (Output that never ends is the grader's to stop, whatever the exercise: its own tests
/// cover it, and an isolated check's child writes to /dev/null, where it ends at its watchdog.) Others (such as `Unsynchronized`, the solution with no synchronization at all) earn
/// at most their cap: only what they do right.
public struct VariantCatalog: Sendable {
    public struct Cap: Codable, Equatable, Sendable {
        public var maxPoints: Int
        public var why: String?
        /// Its only fault is a data race: verify requires the race check to report it, in one of
        /// the variant's own files.
        public var raceOnly: Bool?
    }

    /// Variant name → exercise name → its cap.
    public var caps: [String: [String: Cap]] = [:]

    public static let misbehaving = "Misbehaving"
    /// The misbehaviours verify runs `Misbehaving` with (`KATA_MISBEHAVE`).
    public static let misbehaviours = ["exit-on-first-call", "exit-on-later-call-from-another-thread"]

    public static func load(layout: KataLayout, rubric: Rubric) -> (VariantCatalog, problems: [String]) {
        var catalog = VariantCatalog()
        var problems: [String] = []
        let fm = FileManager.default
        for exercise in rubric.exercises {
            let folder = layout.variantsDirectory.appendingPathComponent(exercise.name)
            let names = ((try? fm.contentsOfDirectory(atPath: folder.path)) ?? []).filter {
                var isDirectory: ObjCBool = false
                return fm.fileExists(atPath: folder.appendingPathComponent($0).path, isDirectory: &isDirectory) && isDirectory.boolValue
            }
            var declared: [String: Cap] = [:]
            if let data = try? Data(contentsOf: folder.appendingPathComponent("caps.json")) {
                do { declared = try JSONDecoder().decode([String: Cap].self, from: data) } catch {
                    problems.append("\(layout.relative(folder))/caps.json is not valid: \(error)")
                }
            }
            if !names.contains(misbehaving) { problems.append("\(exercise.name) has no \(misbehaving) variant in \(layout.relative(folder))") }
            for name in names.sorted() {
                if name == misbehaving {
                    catalog.caps[name, default: [:]][exercise.name] = Cap(maxPoints: 0, why: "an implementation that exits early earns nothing")
                } else if let cap = declared[name] {
                    catalog.caps[name, default: [:]][exercise.name] = cap
                } else {
                    problems.append("\(exercise.name)'s variant \(name) has no cap in caps.json")
                }
            }
        }
        return (catalog, problems)
    }

    /// The (variant, exercise) pairs whose only fault is a data race.
    public var raceOnly: [(variant: String, exercise: String)] {
        names.flatMap { variant in
            (caps[variant] ?? [:]).filter { $0.value.raceOnly == true }.keys.sorted().map { (variant, $0) }
        }
    }

    /// The variants other than `Misbehaving` in rounds, for verify: round k builds each exercise
    /// from its k-th variant (by name), so that one build and one run cover as many exercises'
    /// variants as can be built together (an exercise has one module per build).
    public var rounds: [[String: String]] {
        var byExercise: [String: [String]] = [:]
        for (variant, exercises) in caps where variant != Self.misbehaving {
            for exercise in exercises.keys { byExercise[exercise, default: []].append(variant) }
        }
        let count = byExercise.values.map(\.count).max() ?? 0
        return (0..<count).map { round in
            byExercise.compactMapValues { variants in
                let sorted = variants.sorted()
                return round < sorted.count ? sorted[round] : nil
            }
        }
    }

    /// Variant names, `Misbehaving` first.
    public var names: [String] { caps.keys.sorted { ($0 != Self.misbehaving ? 1 : 0, $0) < ($1 != Self.misbehaving ? 1 : 0, $1) } }
}

extension KataLayout {
    public var variantsDirectory: URL { root.appendingPathComponent("Grader/Variants") }
}
