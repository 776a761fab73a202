import Foundation

/// The variant with no synchronization across suspension points: the actor's own isolation, and
/// nothing else. Check the cache, await the fetch, insert: every caller that arrives while a fetch
/// is in flight starts one of its own (reentrancy), and each caller's fetch runs in its own task.
public actor Loader {
    private let client: any LegacyClient
    private var cache: [String: Data] = [:]
    private var fetches = 0

    public init(client: any LegacyClient) {
        self.client = client
    }

    public var fetchCount: Int { fetches }

    public func load(_ key: String) async throws -> Data {
        if let data = cache[key] { return data }
        fetches += 1
        let data = try await fetch(key, using: client)
        cache[key] = data
        return data
    }
}
