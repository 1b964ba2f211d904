import Foundation
#if canImport(Glibc)
import Glibc
import ServiceTesting
#endif

/// Plain TCP for what an HTTP client cannot do on purpose: send half a request, or answer with garbage.
enum RawSocket {
    /// A connected socket to 127.0.0.1:`port`, with a receive timeout.
    static func connect(port: Int, receiveTimeout: Duration = .seconds(10)) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { close(fd); throw TestSetupError("connect failed: errno \(errno)") }
        var timeout = timeval(tv_sec: Int(receiveTimeout.components.seconds), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    /// Writes all of `text`.
    static func send(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Reads until the peer closes (`nil` when the receive timeout passed first), on a thread of its own: a blocking
    /// `recv` must not occupy one of the few threads of Swift's cooperative pool.
    static func readUntilClosed(_ fd: Int32) async -> String? {
        await onThread { read(fd, until: { _ in false }) }
    }

    /// Reads one HTTP response: its head and a body of its `Content-Length` (or until the peer closes).
    static func readResponse(_ fd: Int32) async -> String? {
        await onThread {
            read(fd) { received in
                let text = String(decoding: received, as: UTF8.self)
                guard let end = text.range(of: "\r\n\r\n") else { return false }
                let head = text[..<end.lowerBound].lowercased()
                guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
                      let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
                else { return false }
                return text[end.upperBound...].utf8.count >= length
            }
        }
    }

    private static func read(_ fd: Int32, until complete: ([UInt8]) -> Bool) -> String? {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count > 0 {
                received += buffer[0..<count]
                if complete(received) { return String(decoding: received, as: UTF8.self) }
                continue
            }
            if count == 0 || errno == ECONNRESET { return String(decoding: received, as: UTF8.self) }
            return nil
        }
    }

    private static func onThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: work()) }
        }
    }
}

/// A TCP server on loopback that answers every connection with `reply` and closes it (a broken service).
final class GarbageServer: @unchecked Sendable {  // the fd is written once in init, then only closed
    let port: Int
    private let listener: Int32

    init(reply: String) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        listen(fd, 16)
        port = Int(UInt16(bigEndian: address.sin_port))
        listener = fd
        let listener = fd
        Thread.detachNewThread {
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { return }
                var buffer = [UInt8](repeating: 0, count: 4096)
                _ = recv(client, &buffer, buffer.count, 0)
                RawSocket.send(client, reply)
                close(client)
            }
        }
    }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }
}
