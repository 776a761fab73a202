import Foundation

/// Given, finished: a callback API like the ones many legacy SDKs still ship.
///
/// `fetch` starts loading `key` and returns a request at once; `completion` runs later, on any
/// thread (or, for a cached answer, before `fetch` has even returned). A faulty server makes some
/// clients call `completion` twice, or never: code that bridges this API must cope with both.
public protocol LegacyClient: Sendable {
    func fetch(_ key: String, completion: @escaping @Sendable (Result<Data, any Error>) -> Void) -> any LegacyRequest
}

/// A request in flight. `cancel()` asks the client to stop; a client may still call back afterwards.
public protocol LegacyRequest: Sendable {
    func cancel()
}
