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
        /// `class DIR...`: grade many students' copies (instructors).
        case classGrade([String])
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
    /// Refuse instead of waiting when another grader is running in this clone.
    public var wait = true
    /// `bench --quick`: small iteration counts.
    public var quick = false
    /// `bench --svg FILE`.
    public var svgFile: String?
    /// `checklist --write`, `manifest --write`.
    public var write = false
    /// `--variant NAME`: grade the wrong implementations in `Grader/Variants/<Exercise>/NAME/`
    /// (maintainers; the exercises that have none are left out).
    public var variant: String?
    /// `translations --stamp FILE`: mark a translation as made from its English text as it is now.
    public var stamp: String?
    /// `reset --yes`: no question asked.
    public var yes = false
    /// `--verbose`: every exercise's detail, not only the one in focus.
    public var verbose = false
    /// `--lang`: the language of the words shown to people (nil: from the environment).
    public var language: Language?

    public static let usage = """
    Concurrency Kata grader

    USAGE
      swift run grader [exercise ...] [options]   grade all exercises, or the named ones
      swift run grader hint <exercise>            show one more hint each time it is asked
      swift run grader watch [exercise]           re-grade after every save under Exercises/ (h: hint, q: quit)
      swift run grader list                       the exercises in order, with their last status
      swift run grader reset <exercise> [--yes]   put the untouched stub back (your version is kept beside it)
      swift run grader bench [exercise ...]       measure your finished code against the classic alternatives
                                                  (--quick: a few seconds; --json FILE; --svg FILE: a chart)

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
      --json FILE        write the results as JSON (schema in README.md)
      --junit FILE       write the results as JUnit XML
      --markdown FILE    write the results as a Markdown table (for a CI job summary)
      --classroom50 FILE write Classroom 50's result.json (classroom50/result/v1)
      --gradescope FILE  write Gradescope's results.json
      --classroom FILE   write GitHub Classroom's runner result (legacy: GitHub Classroom is sunset)
      --no-race-check    do not run ThreadSanitizer before calling an exercise complete
      --no-wait          exit 2 at once if another grader is running in this clone
      --lang LANGUAGE    en or zh-Hans (简体中文); by default from LC_ALL, LC_MESSAGES or LANG
                         (zh… means Simplified Chinese). JSON keys and status keywords never change
      -v, --verbose      every exercise's first failing check and message, not only the
                         exercise in focus (the one named, else the last one you changed)
      -h, --help         this text

    MAINTAINERS
      swift run grader verify               every solution passes, every stub scores zero, the
                                             wrong implementations in Grader/Variants stay under
                                             their caps, the rubric, CHECKLIST.md and the integrity
                                             manifest are current, and the support, grader and
                                             benchmark tests pass
      swift run grader checklist [--write]  print (or write) CHECKLIST.md from the rubric and suites
      swift run grader manifest [--write]   print (or write) Grader/integrity.json
      swift run grader portability          what would not compile on a Mac (verify runs it too)
      swift run grader translations [--stamp FILE]
                                             which Chinese documents are missing or behind their
                                             English text; --stamp marks FILE as up to date

    EXIT CODES
      0  every graded exercise is complete (verify: every check of the course passed)
      1  not every graded exercise is complete (verify: something failed)
      2  grading could not run: bad arguments, no toolchain, a build failure outside the
         exercises, another grader running (with --no-wait), or Ctrl-C
    """

    public init() {}

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
            case "--stamp": arguments.stamp = try value(word)
            case "--variant": arguments.variant = try value(word)
            case "--lang":
                let name = try value(word)
                guard let language = Language.named(name) else {
                    throw GraderError.badArguments(L("unknown language \(name); the languages are: ", "未知语言 \(name)；可选的语言有：") + Language.available)
                }
                arguments.language = language
            case "--no-race-check": arguments.raceCheck = false
            case "--no-wait": arguments.wait = false
            case "--quick": arguments.quick = true
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
        case "checklist": arguments.command = .checklist
        case "manifest": arguments.command = .manifest
        case "portability": arguments.command = .portability
        case "translations": arguments.command = .translations
        case "verify": arguments.command = .verify
        case "watch":
            guard positional.count <= 2 else { throw GraderError.badArguments(L("watch takes at most one exercise name", "watch 最多接受一个练习名")) }
            arguments.command = .watch
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
