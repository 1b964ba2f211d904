import EventSourcing
import Foundation
import Hummingbird
import ServiceKit

/// The embedded transport's producer side: serves the service's own log at `GET /v1/internal/events`.
///
/// Query: `after` (position, default 0), `limit` (1…1000, default 500), `wait` (long-poll seconds, 0…30, default 0),
/// `types` (optional: a comma-separated list of event types, at most 64; only those are served — a consumer names what
/// it applies, so the events it would ignore are neither encoded, sent nor decoded, and do not end its long poll).
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
    ///   ``FeedCursor`` asks after it next, so skipped events are not read again). Events of types the request did not
    ///   ask for are skipped the same way; a long poll goes on waiting (until `wait` is over) while only skipped events
    ///   are appended.
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
        let types = try Self.eventTypes(query.get("types"))
        var (events, scanned) = try await read(after: after, limit: limit, types: types)
        if events.isEmpty, waitSeconds > 0 {
            let clock = ContinuousClock()
            let deadline = clock.now + .milliseconds(Int64(waitSeconds * 1000))
            // Appends of skipped events only (another consumer's types, internal events) wake the wait without
            // ending it: read past them and wait on for the rest of the time asked.
            while events.isEmpty, clock.now < deadline, !Task.isCancelled {
                if let types {
                    await store.waitForAppends(after: scanned, types: types, timeout: clock.now.duration(to: deadline))
                } else {
                    await store.waitForAppends(after: scanned, timeout: clock.now.duration(to: deadline))
                }
                (events, scanned) = try await read(after: scanned, limit: limit, types: types)
            }
        }
        let head = max(try await store.headPosition(), events.last?.position ?? 0)
        let page = EventFeedPage(source: source, events: events.map { PublishedEvent($0, source: source) }, head: head, scanned: scanned)
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(data: try EventJSON.encode(page))))
    }

    /// Up to `limit` served events after `after`, and the last position read. With `types` the store reads only
    /// those (``EventStore/readAll(after:limit:types:)``: the events passed over are not even copied); without, every
    /// event is read and the feed's own rule decides. Either way at most ``TypedPage/scanLimit`` events are passed over.
    private func read(after: Int64, limit: Int, types: Set<String>?) async throws -> ([EventEnvelope], Int64) {
        if let types {
            let page = try await store.readAll(after: after, limit: limit, types: types)
            return (page.events.filter(include), page.scanned)
        }
        let page = try await store.readAll(after: after, limit: limit, where: include)
        return (page.events, page.scanned)
    }

    /// The most types one request may name.
    public static var maxTypes: Int { 64 }

    /// `types`: `nil` when absent (every event the feed serves); otherwise the named types, each 1…128 characters of
    /// letters, digits, `.`, `_` and `-` (empty: none — the page only says how far it read).
    static func eventTypes(_ raw: String?) throws -> Set<String>? {
        guard let raw else { return nil }
        if raw.isEmpty { return [] }
        let names = raw.split(separator: ",", omittingEmptySubsequences: false)
        let valid = names.count <= maxTypes && names.allSatisfy { name in
            (1...128).contains(name.utf8.count) && name.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == 0x2E || byte == 0x5F || byte == 0x2D
            }
        }
        guard valid else {
            throw Problem.unprocessable(fieldErrors: [
                FieldError(field: "types", code: "invalid",
                           message: "types is a comma-separated list of at most \(maxTypes) event types (letters, digits, '.', '_', '-')"),
            ])
        }
        return Set(names.map(String.init))
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
