import EventSourcing
import Foundation
import Hummingbird
import ServiceKit

/// The embedded transport's producer side: serves the service's own log at `GET /v1/internal/events`.
///
/// Query: `after` (position, default 0), `limit` (1…1000, default 500), `wait` (long-poll seconds, 0…30, default 0).
/// The route must sit behind the internal-token guard; the caller adds it under the guarded `/v1/internal` group.
public struct EventFeedController<Store: EventStore>: Sendable {
    /// The service's event store.
    public let store: Store
    /// The service's name, stamped on every event as `source`.
    public let source: String
    /// Which events of the log are served (default: all).
    public let include: @Sendable (EventEnvelope) -> Bool

    /// Creates the controller.
    ///
    /// - Parameter include: which events are served. Skipped events are read past: a page holds the next served events
    ///   after `after` (reading on through at most 10,000 skipped ones), a long poll waits for appends after the last
    ///   position read, not after `after`, and the page says how far it read (`scanned`: the consumer's
    ///   ``FeedCursor`` asks after it next, so skipped events are not read again).
    public init(store: Store, source: String, include: @escaping @Sendable (EventEnvelope) -> Bool = { _ in true }) {
        self.store = store
        self.source = source
        self.include = include
    }

    /// Adds `GET events` to `group` (mount it at `/v1/internal`).
    public func addRoutes<Context: RequestContext>(to group: RouterGroup<Context>) {
        group.get("events") { request, _ -> Response in
            try await page(request)
        }
    }

    func page(_ request: Request) async throws -> Response {
        let query = request.uri.queryParameters
        let after = try parameter(query, "after", default: 0, range: 0...Int64.max)
        let limit = Int(try parameter(query, "limit", default: 500, range: 1...1_000))
        let waitSeconds = try Double(query.get("wait") ?? "0").flatMap { (0...30).contains($0) ? $0 : nil }
            .orThrow(Problem.unprocessable(fieldErrors: [FieldError(field: "wait", code: "out-of-range", message: "wait is 0…30 seconds")]))
        var (events, scanned) = try await read(after: after, limit: limit)
        if events.isEmpty, waitSeconds > 0 {
            await store.waitForAppends(after: scanned, timeout: .milliseconds(Int64(waitSeconds * 1000)))
            (events, scanned) = try await read(after: scanned, limit: limit)
        }
        let head = max(try await store.headPosition(), events.last?.position ?? 0)
        let page = EventFeedPage(source: source, events: events.map { PublishedEvent($0, source: source) }, head: head, scanned: scanned)
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(data: try EventJSON.encode(page))))
    }

    /// Up to `limit` served events after `after`, and the last position read.
    private func read(after: Int64, limit: Int) async throws -> ([EventEnvelope], Int64) {
        var served: [EventEnvelope] = []
        var position = after
        var skipped = 0
        while served.count < limit, skipped < 10_000 {
            let page = try await store.readAll(after: position, limit: limit)
            guard let last = page.last else { break }
            position = last.position
            for event in page {
                if include(event) {
                    served.append(event)
                    if served.count == limit {
                        position = event.position
                        break
                    }
                } else {
                    skipped += 1
                }
            }
        }
        return (served, position)
    }

    private func parameter(_ query: Parameters, _ name: String, default value: Int64, range: ClosedRange<Int64>) throws -> Int64 {
        guard let raw = query.get(name) else { return value }
        guard let parsed = Int64(raw), range.contains(parsed) else {
            throw Problem.unprocessable(fieldErrors: [
                FieldError(field: name, code: "out-of-range", message: "\(name) must be an integer in \(range.lowerBound)…\(range.upperBound)"),
            ])
        }
        return parsed
    }
}

extension Optional {
    fileprivate func orThrow(_ error: @autoclosure () -> any Error) throws -> Wrapped {
        guard let self else { throw error() }
        return self
    }
}
