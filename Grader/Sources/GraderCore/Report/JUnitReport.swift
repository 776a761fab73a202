import Foundation

/// JUnit XML (`--junit FILE`): one test suite per exercise, one test case per check.
public enum JUnitReport {
    public static func render(_ report: GradeReport) -> String {
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        let failures = report.exercises.reduce(0) { $0 + $1.checks.count - $1.passedChecks }
        let tests = report.exercises.reduce(0) { $0 + $1.checks.count }
        xml += #"<testsuites name="ConcurrencyKata" tests="\#(tests)" failures="\#(failures)">"# + "\n"
        for exercise in report.exercises {
            let failed = exercise.checks.count - exercise.passedChecks
            xml += #"  <testsuite name="\#(escape(exercise.name))" tests="\#(exercise.checks.count)" failures="\#(failed)" time="\#(String(format: "%.3f", exercise.seconds))">"# + "\n"
            xml += #"    <properties><property name="status" value="\#(exercise.status.keyword)"/><property name="points" value="\#(exercise.points)/\#(exercise.totalPoints)"/></properties>"# + "\n"
            for check in exercise.checks {
                xml += #"    <testcase classname="\#(escape(exercise.name))" name="\#(escape(check.title))""#
                if check.passed {
                    xml += "/>\n"
                } else {
                    let (detail, _, _) = JSONReport.describe(exercise.status)
                    let message = check.message ?? detail ?? "failed"
                    xml += ">\n      <failure message=\"\(escape(message))\" type=\"\(exercise.status.keyword)\"/>\n    </testcase>\n"
                }
            }
            xml += "  </testsuite>\n"
        }
        return xml + "</testsuites>\n"
    }

    static func escape(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "\n": result += "&#10;"
            default:
                if scalar.value < 0x20 && scalar != "\t" { continue }
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
