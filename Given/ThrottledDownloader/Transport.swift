import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Given, finished: how the downloader fetches one URL. The completion is called once, on any
/// thread, when the transfer is over, or never (a server that does not answer).
public protocol Transport: Sendable {
    func fetch(_ url: URL, completion: @escaping @Sendable (Result<Data, any Error>) -> Void)
}

/// Given, finished: a real transport over URLSession (FoundationNetworking on Linux).
/// A response with a status code outside 200...299 is a failure.
public struct URLSessionTransport: Transport, @unchecked Sendable {
    private let session: URLSession

    public init(session: URLSession = .shared) {
        self.session = session
    }

    public func fetch(_ url: URL, completion: @escaping @Sendable (Result<Data, any Error>) -> Void) {
        session.dataTask(with: url) { data, response, error in
            if let error {
                completion(.failure(error))
            } else if let status = (response as? HTTPURLResponse)?.statusCode, !(200...299).contains(status) {
                completion(.failure(HTTPStatusError(statusCode: status, url: url)))
            } else {
                completion(.success(data ?? Data()))
            }
        }.resume()
    }
}

/// A response whose status code was not a success.
public struct HTTPStatusError: Error, CustomStringConvertible, Sendable {
    public let statusCode: Int
    public let url: URL
    public var description: String { "HTTP \(statusCode) for \(url.absoluteString)" }
}

/// Why one URL has no data.
public enum DownloadError: Error, Equatable, Sendable {
    /// The transport did not call back before the downloader's timeout.
    case timedOut
    /// `cancelAll()` was called before the transfer finished.
    case cancelled
    /// The transport failed; the text describes the error.
    case failed(String)
}
