import Foundation

/// `grader class DIR... --csv FILE`: grades many students' copies of the course for an
/// instructor, a bounded number at a time, each in a clean copy of this course (only the
/// student's `Exercises/` counts) by this grader in a child process with a deadline of its own.
/// A copy that cannot be graded (no Exercises/ folder, the grader could not run, the deadline
/// passed) is a row with its reason; the class goes on.
struct ClassCommand {
    var layout: KataLayout
    var rubric: Rubric
    var arguments: Arguments
    var folders: [String]

    static let defaultDeadline: Double = 1_800

    func run() throws -> Int32 {
        let students = StudentCopy.named(folders)
        let jobs = min(students.count, arguments.jobs ?? max(1, ProcessInfo.processInfo.activeProcessorCount / 2))
        let deadline = arguments.deadline ?? Self.defaultDeadline
        guard let grader = Bundle.main.executablePath else { throw GraderError.cannotRun("cannot find the grader's own executable") }
        let work = layout.stateDirectory.appendingPathComponent("class")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        print(L("Grading \(students.count) copies, \(jobs) at a time, each within \(Int(deadline)) s (clean copies of the course in \(layout.relative(work))/)…",
                "给 \(students.count) 份副本评分，同时 \(jobs) 份，每份限时 \(Int(deadline)) 秒（课程的干净副本在 \(layout.relative(work))/）…"))
        let started = Date()
        let results = ResultSlots(count: students.count)
        let next = Counter()
        let group = DispatchGroup()
        for job in 0..<jobs {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                let workspace = ClassWorkspace(course: layout, root: work.appendingPathComponent("job-\(job + 1)"), rubric: rubric)
                warm(workspace, name: "job-\(job + 1)", deadline: deadline, log: work.appendingPathComponent("job-\(job + 1)-build.log"))
                while !Interrupt.requested, let index = next.take(below: students.count) {
                    let started = Date()
                    var grade = grade(students[index], in: workspace, grader: grader, deadline: deadline,
                                      log: work.appendingPathComponent("job-\(job + 1).log"))
                    grade.seconds = Date().timeIntervalSince(started)
                    results.set(index, grade)
                    print(line(for: grade, done: results.filled, of: students.count))
                    Style.flush()
                }
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        group.wait()
        if Interrupt.requested {
            print(L("Interrupted: every process the grader started was stopped; nothing was written.", "已中断：评分程序启动的进程都已停止；没有写入任何文件。"))
            return 2
        }
        let grades = results.all
        let seconds = Date().timeIntervalSince(started)
        let csvFile = URL(fileURLWithPath: arguments.csvFile ?? "class.csv")
        try Data(ClassCSV.render(grades, rubric: rubric).utf8).write(to: csvFile, options: .atomic)
        let summaryFile = arguments.markdownFile.map { URL(fileURLWithPath: $0) }
            ?? csvFile.deletingPathExtension().appendingPathExtension("md")
        let summary = ClassSummary.render(grades, rubric: rubric, options: optionsDescription(jobs: jobs, deadline: deadline), seconds: seconds)
        try Data(summary.utf8).write(to: summaryFile, options: .atomic)
        print(L("Wrote \(csvFile.path) and \(summaryFile.path) in \(Int(seconds.rounded())) s.",
                "已写入 \(csvFile.path) 和 \(summaryFile.path)，用时 \(Int(seconds.rounded())) 秒。"))
        return grades.allSatisfy { $0.report != nil } ? 0 : 1
    }

    /// The first build of a job's copy of the course, with the course's own exercises.
    func warm(_ workspace: ClassWorkspace, name: String, deadline: Double, log: URL) {
        let started = Date()
        print(L("\(name): building the course once (plain\(arguments.raceCheck ? " and under ThreadSanitizer" : ""); later copies rebuild only their exercises)…",
                "\(name)：先把课程构建一次（普通构建\(arguments.raceCheck ? "和 ThreadSanitizer 构建" : "")；之后的副本只重新构建各自的练习）…"))
        Style.flush()
        let failed = (try? workspace.warm(sanitized: arguments.raceCheck && !arguments.sanitize, deadline: deadline, log: log)) ?? ["the copy of the course"]
        print(L("\(name): built in \(Int(Date().timeIntervalSince(started).rounded())) s", "\(name)：构建用了 \(Int(Date().timeIntervalSince(started).rounded())) 秒")
              + (failed.isEmpty ? "" : L("; failed: ", "；失败：") + failed.joined(separator: "; ") + L(" (see \(layout.relative(log)))", "（见 \(layout.relative(log))）")))
        Style.flush()
    }

    /// Grades one copy: fills the workspace, runs this grader there with `--json` and the
    /// options given, and reads its report.
    func grade(_ student: StudentCopy, in workspace: ClassWorkspace, grader: String, deadline: Double, log: URL) -> StudentGrade {
        var result = StudentGrade(student: student, report: nil, note: nil, modifiedFiles: [], missingExercises: [], seconds: 0)
        guard FolderMirror.isDirectory(student.root.appendingPathComponent("Exercises")) else {
            result.note = L("not graded: \(student.root.path) has no Exercises/ folder", "未评分：\(student.root.path) 里没有 Exercises/ 文件夹")
            return result
        }
        result.modifiedFiles = student.modifiedCourseFiles(comparedWith: layout)
        do {
            result.missingExercises = try workspace.prepare(for: student)
        } catch {
            result.note = L("not graded: the copy could not be prepared: \(error.localizedDescription)", "未评分：无法准备副本：\(error.localizedDescription)")
            return result
        }
        let json = workspace.root.appendingPathComponent(".kata-class-report.json")
        try? FileManager.default.removeItem(at: json)
        let termination: Termination
        do {
            termination = try ChildProcess.run([grader] + childArguments(json: json), in: workspace.root,
                                               environment: ["NO_COLOR": "1"], outputFile: log,
                                               limits: ChildLimits(deadline: deadline))
        } catch {
            result.note = L("not graded: \(error)", "未评分：\(error)")
            return result
        }
        switch termination {
        case .exited(0), .exited(1):
            do {
                result.report = try StudentGrade.decode(Data(contentsOf: json))
            } catch {
                result.note = L("not graded: the grader wrote no readable report (\(error.localizedDescription)); see \(log.path)",
                                "未评分：评分程序没有写出可读的报告（\(error.localizedDescription)）；见 \(log.path)")
            }
        case .timedOut:
            result.note = L("not graded: still running at the deadline (\(Int(deadline)) s) and stopped",
                            "未评分：到截止时间（\(Int(deadline)) 秒）仍在运行，已停止")
        case .interrupted:
            result.note = L("not graded: interrupted", "未评分：被中断")
        default:
            result.note = L("not graded: the grader could not run (\(Self.describe(termination))): ", "未评分：评分程序无法运行（\(Self.describe(termination))）：") + lastLine(of: log)
        }
        return result
    }

    /// The options of this command that the grading of one copy takes over.
    func childArguments(json: URL) -> [String] {
        // The search for interleavings prints for a person; nobody reads a copy's output.
        var words = ["--no-wait", "--no-model", "--json", json.path]
        if !arguments.raceCheck { words.append("--no-race-check") }
        if arguments.sanitize { words.append("--sanitize") }
        if arguments.repetitions > 1 { words += ["--repeat", String(arguments.repetitions)] }
        if let timeout = arguments.timeout { words += ["--timeout", String(timeout)] }
        if let language = arguments.language { words += ["--lang", language.rawValue] }
        return words + arguments.exercises
    }

    func optionsDescription(jobs: Int, deadline: Double) -> String {
        var parts = [arguments.raceCheck && !arguments.sanitize ? L("race check on", "数据竞争检查开启") : L("race check off", "数据竞争检查关闭")]
        if arguments.sanitize { parts.append("--sanitize") }
        if arguments.repetitions > 1 { parts.append("--repeat \(arguments.repetitions)") }
        if let timeout = arguments.timeout { parts.append("--timeout \(Int(timeout))") }
        parts.append(L("\(jobs) at a time, \(Int(deadline)) s each at most", "同时 \(jobs) 份，每份最多 \(Int(deadline)) 秒"))
        return parts.joined(separator: ", ")
    }

    func line(for grade: StudentGrade, done: Int, of total: Int) -> String {
        let outcome = grade.report.map { "\($0.points)/\($0.totalPoints)" } ?? L("not graded", "未评分")
        let note = ClassSummary.note(for: grade)
        return "[\(done)/\(total)] \(grade.student.name): \(outcome) (\(Int(grade.seconds.rounded())) s)" + (note.isEmpty ? "" : ": \(note)")
    }

    static func describe(_ termination: Termination) -> String {
        switch termination {
        case .exited(let code), .exitedEarly(let code): L("exit status \(code)", "退出码 \(code)")
        case .signalled(let signal): L("signal \(signal)", "信号 \(signal)")
        default: "\(termination)"
        }
    }

    /// The grader's own last word in its log (its error), not a build's progress line.
    func lastLine(of log: URL) -> String {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        let lines = text.split(separator: "\n").map(String.init)
        return lines.last { $0.hasPrefix("grader:") } ?? lines.last { !$0.hasPrefix("[") } ?? ""
    }
}

/// The grades, filled in by the jobs in any order, kept in the order of the folders given.
final class ResultSlots: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [StudentGrade?]
    init(count: Int) { slots = Array(repeating: nil, count: count) }
    func set(_ index: Int, _ grade: StudentGrade) { lock.lock(); slots[index] = grade; lock.unlock() }
    var filled: Int { lock.lock(); defer { lock.unlock() }; return slots.compactMap { $0 }.count }
    var all: [StudentGrade] { lock.lock(); defer { lock.unlock() }; return slots.compactMap { $0 } }
}

/// Hands out 0, 1, 2… to the jobs.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func take(below limit: Int) -> Int? {
        lock.lock(); defer { lock.unlock() }
        guard value < limit else { return nil }
        value += 1
        return value - 1
    }
}
