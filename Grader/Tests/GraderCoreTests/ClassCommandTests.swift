import Foundation
import Testing
@testable import GraderCore

/// `grader class`: the clean copies, the flags, the CSV and the summary.
@Suite("Grading a class")
struct ClassCommandTests {
    static func folder(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("grader-class-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func write(_ text: String, _ path: String, in root: URL) throws {
        let file = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
    }

    @Test("class takes folders and needs --csv; --jobs and --deadline are checked")
    func arguments() throws {
        let parsed = try Arguments.parse(["class", "a", "b", "--csv", "out.csv", "--jobs", "2", "--deadline", "600", "--no-race-check"])
        #expect(parsed.command == .classGrade(["a", "b"]))
        #expect(parsed.jobs == 2 && parsed.deadline == 600 && !parsed.raceCheck)
        #expect(throws: GraderError.self) { try Arguments.parse(["class", "a"]) }
        #expect(throws: GraderError.self) { try Arguments.parse(["class", "--csv", "x"]) }
        #expect(throws: GraderError.self) { try Arguments.parse(["class", "a", "--csv", "x", "--jobs", "0"]) }
        #expect(try Arguments.parse(["--classroom50", "r.json", "--gradescope", "g.json"]).gradescopeFile == "g.json")
    }

    @Test("The mirror rewrites only changed files, removes extras, skips links, keeps build folders")
    func mirror() throws {
        let source = try Self.folder("source"), destination = try Self.folder("destination")
        defer { for folder in [source, destination] { try? FileManager.default.removeItem(at: folder) } }
        try Self.write("same", "Tests/A.swift", in: source)
        try Self.write("new", "Exercises/X/X.swift", in: source)
        try Self.write("same", "Tests/A.swift", in: destination)
        try Self.write("old", "Exercises/X/X.swift", in: destination)
        try Self.write("stray", "Tests/Stray.swift", in: destination)
        try Self.write("built", ".build/product", in: destination)
        try FileManager.default.createSymbolicLink(at: source.appendingPathComponent("Exercises/X/Link.swift"), withDestinationURL: source.appendingPathComponent("Tests/A.swift"))
        let unchanged = destination.appendingPathComponent("Tests/A.swift")
        let before = try FileManager.default.attributesOfItem(atPath: unchanged.path)
        try FolderMirror.sync(source, to: destination) { $0.hasPrefix(".build") }
        let after = try FileManager.default.attributesOfItem(atPath: unchanged.path)
        #expect(before[.systemFileNumber] as? Int == after[.systemFileNumber] as? Int)
        #expect(before[.modificationDate] as? Date == after[.modificationDate] as? Date, "an unchanged file keeps its build products valid")
        #expect(try String(contentsOf: destination.appendingPathComponent("Exercises/X/X.swift"), encoding: .utf8) == "new")
        #expect(!FileManager.default.fileExists(atPath: destination.appendingPathComponent("Tests/Stray.swift").path))
        #expect(!FileManager.default.fileExists(atPath: destination.appendingPathComponent("Exercises/X/Link.swift").path), "a link could point into the course's tests")
        #expect(FileManager.default.fileExists(atPath: destination.appendingPathComponent(".build/product").path))
    }

    @Test("The workspace takes the course's files and only the student's exercises; modified course files are flagged")
    func workspace() throws {
        let course = try Self.folder("course"), student = try Self.folder("student"), work = try Self.folder("work")
        defer { for folder in [course, student, work] { try? FileManager.default.removeItem(at: folder) } }
        for root in [course, student] {
            try Self.write("// package", "Package.swift", in: root)
            try Self.write("@Test func a() {}", "Tests/DemoTests/A.swift", in: root)
            try Self.write("stub", "Exercises/Demo/Demo.swift", in: root)
        }
        try Self.write("@Test func a() { /* always passes */ }", "Tests/DemoTests/A.swift", in: student)
        try Self.write("mine", "Exercises/Demo/Demo.swift", in: student)
        try Self.write("not an exercise", "Exercises/Other/Other.swift", in: student)
        let rubric = Rubric(exercises: [FakeTestBinary.exercise, Rubric.Exercise(name: "Absent", title: "Absent", checks: [])])
        try Self.write("stub of absent", "Exercises/Absent/Absent.swift", in: course)
        let copy = StudentCopy.named([student.path])[0]
        let missing = try ClassWorkspace(course: KataLayout(root: course), root: work, rubric: rubric).prepare(for: copy)
        #expect(missing == ["Absent"])
        #expect(try String(contentsOf: work.appendingPathComponent("Tests/DemoTests/A.swift"), encoding: .utf8) == "@Test func a() {}", "the course's own tests")
        #expect(try String(contentsOf: work.appendingPathComponent("Exercises/Demo/Demo.swift"), encoding: .utf8) == "mine")
        #expect(try String(contentsOf: work.appendingPathComponent("Exercises/Absent/Absent.swift"), encoding: .utf8) == "stub of absent")
        #expect(!FileManager.default.fileExists(atPath: work.appendingPathComponent("Exercises/Other").path))
        #expect(copy.modifiedCourseFiles(comparedWith: KataLayout(root: course)) == ["Tests/DemoTests/A.swift"])
        #expect(StudentCopy.named(["x/alice", "y/alice"]).map(\.name) == ["alice", "alice (2)"])
    }

    static func grade(_ name: String, passes: [Bool], copied: Bool = false, note: String? = nil) -> StudentGrade {
        let checks = passes.enumerated().map { index, passed in
            StudentGrade.Check(test: "c\(index)", title: "Check \(index)", points: 1, earned: passed ? 1 : 0, passed: passed,
                               message: passed ? nil : "Lost \(index) increments, | piped")
        }
        let exercise = StudentGrade.Exercise(name: "Demo", status: passes.allSatisfy { $0 } ? "complete" : "in_progress", detail: nil,
                                             points: passes.filter { $0 }.count, totalPoints: passes.count,
                                             copiedFromSolution: copied, checks: checks)
        let report = note == nil ? StudentGrade.Report(points: exercise.points, totalPoints: passes.count, modifiedFiles: [], exercises: [exercise]) : nil
        return StudentGrade(student: StudentCopy(name: name, root: URL(fileURLWithPath: "/class/\(name)")), report: report, note: note,
                            modifiedFiles: name == "bob" ? ["Tests/DemoTests/A.swift"] : [], missingExercises: [], seconds: 3)
    }

    static let rubric = Rubric(exercises: [Rubric.Exercise(name: "Demo", title: "Demo", checks: (0..<3).map { Rubric.Check(test: "c\($0)", points: 1) })])

    @Test("The summary lists the checks from the most failed, with the concept, and the flags per student")
    func summary() {
        let grades = [Self.grade("alice", passes: [true, false, false]), Self.grade("bob", passes: [true, true, false], copied: true),
                      Self.grade("carol", passes: [], note: "not graded: still running at the deadline (600 s) and stopped")]
        let tallies = ClassSummary.tallies(grades, rubric: Self.rubric)
        #expect(tallies.map(\.test) == ["c2", "c1", "c0"])
        #expect(tallies.map(\.passed) == [0, 1, 2])
        #expect(tallies[0].graded == 2)
        let text = ClassSummary.render(grades, rubric: Self.rubric, options: "race check on", seconds: 12)
        #expect(text.contains("| 1 | 0/2 | Demo | Check 2 |"))
        #expect(text.contains("Lost 2 increments, \\| piped (2×)"))
        #expect(text.contains("| bob | 2/3 | 0/1 | Demo | Tests/DemoTests/A.swift |"))
        #expect(text.contains("| carol | not graded |"))
        #expect(text.contains("still running at the deadline"))
        #expect(text.contains("1 of 3 checks were passed by everyone"))
    }

    @Test("The CSV has a column per exercise, blanks for a copy not graded, and quoted fields")
    func csv() {
        let grades = [Self.grade("alice", passes: [true, false, false]), Self.grade("carol, jr", passes: [], note: "not graded: no Exercises/ folder")]
        let lines = ClassCSV.render(grades, rubric: Self.rubric).split(separator: "\n").map(String.init)
        #expect(lines[0] == "student,folder,Demo,points,max_points,complete_exercises,copied_from_solution,modified_course_files,note")
        #expect(lines[1] == "alice,/class/alice,1,1,3,0,,,")
        #expect(lines[2] == "\"carol, jr\",\"/class/carol, jr\",,,3,,,,not graded: no Exercises/ folder")
        #expect(ClassCSV.field("=HYPERLINK(1)") == "'=HYPERLINK(1)")
        #expect(ClassCSV.field("say \"hi\"") == "\"say \"\"hi\"\"\"")
    }

    @Test("Every exercise of the rubric has a concept for the summary")
    func concepts() {
        #expect(PlatformReportTests.rubric.exercises.filter { Concepts.byExercise[$0.name] == nil }.map(\.name) == [])
    }
}
