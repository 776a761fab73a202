import Foundation

/// The two grading platforms' result formats as JSON Schemas (draft 2020-12 keywords), written
/// from their documentation, and a validator for the keywords they use. The grader's
/// `--classroom50` and `--gradescope` outputs are checked against them.
enum PlatformSchemas {
    /// Classroom 50's `result.json`: foundation50/classroom50, wiki page "Advanced-Autograding",
    /// section "The result.json contract" (its field table): `schema` exactly
    /// `classroom50/result/v1`; `classroom`, `assignment`, `submission`, `commit`, `release`,
    /// `review` strings; `assignment_type` individual or group and `owner` (stamped by the
    /// runner); `datetime` (UTC ISO 8601) and the optional `graded_at`; `score` / `max-score`
    /// ints, the sums over `tests`; `tests` with `test-name`, `passed`, `score`, `max-score`
    /// ("Extra diagnostic fields on a test are preserved verbatim", so a test may have more);
    /// the optional `submitted_by` object. The sums are checked in code (`sumsMatch`).
    static let classroom50 = #"""
    {
      "$comment": "classroom50/result/v1, from foundation50/classroom50 wiki Advanced-Autograding, 'The result.json contract'",
      "type": "object",
      "required": ["schema", "classroom", "assignment", "submission", "commit", "release", "review", "datetime", "score", "max-score", "tests"],
      "additionalProperties": false,
      "properties": {
        "schema": { "const": "classroom50/result/v1" },
        "classroom": { "type": "string" },
        "assignment": { "type": "string" },
        "assignment_type": { "enum": ["individual", "group"] },
        "owner": { "type": "string" },
        "submission": { "type": "string" },
        "commit": { "type": "string" },
        "release": { "type": "string" },
        "review": { "type": "string" },
        "datetime": { "type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$" },
        "graded_at": { "type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$" },
        "score": { "type": "integer", "minimum": 0 },
        "max-score": { "type": "integer", "minimum": 0 },
        "submitted_by": { "type": "object" },
        "tests": {
          "type": "array",
          "items": {
            "type": "object",
            "required": ["test-name", "passed", "score", "max-score"],
            "properties": {
              "test-name": { "type": "string", "minLength": 1 },
              "passed": { "type": "boolean" },
              "score": { "type": "integer", "minimum": 0 },
              "max-score": { "type": "integer", "minimum": 0 }
            }
          }
        }
      }
    }
    """#

    /// Gradescope's `results.json`: "Autograder Specifications"
    /// (gradescope-autograders.readthedocs.io/en/latest/specs/; source gradescope/autograder_samples
    /// `docs/specs.md`), section "Output format": top-level `score` ("optional, but required if
    /// not on each test case"), `execution_time` (seconds), `output`, `output_format`,
    /// `test_output_format`, `test_name_format`, `visibility`, `stdout_visibility`, `extra_data`,
    /// `tests` ("required if no top-level score"), `leaderboard`; per test `score`, `max_score`,
    /// `status` ("passed" or "failed": "Test case status"), `name`, `name_format`, `number`,
    /// `output`, `output_format`, `tags`, `visibility`, `extra_data`. Visibility values from
    /// "Controlling Test Case Visibility", formats from "Output String Formatting".
    static let gradescope = #"""
    {
      "$comment": "Gradescope results.json, from gradescope-autograders.readthedocs.io/en/latest/specs/ 'Output format'",
      "type": "object",
      "additionalProperties": false,
      "anyOf": [
        { "required": ["score"] },
        { "required": ["tests"], "properties": { "tests": { "items": { "required": ["score"] } } } }
      ],
      "properties": {
        "score": { "type": "number" },
        "execution_time": { "type": "number", "minimum": 0 },
        "output": { "type": "string" },
        "output_format": { "enum": ["text", "simple_format", "html", "md", "ansi"] },
        "test_output_format": { "enum": ["text", "simple_format", "html", "md", "ansi"] },
        "test_name_format": { "enum": ["text", "simple_format", "html", "md", "ansi"] },
        "visibility": { "enum": ["hidden", "after_due_date", "after_published", "visible"] },
        "stdout_visibility": { "enum": ["hidden", "after_due_date", "after_published", "visible"] },
        "extra_data": { "type": "object" },
        "leaderboard": { "type": "array" },
        "tests": {
          "type": "array",
          "items": {
            "type": "object",
            "additionalProperties": false,
            "properties": {
              "score": { "type": "number" },
              "max_score": { "type": "number" },
              "status": { "enum": ["passed", "failed"] },
              "name": { "type": "string" },
              "name_format": { "enum": ["text", "simple_format", "html", "md", "ansi"] },
              "number": { "type": "string" },
              "output": { "type": "string" },
              "output_format": { "enum": ["text", "simple_format", "html", "md", "ansi"] },
              "tags": { "type": "array", "items": { "type": "string" } },
              "visibility": { "enum": ["hidden", "after_due_date", "after_published", "visible"] },
              "extra_data": { "type": "object" }
            }
          }
        }
      }
    }
    """#

    /// The problems of `data` against `schema` (empty: valid), each with its JSON path.
    static func validate(_ data: Data, against schema: String) throws -> [String] {
        let instance = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        let schemaObject = try JSONSerialization.jsonObject(with: Data(schema.utf8))
        var problems: [String] = []
        check(instance, schemaObject, path: "$", problems: &problems)
        return problems
    }

    private static func check(_ value: Any, _ schema: Any, path: String, problems: inout [String]) {
        guard let schema = schema as? [String: Any] else { return }
        if let type = schema["type"] as? String, !has(type: type, value) {
            problems.append("\(path): expected \(type), found \(Swift.type(of: value))")
            return
        }
        if let constant = schema["const"], !same(constant, value) { problems.append("\(path): expected \(constant)") }
        if let options = schema["enum"] as? [Any], !options.contains(where: { same($0, value) }) {
            problems.append("\(path): \(value) is not one of \(options)")
        }
        if let minimum = schema["minimum"] as? Double, let number = number(value), number < minimum {
            problems.append("\(path): \(number) is below \(minimum)")
        }
        if let string = value as? String {
            if let length = schema["minLength"] as? Int, string.count < length { problems.append("\(path): shorter than \(length)") }
            if let pattern = schema["pattern"] as? String, string.range(of: pattern, options: .regularExpression) == nil {
                problems.append("\(path): \"\(string)\" does not match \(pattern)")
            }
        }
        if let anyOf = schema["anyOf"] as? [Any] {
            let fits = anyOf.contains { option in
                var optionProblems: [String] = []
                check(value, option, path: path, problems: &optionProblems)
                return optionProblems.isEmpty
            }
            if !fits { problems.append("\(path): matches none of anyOf") }
        }
        if let object = value as? [String: Any] {
            for key in schema["required"] as? [String] ?? [] where object[key] == nil {
                problems.append("\(path): missing \"\(key)\"")
            }
            let properties = schema["properties"] as? [String: Any] ?? [:]
            for (key, member) in object {
                if let propertySchema = properties[key] {
                    check(member, propertySchema, path: "\(path).\(key)", problems: &problems)
                } else if schema["additionalProperties"] as? Bool == false {
                    problems.append("\(path): \"\(key)\" is not in the contract")
                }
            }
        }
        if let array = value as? [Any], let items = schema["items"] {
            for (index, element) in array.enumerated() { check(element, items, path: "\(path)[\(index)]", problems: &problems) }
        }
    }

    private static func isBoolean(_ value: Any) -> Bool {
        guard let number = value as? NSNumber else { return false }
        // JSONSerialization gives a boolean as an NSNumber of type "c" (char), on Linux and Apple platforms.
        return String(cString: number.objCType) == "c"
    }

    private static func number(_ value: Any) -> Double? {
        guard !isBoolean(value), let number = value as? NSNumber else { return nil }
        return number.doubleValue
    }

    private static func has(type: String, _ value: Any) -> Bool {
        switch type {
        case "object": value is [String: Any]
        case "array": value is [Any]
        case "string": value is String
        case "boolean": isBoolean(value)
        case "integer": number(value).map { $0 == $0.rounded() } ?? false
        case "number": number(value) != nil
        case "null": value is NSNull
        default: false
        }
    }

    private static func same(_ a: Any, _ b: Any) -> Bool {
        if let a = a as? String, let b = b as? String { return a == b }
        if let a = number(a), let b = number(b) { return a == b }
        return false
    }
}
