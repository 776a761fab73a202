import Foundation

/// A clean copy of the course in which one student's exercises are graded: the course's own
/// Package.swift, suites, given code, rubric and grader, and only the student's `Exercises/`.
/// Whatever else the student changed (a test, the rubric, the grader) counts for nothing.
///
/// One workspace per job, reused from student to student, keeps its build folders warm.
struct ClassWorkspace {
    var course: KataLayout
    var root: URL
    var rubric: Rubric

    /// Top-level entries of the course that are not copied: the learner's work (filled from the
    /// student), the grader's state and everything hidden (build folders, git).
    static let notCopied: Set<String> = ["Exercises"]

    /// Builds the workspace once with the course's own exercises, plainly and (when the race
    /// check will run) under ThreadSanitizer, the two ways the grader builds: the students after
    /// it rebuild only their own exercises. The grader's build deadline is for a learner's
    /// incremental build; a cold build of the whole course on a busy machine can pass it, so it
    /// is done here, within the class's deadline for one copy. Returns the steps that failed.
    func warm(sanitized: Bool, deadline: Double, log: URL) throws -> [String] {
        try FolderMirror.sync(course.root, to: root) { name in name.hasPrefix(".") }
        var failed: [String] = []
        for mode in [BuildMode()] + (sanitized ? [BuildMode(sanitize: true)] : []) {
            let termination = try ChildProcess.run(mode.buildArguments, in: root, environment: mode.environment(excluding: []),
                                                   outputFile: log, deadline: deadline)
            if termination != .exited(0) { failed.append(mode.buildArguments.joined(separator: " ") + " (\(termination))") }
        }
        return failed
    }

    /// Fills the workspace for `student`: the course as it is, then each exercise from the
    /// student's copy (the course's stub for an exercise the student does not have).
    /// Returns the exercises the student's copy lacks.
    func prepare(for student: StudentCopy) throws -> [String] {
        try FolderMirror.sync(course.root, to: root) { name in name.hasPrefix(".") || Self.notCopied.contains(name) }
        // The grader's state (history, hints) of the student before is not this student's.
        try? FileManager.default.removeItem(at: root.appendingPathComponent(".kata"))
        let exercises = root.appendingPathComponent("Exercises")
        try FileManager.default.createDirectory(at: exercises, withIntermediateDirectories: true)
        var missing: [String] = []
        var names: Set<String> = []
        for exercise in rubric.exercises {
            names.insert(exercise.name)
            var source = student.root.appendingPathComponent("Exercises/\(exercise.name)")
            if !FolderMirror.isDirectory(source) {
                missing.append(exercise.name)
                source = course.exerciseDirectory(exercise.name)
            }
            try FolderMirror.sync(source, to: exercises.appendingPathComponent(exercise.name))
        }
        // Course-level files of Exercises/ (a README) come from the course; other folders go.
        for name in try FileManager.default.contentsOfDirectory(atPath: exercises.path) where !names.contains(name) {
            try FileManager.default.removeItem(at: exercises.appendingPathComponent(name))
        }
        for name in (try? FileManager.default.contentsOfDirectory(atPath: course.root.appendingPathComponent("Exercises").path)) ?? []
        where !name.hasPrefix(".") && !names.contains(name) {
            let file = course.root.appendingPathComponent("Exercises/\(name)")
            if FolderMirror.isFile(file) { try Data(contentsOf: file).write(to: exercises.appendingPathComponent(name)) }
        }
        return missing
    }
}
