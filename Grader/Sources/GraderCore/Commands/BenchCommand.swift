import Foundation

/// `grader bench`: placeholder until the benchmarks land.
struct BenchCommand {
    var layout: KataLayout
    var rubric: Rubric
    var arguments: Arguments

    func run() throws -> Int32 {
        throw GraderError.cannotRun("bench is not available yet")
    }
}
