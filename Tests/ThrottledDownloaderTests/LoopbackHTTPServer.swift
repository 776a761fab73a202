import Foundation
import KataTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 for the end-to-end check: one thread per connection,
/// a fixed latency per request, `Connection: close`. It counts the requests it is serving at
/// once, which is what the downloader's limit must bound. It serves at most `maxRequests`
/// requests and only on the loopback address; `stop()` closes it.
final class LoopbackHTTPServer: @unchecked Sendable {
    let port: UInt16
    let meter = ConcurrencyMeter()
    private let listener: Int32
    private let latency: Double
    private let maxRequests: Int
    private let served = Locked(0)

    /// The body served for `path`: a few kilobytes that depend on the path.
    static func body(for path: String) -> Data {
        let seed = path.utf8.reduce(0) { ($0 &* 31 &+ Int($1)) & 0xffff }
        return Data((0..<(2_000 + seed % 6_000)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ seed) })
    }

    init?(latency: Double, maxRequests: Int) {
        self.latency = latency
        self.maxRequests = maxRequests
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return nil }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0  // any free port
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else { close(fd); return nil }
        var assigned = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &assigned) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = UInt16(bigEndian: assigned.sin_port)
        let acceptor = Thread { [self] in acceptLoop() }
        acceptor.start()
    }

    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)/\(path)")! }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while served.current < maxRequests {
            let connection = accept(listener, nil, nil)
            if connection < 0 { return }  // closed by stop()
            served.withLock { $0 += 1 }
            Thread { [self] in serve(connection) }.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var request = Data()
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while !request.contains(Data("\r\n\r\n".utf8)) {
            let count = recv(connection, &buffer, buffer.count, 0)
            if count <= 0 { return }
            request.append(contentsOf: buffer[0..<count])
        }
        let line = String(decoding: request.prefix { $0 != UInt8(ascii: "\r") }, as: UTF8.self)
        let path = line.split(separator: " ").dropFirst().first.map { String($0.dropFirst()) } ?? ""
        meter.enter()
        Thread.sleep(forTimeInterval: latency)
        let body = Self.body(for: path)
        var response = Data("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n".utf8)
        response.append(body)
        meter.leave()
        _ = response.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, 0) }
    }
}
