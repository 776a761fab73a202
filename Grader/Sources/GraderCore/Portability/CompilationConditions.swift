import Foundation

/// A platform and compiler for which `#if` conditions are evaluated: `os(…)`, `arch(…)`,
/// `canImport(…)`, `compiler(>=…)`, `swift(>=…)`, `targetEnvironment(…)`, `!`, `&&`, `||`,
/// parentheses and flags such as `DEBUG`.
struct CompilationConditions: Sendable, CustomStringConvertible {
    var os: String
    var arch: String
    var compiler: [Int]
    var importable: Set<String>
    var flags: Set<String> = ["DEBUG", "SWIFT_PACKAGE"]

    var description: String { "\(os) \(arch), Swift \(compiler.map(String.init).joined(separator: "."))" }

    /// Modules a macOS SDK with Xcode 26 offers (a `canImport` of anything else is false there).
    static let appleModules: Set<String> = [
        "Darwin", "ObjectiveC", "Foundation", "FoundationEssentials", "Dispatch", "CoreFoundation",
        "Synchronization", "Testing", "XCTest", "os", "Security", "System", "_Concurrency",
    ]

    /// Every configuration a learner on a Mac may build with: Apple Silicon and Intel, Swift 6.2
    /// (Xcode 26.0–26.3) and 6.3 (Xcode 26.4 and later).
    static let macConfigurations: [CompilationConditions] = ["arm64", "x86_64"].flatMap { arch in
        [[6, 2], [6, 3]].map { CompilationConditions(os: "macOS", arch: arch, compiler: $0, importable: appleModules) }
    }

    func evaluate(_ condition: String) -> Bool {
        var parser = Parser(tokens: Self.tokens(condition), conditions: self)
        return parser.disjunction()
    }

    static func tokens(_ text: String) -> [String] {
        var tokens: [String] = []
        var current = ""
        func flush() { if !current.isEmpty { tokens.append(current); current = "" } }
        var characters = Array(text)[...]
        while let character = characters.popFirst() {
            switch character {
            case "(", ")", "!", ",":
                flush(); tokens.append(String(character))
            case "&", "|":
                flush()
                if characters.first == character { characters.removeFirst() }
                tokens.append(String(repeating: character, count: 2))
            case " ", "\t":
                flush()
            default:
                current.append(character)
            }
        }
        flush()
        return tokens
    }

    /// A recursive-descent reader of a condition.
    struct Parser {
        var tokens: [String]
        var conditions: CompilationConditions
        var position = 0

        var next: String? { position < tokens.count ? tokens[position] : nil }
        mutating func take() -> String? {
            defer { position += 1 }
            return next
        }

        mutating func disjunction() -> Bool {
            var value = conjunction()
            while next == "||" { _ = take(); value = conjunction() || value }
            return value
        }

        mutating func conjunction() -> Bool {
            var value = negation()
            while next == "&&" { _ = take(); value = negation() && value }
            return value
        }

        mutating func negation() -> Bool {
            if next == "!" { _ = take(); return !negation() }
            return primary()
        }

        mutating func primary() -> Bool {
            guard let word = take() else { return false }
            if word == "(" {
                let value = disjunction()
                if next == ")" { _ = take() }
                return value
            }
            guard next == "(" else { return word == "true" || conditions.flags.contains(word) }
            _ = take()
            var argument: [String] = []
            var depth = 1
            while let token = take() {
                if token == "(" { depth += 1 }
                if token == ")" { depth -= 1; if depth == 0 { break } }
                argument.append(token)
            }
            let text = argument.joined()
            switch word {
            case "os": return text == conditions.os
            case "arch": return text == conditions.arch
            case "canImport": return conditions.importable.contains(text.components(separatedBy: ",").first ?? text)
            case "compiler", "swift": return Self.compare(conditions.compiler, text)
            case "targetEnvironment": return false
            default: return false
            }
        }

        /// `>=6.3` or `<6.2` against a version.
        static func compare(_ version: [Int], _ text: String) -> Bool {
            let below = text.hasPrefix("<")
            let number = text.drop { $0 == ">" || $0 == "=" || $0 == "<" }
            let wanted = number.split(separator: ".").compactMap { Int($0) }
            let atLeast = !PortabilityCheck.older(version, than: wanted)
            return below ? !atLeast : atLeast
        }
    }
}
