/// Where a twin operation was called: the caller's `#fileID` and `#line`, recorded by every twin so
/// that the swim lanes can point at the learner's own line.
public struct Site: Sendable, Hashable, CustomStringConvertible {
    /// `#fileID`: "Module/File.swift".
    public let fileID: String
    public let line: Int

    public init(_ fileID: StaticString, _ line: UInt) {
        self.fileID = "\(fileID)"
        self.line = Int(line)
    }

    public init(fileID: String, line: Int) {
        self.fileID = fileID
        self.line = line
    }

    /// "File.swift:42": the module name says nothing to a learner.
    public var description: String {
        let file = fileID.split(separator: "/").last.map(String.init) ?? fileID
        return "\(file):\(line)"
    }
}

/// A sentence in both languages of the course.
public struct Bilingual: Sendable, Hashable {
    public let en: String
    public let zh: String

    public init(_ en: String, zh: String) {
        self.en = en
        self.zh = zh
    }
}
