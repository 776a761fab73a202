import Foundation

/// The languages the grader speaks to people in. JSON keys, status keywords, exit codes and file
/// formats stay the same in every language; only words shown to a person change.
public enum Language: String, CaseIterable, Sendable {
    case english = "en"
    case simplifiedChinese = "zh-Hans"

    /// The language of this run: `--lang`, else the environment, else English. Set once, before
    /// anything runs concurrently.
    public static var current: Language {
        get { override ?? process }
        set { process = newValue }
    }
    nonisolated(unsafe) private static var process: Language = .english
    /// A language for one task and what it calls (the grader's tests render both languages side by
    /// side, in parallel, without touching the process's).
    @TaskLocal static var override: Language?

    /// The suffix of a translated document: `README.zh-Hans.md` beside `README.md`.
    public var documentSuffix: String? { self == .english ? nil : rawValue }

    /// A `--lang` value: `en`, `zh-Hans`, and the usual spellings of Simplified Chinese
    /// (`zh`, `zh-CN`, `zh_CN`, `zh-hans`).
    public static func named(_ text: String) -> Language? {
        switch text.lowercased().replacingOccurrences(of: "_", with: "-") {
        case "en", "en-us", "en-gb", "english": .english
        case "zh", "zh-hans", "zh-cn", "zh-sg", "zh-hans-cn": .simplifiedChinese
        default: nil
        }
    }

    /// The language the environment asks for, in POSIX's order of precedence (`LC_ALL`, then
    /// `LC_MESSAGES`, then `LANG`): Simplified Chinese for any `zh…` value, English otherwise.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Language {
        let value = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? ""
        return value.lowercased().hasPrefix("zh") ? .simplifiedChinese : .english
    }

    /// What `--lang` accepts, for the error that lists them.
    public static var available: String { "en (English), zh-Hans (简体中文)" }
}

/// The grader's words in the current language: the English first, then the Simplified Chinese,
/// side by side where they are used, so that a change to one shows the other to change too.
func L(_ english: String, _ chinese: String) -> String {
    Language.current == .simplifiedChinese ? chinese : english
}
