import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
import ServiceTesting
#endif

/// A plain HTTP/1.1 keep-alive server on loopback, on raw sockets (a thread per connection), for the upstream
/// connection pool's tests: it counts the connections it accepted and holds, and can answer slowly, with
/// `Connection: close`, with a streamed body, with a body cut short, or close its idle connections.
final class KeepAliveServer: @unchecked Sendable {  // the listener is written once in init, the rest is under `state`
    /// How to answer one request (by its target).
    struct Reply: Sendable {
        var status = "200 OK"
        var headers: [(String, String)] = []
        var body = "ok"
        /// Written before the answer.
        var delay: Duration = .zero
        /// `Connection: close` is sent and the connection closed after the answer.
        var close = false
        /// Only this many bytes of the body are written, then the connection closes (a declared length is kept).
        var cutAfter: Int?
        /// The body is sent chunked in pieces of this many bytes with `chunkDelay` between them.
        var chunkSize: Int?
        var chunkDelay: Duration = .zero
    }

    let port: Int
    private let listener: Int32
    private let state = Mutex(State())

    private struct State {
        var accepted = 0
        var open: Set<Int32> = []
        /// Connections waiting for their next request.
        var idle: Set<Int32> = []
        var maximumOpen = 0
        var requests = 0
        /// The `Host` fields received.
        var hosts: [String] = []
    }

    init(reply: @escaping @Sendable (String) -> Reply) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        guard listen(fd, 256) == 0 else { throw TestSetupError("listen failed") }
        port = Int(UInt16(bigEndian: address.sin_port))
        listener = fd
        let listener = fd
        Thread.detachNewThread { [self] in
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { return }
                state.withLock {
                    $0.accepted += 1
                    $0.open.insert(client)
                    $0.maximumOpen = max($0.maximumOpen, $0.open.count)
                }
                Thread.detachNewThread { [self] in serve(client, reply: reply) }
            }
        }
    }

    var accepted: Int { state.withLock { $0.accepted } }
    var openConnections: Int { state.withLock { $0.open.count } }
    var maximumOpen: Int { state.withLock { $0.maximumOpen } }
    var requests: Int { state.withLock { $0.requests } }
    var hosts: [String] { state.withLock { $0.hosts } }

    /// Closes every connection that waits for its next request, as a server's keep-alive timeout does.
    func closeIdleConnections() {
        state.withLock { state in
            for fd in state.idle { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        state.withLock { state in
            for fd in state.open { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    private func serve(_ fd: Int32, reply: @Sendable (String) -> Reply) {
        defer {
            state.withLock {
                $0.open.remove(fd)
                $0.idle.remove(fd)
            }
            close(fd)
        }
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            state.withLock { _ = $0.idle.insert(fd) }
            // The head.
            var headEnd: Int?
            while headEnd == nil {
                if let end = Self.find(pending, [13, 10, 13, 10]) { headEnd = end; break }
                let count = recv(fd, &buffer, buffer.count, 0)
                if count <= 0 { return }
                pending += buffer[0..<count]
            }
            state.withLock { _ = $0.idle.remove(fd) }
            let head = String(decoding: pending[0..<headEnd!], as: UTF8.self)
            pending.removeFirst(headEnd! + 4)
            let lines = head.split(separator: "\r\n")
            let target = lines.first.map { $0.split(separator: " ").dropFirst().first.map(String.init) ?? "/" } ?? "/"
            var bodyLength = 0
            for line in lines.dropFirst() {
                let parts = line.split(separator: ":", maxSplits: 1)
                guard parts.count == 2 else { continue }
                let name = parts[0].lowercased(), value = parts[1].trimmingCharacters(in: .whitespaces)
                if name == "content-length" { bodyLength = Int(value) ?? 0 }
                if name == "host" { state.withLock { $0.hosts.append(value) } }
            }
            // The body (declared length only; the pool's tests send no chunked bodies).
            while pending.count < bodyLength {
                let count = recv(fd, &buffer, buffer.count, 0)
                if count <= 0 { return }
                pending += buffer[0..<count]
            }
            pending.removeFirst(bodyLength)
            state.withLock { $0.requests += 1 }
            let answer = reply(target)
            if answer.delay > .zero { Thread.sleep(forTimeInterval: Double(answer.delay.components.seconds) + Double(answer.delay.components.attoseconds) / 1e18) }
            var text = "HTTP/1.1 \(answer.status)\r\n"
            for (name, value) in answer.headers { text += "\(name): \(value)\r\n" }
            if answer.close { text += "Connection: close\r\n" }
            if let chunkSize = answer.chunkSize {
                text += "Transfer-Encoding: chunked\r\n\r\n"
                guard send(fd, text) else { return }
                var rest = Substring(answer.body)
                while !rest.isEmpty {
                    let piece = rest.prefix(chunkSize)
                    rest = rest.dropFirst(piece.count)
                    guard send(fd, String(piece.utf8.count, radix: 16) + "\r\n" + piece + "\r\n") else { return }
                    if answer.chunkDelay > .zero { Thread.sleep(forTimeInterval: Double(answer.chunkDelay.components.attoseconds) / 1e18 + Double(answer.chunkDelay.components.seconds)) }
                }
                guard send(fd, "0\r\n\r\n") else { return }
            } else {
                text += "Content-Length: \(answer.body.utf8.count)\r\n\r\n"
                if let cut = answer.cutAfter {
                    _ = send(fd, text + String(answer.body.prefix(cut)))
                    return
                }
                guard send(fd, text + answer.body) else { return }
            }
            if answer.close { return }
        }
    }

    private func send(_ fd: Int32, _ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count <= 0 { return false }
            sent += count
        }
        return true
    }

    private static func find(_ haystack: [UInt8], _ needle: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for index in 0...(haystack.count - needle.count) where haystack[index..<(index + needle.count)].elementsEqual(needle) {
            return index
        }
        return nil
    }
}
