import Foundation

/// Given, finished: where an image's bytes come from. `load` delivers them asynchronously, on
/// any thread, exactly once.
public protocol DataSource: Sendable {
    /// A short name for messages and operation names ("cat.ppm").
    var name: String { get }
    func load(completion: @escaping @Sendable (Result<Data, any Error>) -> Void)
}

/// Given, finished: a source that reads a file on a background queue.
public struct FileDataSource: DataSource {
    public let url: URL
    public var name: String { url.lastPathComponent }

    public init(url: URL) { self.url = url }

    public func load(completion: @escaping @Sendable (Result<Data, any Error>) -> Void) {
        DispatchQueue.global().async { [url] in
            completion(Result { try Data(contentsOf: url) })
        }
    }
}
