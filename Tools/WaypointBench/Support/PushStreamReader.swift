import AsyncHTTPClient
import Foundation
import NIOCore
import Synchronization

/// A client of the gateway's push stream (`GET /v1/notifications/stream`, Server-Sent Events; docs/notifications.md):
/// reads the stream in a task of its own and notes when each notification arrived, so a caller can ask afterwards when
/// the one it expects came (it may arrive before the answer to the request that caused it).
final class PushStreamReader: Sendable {
    /// One notification as it arrived.
    struct Arrival: Sendable {
        var at: ContinuousClock.Instant
        var kind: String
        /// The notification's `data` map (ids and figures).
        var data: [String: String]
    }

    private let arrivals = Mutex<[Arrival]>([])
    private let task = Mutex<Task<Void, Never>?>(nil)
    private let opened = Mutex<Bool>(false)
    private let failure = Mutex<String?>(nil)

    /// Opens the stream of `token`'s user at `base` (the gateway) and reads it until ``close()``.
    init(client: HTTPClient, base: String, token: String) {
        let reader = self
        let task = Task {
            do {
                var request = HTTPClientRequest(url: base + "/v1/notifications/stream")
                request.headers.add(name: "Authorization", value: "Bearer \(token)")
                request.headers.add(name: "Accept", value: "text/event-stream")
                let response = try await client.execute(request, timeout: .hours(2))
                guard response.status == .ok else {
                    reader.failure.withLock { $0 = "stream answered \(response.status.code)" }
                    return
                }
                reader.opened.withLock { $0 = true }
                var pending = ""
                for try await buffer in response.body {
                    let at = ContinuousClock.now
                    pending += String(buffer: buffer)
                    while let end = pending.range(of: "\n\n") {
                        let message = String(pending[..<end.lowerBound])
                        pending.removeSubrange(..<end.upperBound)
                        if let arrival = Self.parse(message, at: at) { reader.arrivals.withLock { $0.append(arrival) } }
                    }
                }
            } catch {
                if !Task.isCancelled { reader.failure.withLock { $0 = "\(error)" } }
            }
        }
        self.task.withLock { $0 = task }
    }

    /// Whether the stream answered 200 and is being read.
    var isOpen: Bool { opened.withLock { $0 } }

    /// Why the stream ended, if it failed.
    var failed: String? { failure.withLock { $0 } }

    /// The first arrival `matches` accepts, waiting up to `timeout` for it; `nil` when none came.
    func arrival(timeout: Duration, where matches: (Arrival) -> Bool) async throws -> Arrival? {
        let clock = ContinuousClock(), deadline = clock.now + timeout
        while true {
            if let found = arrivals.withLock({ $0.first(where: matches) }) { return found }
            if clock.now >= deadline || failed != nil { return nil }
            try await Task.sleep(for: .microseconds(500))
        }
    }

    /// Waits until the stream is open (at most `timeout`).
    func waitUntilOpen(timeout: Duration) async throws {
        let clock = ContinuousClock(), deadline = clock.now + timeout
        while !isOpen {
            if let failed { throw BenchError("push stream: \(failed)") }
            guard clock.now < deadline else { throw BenchError("push stream did not open within \(timeout)") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    func close() {
        task.withLock { $0?.cancel() }
    }

    /// One SSE message (`id:`, `event:`, `data:` lines) as an arrival; comments and `retry:` give `nil`.
    static func parse(_ message: String, at: ContinuousClock.Instant) -> Arrival? {
        var kind = "", data = ""
        for line in message.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("event:") { kind = line.dropFirst(6).trimmingCharacters(in: .whitespaces) }
            if line.hasPrefix("data:") { data += line.dropFirst(5).trimmingCharacters(in: .whitespaces) }
        }
        guard !data.isEmpty, let object = try? JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any] else { return nil }
        let fields = (object["data"] as? [String: Any] ?? [:]).compactMapValues { $0 as? String }
        return Arrival(at: at, kind: kind.isEmpty ? (object["kind"] as? String ?? "") : kind, data: fields)
    }
}
