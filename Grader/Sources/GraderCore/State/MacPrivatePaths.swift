import Foundation

/// Paths compared as macOS means them: `/tmp`, `/var` and `/etc` are symbolic links to
/// `/private/tmp`, `/private/var` and `/private/etc`, and the two spellings meet in the grader.
///
/// Foundation drops the `/private` (swift-foundation swift-6.2-RELEASE and swift-6.3.1-RELEASE,
/// Sources/FoundationEssentials/String/String+Path.swift, `_standardizingPath`: the prefix
/// `/private/` is stripped when the rest names an existing file, for `standardizedFileURL` and
/// `resolvingSymlinksInPath`), so a checkout's root reads `/tmp/kata`, while compile errors name
/// `/private/tmp/kata/Exercises/…`, the working directory as the kernel's `getcwd` spells it, from
/// which SwiftPM gives the compiler its paths (reported from a Mac; no Mac here to see
/// it). Both sides are brought to the short spelling before one is cut from the other.
/// The same code runs on Linux (measured: `/private/etc/hosts` standardizes to `/etc/hosts`), but
/// there no path of a checkout starts with `/private/tmp`, `/private/var` or `/private/etc`.
enum MacPrivatePaths {
    static let linkedFolders = ["tmp", "var", "etc"]

    /// `/private/tmp/…` as `/tmp/…` (likewise `var` and `etc`); any other path as it is.
    static func short(_ path: String) -> String {
        for folder in linkedFolders where path == "/private/\(folder)" || path.hasPrefix("/private/\(folder)/") {
            return String(path.dropFirst("/private".count))
        }
        return path
    }

    /// `path` relative to the folder `root` (either spelt with or without `/private`), or nil when
    /// it is not inside it.
    static func relative(_ path: String, to root: String) -> String? {
        let path = short(path)
        let root = short(root)
        let prefix = root.hasSuffix("/") ? root : root + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : nil
    }

    /// Whether `path` is inside `root` (either spelt with or without `/private`).
    static func isInside(_ path: String, _ root: String) -> Bool { relative(path, to: root) != nil }
}
