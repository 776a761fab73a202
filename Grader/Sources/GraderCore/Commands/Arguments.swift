import Foundation

/// The grader's command line.
public struct Arguments: Equatable, Sendable {
    public enum Command: Equatable, Sendable {
        case grade
        case hint(String)
        case list
        case reset(String)
        case checklist
        case manifest
        case portability
        case translations
        case verify
        case watch
        case bench
        /// `loop-bench [exercise]`: the learner's loop measured in a temporary clone (maintainers).
        case loopBench
        /// `class DIR...`: grade many students' copies (instructors).
        case classGrade([String])
        /// `model <Exercise>`: the systematic checks on the learner's code (`Model/`).
        case model(String)
        /// `replay <Exercise> <schedule|code:…>`: one schedule of a systematic check again.
        case replay(String, String)
        case help
    }

    public var command: Command = .grade
    public var exercises: [String] = []
    public var solutions = false
    public var sanitize = false
    public var repetitions = 1
    public var timeout: Double?
    public var jsonFile: String?
    public var junitFile: String?
    public var markdownFile: String?
    public var classroomFile: String?
    /// `--classroom50 FILE`: Classroom 50's result.json.
    public var classroom50File: String?
    /// `--gradescope FILE`: Gradescope's results.json.
    public var gradescopeFile: String?
    /// `class --csv FILE`: points per student and exercise.
    public var csvFile: String?
    /// `class --jobs N`: students graded at once (nil: one per two cores).
    public var jobs: Int?
    /// `class --deadline SECONDS`: the most one student's grading may take.
    public var deadline: Double?
    /// Skip the ThreadSanitizer check that stands between "every check passes" and "complete".
    public var raceCheck = true
    /// Under a grade, draw the interleaving the systematic checks found breaking the exercise in
    /// focus (`--no-model`: do not; the systematic checks still decide).
    public var modelSearch = true
    /// Refuse instead of waiting when another grader is running in this clone.
    public var wait = true
    /// `bench --quick`: small iteration counts.
    public var quick = false
    /// `verify --suite-times`: each suite alone on its solution and its stub, timed.
    public var suiteTimes = false
    /// `bench --svg FILE`.
    public var svgFile: String?
    /// `--timings FILE`: the grader's own phases as JSON (what `loop-bench` reads).
    public var timingsFile: String?
    /// `loop-bench --runs N` (nil: 3, or 1 with `--quick`).
    public var runs: Int?
    /// `loop-bench --only fresh,watch,stubs,solutions,suites` (nil: all).
    public var only: [String]?
    /// `loop-bench --suites A,B`: the suites measured alone (nil: all; with `--quick`, the watched one).
    public var suites: [String]?
    /// `checklist --write`, `manifest --write`.
    public var write = false
    /// `--variant NAME`: grade the wrong implementations in `Grader/Variants/<Exercise>/NAME/`
    /// (maintainers; the exercises that have none are left out).
    public var variant: String?
    /// `translations --stamp FILE`: mark a translation as made from its English text as it is now.
    public var stamp: String?
    /// `translations --add-messages`: add an empty entry to the message catalog for each suite
    /// message it lacks, and remove the entries no suite says any more.
    public var addMessages = false
    /// `reset --yes`: no question asked.
    public var yes = false
    /// `--verbose`: every exercise's detail, not only the one in focus.
    public var verbose = false
    /// `--lang`: the language of the words shown to people (nil: from the environment).
    public var language: Language?
    /// `--build-system native|swiftbuild`: SwiftPM's build system for every SwiftPM command the
    /// grader runs (nil: SwiftPM's default, which `GraderApp` asks SwiftPM for).
    public var buildSystem: BuildSystem?
    /// `replay --check N`: which systematic check (1-based, as `grader model` numbers them).
    public var modelCheck: Int?

    /// `--help`'s text, in the current language.
    public static var usage: String { L(englishUsage, chineseUsage) }

    static let englishUsage = """
    Concurrency Kata grader

    USAGE
      swift run grader [exercise ...] [options]   grade all exercises, or the named ones
      swift run grader hint <exercise>            show one more hint each time it is asked
      swift run grader watch [exercise]           re-grade after every save under Exercises/ (h: hint, q: quit)
      swift run grader list                       the exercises in order, with their last status
      swift run grader reset <exercise> [--yes]   put the untouched stub back (your version is kept beside it)
      swift run grader bench [exercise ...]       measure your finished code against the classic alternatives
                                                  (--quick: a few seconds; --json FILE; --svg FILE: a chart)
      swift run grader model <exercise>           explore the orders in which threads can run your code
                                                  (ThreadSafeDictionary, CancellableWork,
                                                  ThrottledDownloader, Deadlocks, BoundedBuffer,
                                                  StallMonitor, GatesAndOnce) and draw one that breaks it
      swift run grader replay <exercise> <schedule|code:…> [--check N]
                                                  run that order again and draw it

    INSTRUCTORS
      swift run grader class DIR... --csv FILE    grade many students' copies of the course, one per
                                                  folder, each in a clean copy of this course (their
                                                  edited tests or grader count for nothing); writes
                                                  points per student and exercise to FILE and a
                                                  summary (--markdown FILE; default FILE.md) of the
                                                  checks the class fails most, with copied-solution
                                                  and modified-file flags. --jobs N: students at once
                                                  (default: one per two cores); --deadline SECONDS:
                                                  the most one student may take (default 1800)

    OPTIONS
      --solutions        grade Solutions/ instead of Exercises/ (maintainers; must give full marks)
      --variant NAME     grade the wrong implementations in Grader/Variants/<Exercise>/NAME/
                         (maintainers; what verify checks against each exercise's caps.json)
      --sanitize         also run under ThreadSanitizer; an exercise with a data race is not complete
      --repeat N         run each suite N times; a check counts only if it passed every time
      --timeout SECONDS  deadline for one run of a suite (default: the rubric's, 60 s)
      --json FILE        write the results as JSON (schema in Instructors/README.md)
      --junit FILE       write the results as JUnit XML
      --markdown FILE    write the results as a Markdown table (for a CI job summary)
      --classroom50 FILE write Classroom 50's result.json (classroom50/result/v1)
      --gradescope FILE  write Gradescope's results.json
      --classroom FILE   write GitHub Classroom's runner result (legacy: GitHub Classroom is sunset)
      --no-race-check    do not run ThreadSanitizer before calling an exercise complete
      --no-model         do not draw under the grade the interleaving that the systematic checks
                         found; they still run and decide, for:
                         \(ModelApplicability.exercises.joined(separator: ", "))
      --no-wait          exit 2 at once if another grader is running in this clone
      --build-system native|swiftbuild
                         SwiftPM's build system for every build and test run (default: SwiftPM's
                         own, which `swift build --help` shows; Swift Build from SwiftPM 6.4)
      --lang LANGUAGE    en or zh-Hans (简体中文); by default from LC_ALL, LC_MESSAGES or LANG
                         (zh… means Simplified Chinese). JSON keys and status keywords never change
      -v, --verbose      every exercise's failing checks and first message, not only the
                         exercise in focus (the one named, else the last one you changed)
      -h, --help         this text

    MAINTAINERS
      swift run grader verify               (also with --build-system) every solution passes, every stub scores zero, the
                                             wrong implementations in Grader/Variants stay under
                                             their caps, the rubric, CHECKLIST.md and the integrity
                                             manifest are current, and the support, grader and
                                             benchmark tests pass; --suite-times also times each
                                             suite alone on its solution and its stub
      swift run grader checklist [--write]  print (or write) CHECKLIST.md from the rubric and suites
      swift run grader manifest [--write]   print (or write) Grader/integrity.json
      swift run grader portability          what would not compile on a Mac (verify runs it too)
      swift run grader translations [--stamp FILE] [--add-messages]
                                             which Chinese documents, titles and suite messages
                                             are missing or behind their English text; --stamp
                                             marks FILE as up to date; --add-messages adds an
                                             empty entry to Grader/messages.zh-Hans.json for each
                                             suite message it lacks (then fill in the Chinese)
      swift run grader loop-bench [exercise] [--runs N] [--quick] [--only fresh,watch,stubs,solutions,suites]
                                 [--suites A,B] [--json FILE] [--markdown FILE]
                                             the learner's loop timed in a temporary clone of
                                             HEAD (minutes; MAINTAINERS.md); --timings FILE on a
                                             grade or watch writes the grader's own phases

    EXIT CODES
      0  every graded exercise is complete (verify: every check of the course passed)
      1  not every graded exercise is complete (verify: something failed)
      2  grading could not run: bad arguments, no toolchain, a build failure outside the
         exercises, a test process that ended before its test run started, another grader
         running (with --no-wait), or Ctrl-C
      model and replay: 0 every systematic check held (replay: the schedule passes), 1 one failed
         or could not be judged, 2 could not run, 3 not applicable (synchronization without a twin)
    """

    static let chineseUsage = """
    Concurrency Kata 评分程序

    用法
      swift run grader [练习 ...] [选项]          给所有练习评分，或只给列出的练习评分
      swift run grader hint <练习>                每次多显示一条提示
      swift run grader watch [练习]               每次保存 Exercises/ 下的文件后重新评分（h：提示，q：退出）
      swift run grader list                       按顺序列出练习及上次的状态
      swift run grader reset <练习> [--yes]       恢复未改动的练习模板（你的版本保存在旁边）
      swift run grader bench [练习 ...]           把你完成的代码和经典的其他写法做性能对比
                                                  （--quick：几秒钟；--json FILE；--svg FILE：图表）
      swift run grader model <练习>               逐一尝试线程运行你的代码的各种顺序（ThreadSafeDictionary、
                                                  CancellableWork、ThrottledDownloader、Deadlocks、
                                                  BoundedBuffer、StallMonitor、GatesAndOnce），
                                                  并画出让它出错的那一种
      swift run grader replay <练习> <调度|code:…> [--check N]
                                                  重新运行那个顺序并画出来

    教师
      swift run grader class DIR... --csv FILE    给多名学生的课程副本评分，每个文件夹一份，
                                                  每份都在这门课程的一份干净副本里评分（他们改过的
                                                  测试或评分程序一概不算）；把每名学生每个练习的
                                                  得分写进 FILE，并写一份摘要（--markdown FILE；
                                                  默认 FILE.md），列出全班失败最多的检查，标出
                                                  抄自参考答案的练习和改动过的文件。--jobs N：
                                                  同时评几名学生（默认每两个核一名）；
                                                  --deadline SECONDS：一名学生最多用时（默认 1800）

    选项
      --solutions        给 Solutions/ 而不是 Exercises/ 评分（维护者用；必须满分）
      --variant NAME     给 Grader/Variants/<练习>/NAME/ 里的错误实现评分
                         （维护者用；verify 用它核对每个练习的 caps.json）
      --sanitize         同时在 ThreadSanitizer 下运行；有数据竞争的练习不算完成
      --repeat N         每个测试套件运行 N 次；每次都通过的检查才算通过
      --timeout SECONDS  测试套件一次运行的时限（默认用评分规则里的 60 秒）
      --json FILE        把结果写成 JSON（格式见 Instructors/README.zh-Hans.md）
      --junit FILE       把结果写成 JUnit XML
      --markdown FILE    把结果写成 Markdown 表格（用于 CI 的任务摘要）
      --classroom50 FILE 写出 Classroom 50 的 result.json（classroom50/result/v1）
      --gradescope FILE  写出 Gradescope 的 results.json
      --classroom FILE   写出 GitHub Classroom 运行器的结果（旧版：GitHub Classroom 已停止服务）
      --no-race-check    判定练习完成之前不运行 ThreadSanitizer
      --no-model         不在评分结果下面画出系统检查找到的交错执行（系统检查照样运行并参与判定：
                         \(ModelApplicability.exercises.joined(separator: "、"))）
      --no-wait          如果这个克隆里已有评分程序在运行，立即以状态 2 退出
      --build-system native|swiftbuild
                         每次构建和测试运行用的 SwiftPM 构建系统（默认用 SwiftPM 自己的，
                         `swift build --help` 会显示；SwiftPM 6.4 起是 Swift Build）
      --lang LANGUAGE    en 或 zh-Hans（简体中文）；默认取自 LC_ALL、LC_MESSAGES 或 LANG
                         （zh… 表示简体中文）。JSON 的键和状态关键字不随语言改变
      -v, --verbose      显示每个练习未通过的检查和第一条消息，而不只是当前关注的练习
                         （命令行里指定的那个，否则是你最近改动的那个）
      -h, --help         显示本说明

    维护者
      swift run grader verify               （也可加 --build-system）每个参考答案都通过，每个练习模板都得零分，
                                             Grader/Variants 里的错误实现都不超过各自的上限，
                                             评分规则、CHECKLIST.md 和完整性清单都是最新的，
                                             支持库、评分程序和基准测试自己的测试都通过；
                                             加 --suite-times 还会给每个测试套件在参考答案和
                                             练习模板上单独运行计时
      swift run grader checklist [--write]  根据评分规则和测试套件打印（或写入）CHECKLIST.md
      swift run grader manifest [--write]   打印（或写入）Grader/integrity.json
      swift run grader portability          在 Mac 上无法编译的代码（verify 也会运行它）
      swift run grader translations [--stamp FILE] [--add-messages]
                                             哪些中文文档、标题和测试消息缺失或落后于英文；
                                             --stamp 把 FILE 标记为最新；--add-messages 为
                                             Grader/messages.zh-Hans.json 里缺少的每条测试消息
                                             加一个空条目（然后填上中文）
      swift run grader loop-bench [练习] [--runs N] [--quick] [--only fresh,watch,stubs,solutions,suites]
                                 [--suites A,B] [--json FILE] [--markdown FILE]
                                             在 HEAD 的临时克隆里给学习者的循环计时（要几分钟；
                                             见 MAINTAINERS.zh-Hans.md）；评分或 watch 加
                                             --timings FILE 会写出评分程序自己各阶段的用时

    退出状态
      0  所有参与评分的练习都已完成（verify：课程的每项检查都通过）
      1  并非所有参与评分的练习都已完成（verify：有检查失败）
      2  无法评分：参数错误、没有工具链、练习以外的代码构建失败、测试进程在测试运行
         开始之前就结束了、另一个评分程序正在运行（加了 --no-wait），或按了 Ctrl-C
      model 和 replay：0 所有系统检查都成立（replay：该调度通过），1 有检查失败或无法判断，
         2 无法运行，3 不适用（用到了没有替身的同步方式）
    """

    public init() {}

    /// The build system chosen, or the native one (`GraderApp` fills in SwiftPM's default first).
    public var resolvedBuildSystem: BuildSystem { buildSystem ?? .native }

    public static func parse(_ words: [String]) throws -> Arguments {
        var arguments = Arguments()
        var positional: [String] = []
        var index = 0
        func value(_ option: String) throws -> String {
            index += 1
            guard index < words.count else { throw GraderError.badArguments(L("\(option) needs a value", "\(option) 需要一个值")) }
            return words[index]
        }
        while index < words.count {
            let word = words[index]
            switch word {
            case "-h", "--help", "help": arguments.command = .help
            case "--solutions": arguments.solutions = true
            case "--sanitize": arguments.sanitize = true
            case "--write": arguments.write = true
            case "--yes", "-y": arguments.yes = true
            case "--verbose", "-v": arguments.verbose = true
            case "--repeat":
                guard let count = Int(try value(word)), count >= 1 else { throw GraderError.badArguments(L("--repeat takes a whole number of at least 1", "--repeat 需要一个不小于 1 的整数")) }
                arguments.repetitions = count
            case "--timeout":
                guard let seconds = Double(try value(word)), seconds > 0 else { throw GraderError.badArguments(L("--timeout takes a number of seconds above 0", "--timeout 需要一个大于 0 的秒数")) }
                arguments.timeout = seconds
            case "--json": arguments.jsonFile = try value(word)
            case "--junit": arguments.junitFile = try value(word)
            case "--markdown": arguments.markdownFile = try value(word)
            case "--classroom": arguments.classroomFile = try value(word)
            case "--classroom50": arguments.classroom50File = try value(word)
            case "--gradescope": arguments.gradescopeFile = try value(word)
            case "--csv": arguments.csvFile = try value(word)
            case "--jobs":
                guard let count = Int(try value(word)), count >= 1 else { throw GraderError.badArguments(L("--jobs takes a whole number of at least 1", "--jobs 需要一个不小于 1 的整数")) }
                arguments.jobs = count
            case "--deadline":
                guard let seconds = Double(try value(word)), seconds > 0 else { throw GraderError.badArguments(L("--deadline takes a number of seconds above 0", "--deadline 需要一个大于 0 的秒数")) }
                arguments.deadline = seconds
            case "--svg": arguments.svgFile = try value(word)
            case "--timings": arguments.timingsFile = try value(word)
            case "--runs":
                guard let count = Int(try value(word)), count >= 1 else { throw GraderError.badArguments(L("--runs takes a whole number of at least 1", "--runs 需要一个不小于 1 的整数")) }
                arguments.runs = count
            case "--only": arguments.only = try value(word).split(separator: ",").map(String.init)
            case "--suites": arguments.suites = try value(word).split(separator: ",").map(String.init)
            case "--stamp": arguments.stamp = try value(word)
            case "--add-messages": arguments.addMessages = true
            case "--variant": arguments.variant = try value(word)
            case "--lang":
                let name = try value(word)
                guard let language = Language.named(name) else {
                    throw GraderError.badArguments(L("unknown language \(name); the languages are: ", "未知语言 \(name)；可选的语言有：") + Language.available)
                }
                arguments.language = language
            case "--build-system":
                let name = try value(word)
                guard let system = BuildSystem(rawValue: name) else {
                    throw GraderError.badArguments(L("--build-system takes native or swiftbuild, not \(name)", "--build-system 只接受 native 或 swiftbuild，而不是 \(name)"))
                }
                arguments.buildSystem = system
            case "--no-race-check": arguments.raceCheck = false
            case "--no-model": arguments.modelSearch = false
            case "--no-wait": arguments.wait = false
            case "--quick": arguments.quick = true
            case "--suite-times": arguments.suiteTimes = true
            case "--check":
                guard let number = Int(try value(word)), number >= 1 else { throw GraderError.badArguments(L("--check takes a check number of at least 1", "--check 需要一个不小于 1 的检查编号")) }
                arguments.modelCheck = number
            default:
                if word.hasPrefix("-") { throw GraderError.badArguments(L("unknown option \(word)", "未知选项 \(word)")) }
                positional.append(word)
            }
            index += 1
        }
        if arguments.command == .help { return arguments }
        switch positional.first {
        case "hint", "reset":
            guard positional.count == 2 else { throw GraderError.badArguments(L("\(positional[0]) takes one exercise name", "\(positional[0]) 需要一个练习名")) }
            arguments.command = positional[0] == "hint" ? .hint(positional[1]) : .reset(positional[1])
        case "list": arguments.command = .list
        case "model":
            guard positional.count == 2 else { throw GraderError.badArguments(L("model takes one exercise name", "model 需要一个练习名")) }
            arguments.command = .model(positional[1])
        case "replay":
            guard positional.count == 3 else { throw GraderError.badArguments(L("replay takes an exercise name and a schedule (a number or code:…)", "replay 需要一个练习名和一个调度（编号或 code:…）")) }
            arguments.command = .replay(positional[1], positional[2])
        case "checklist": arguments.command = .checklist
        case "manifest": arguments.command = .manifest
        case "portability": arguments.command = .portability
        case "translations": arguments.command = .translations
        case "verify": arguments.command = .verify
        case "watch":
            guard positional.count <= 2 else { throw GraderError.badArguments(L("watch takes at most one exercise name", "watch 最多接受一个练习名")) }
            arguments.command = .watch
            arguments.exercises = Array(positional.dropFirst())
        case "loop-bench":
            guard positional.count <= 2 else { throw GraderError.badArguments(L("loop-bench takes at most one exercise name (the one watched)", "loop-bench 最多接受一个练习名（被监视的那个）")) }
            arguments.command = .loopBench
            arguments.exercises = Array(positional.dropFirst())
        case "bench":
            arguments.command = .bench
            arguments.exercises = Array(positional.dropFirst())
        case "class":
            guard positional.count >= 2 else { throw GraderError.badArguments(L("class takes the folders of the students' copies", "class 需要学生副本所在的文件夹")) }
            guard arguments.csvFile != nil else { throw GraderError.badArguments(L("class needs --csv FILE", "class 需要 --csv FILE")) }
            arguments.command = .classGrade(Array(positional.dropFirst()))
        default: arguments.exercises = positional
        }
        return arguments
    }
}
