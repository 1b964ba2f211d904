import Contracts
import EventSourcing
import Foundation
import HTTPTypes
import Hummingbird
import Messaging
import NIOCore
import Synchronization

/// A stand-in for tour-management's catalogue: a log of published-language events, a read model that applies them
/// (at once, or when told: a trailing read model), answers tagged the way tour-management tags them (`Cache-Tag`,
/// `Waypoint-Position`), a publish route, and the embedded feed (`/v1/internal/events`, long polls included).
final class CatalogueStandIn: Sendable {
    static let source = "tour-management"

    private struct State {
        var log: [PublishedEvent] = []
        /// Tours listed by the read model, in publication order, and the position it has applied.
        var listed: [String] = []
        var applied: Int64 = 0
        var feedAvailable = true
        var listRequests = 0
    }

    private let state = Mutex(State())

    /// Where the log ends.
    var head: Int64 { state.withLock { Int64($0.log.count) } }
    /// Requests of `GET /v1/tours` that reached the stand-in.
    var listRequests: Int { state.withLock { $0.listRequests } }

    /// Whether the feed answers (else 503).
    func setFeedAvailable(_ available: Bool) { state.withLock { $0.feedAvailable = available } }

    /// Appends an event of `eventType` about `tourId` (a `TourPublished` with a whole revision, else `{"tourId"}`);
    /// the read model applies it unless `trailing`. Returns its position.
    @discardableResult
    func append(_ eventType: String, tourId: UUID, trailing: Bool = false) throws -> Int64 {
        let payload: Data
        if eventType == TourPublished.eventType {
            let details = TourDetails(title: "Tour \(tourId)", description: "", destinationId: 2_993_458, themes: [.history], languages: ["en"],
                                      price: Money(amountMinor: 0, currency: CurrencyCode("EUR")!), estimatedMinutes: 60,
                                      difficulty: .easy, mode: .walk)
            payload = try EventJSON.encode(TourPublished(tourId: tourId, guideId: .v4(), revision: 1, details: details, stops: [],
                                                         lengthMetres: 0, publishedAt: Date()))
        } else {
            payload = Data(#"{"tourId":"\#(tourId.uuidString.lowercased())"}"#.utf8)
        }
        return state.withLock { state in
            let position = Int64(state.log.count + 1)
            let envelope = EventEnvelope(eventID: .v4(), streamID: "tour-\(tourId.uuidString.lowercased())", streamVersion: 1, position: position,
                                         eventType: eventType, schemaVersion: 1, payload: payload, metadata: EventMetadata(), recordedAt: Date())
            state.log.append(PublishedEvent(envelope, source: Self.source))
            if !trailing { Self.apply(&state) }
            return position
        }
    }

    /// The read model applies everything in the log.
    func catchUp() { state.withLock { state in Self.apply(&state) } }

    /// The events after `position`, for a test that publishes them elsewhere (Kafka).
    func events(after position: Int64) -> [PublishedEvent] { state.withLock { Array($0.log.dropFirst(Int(position))) } }

    private static func apply(_ state: inout State) {
        for event in state.log.dropFirst(Int(state.applied)) {
            guard let tour = try? EventJSON.decode(TourReference.self, from: event.payload) else { continue }
            let id = tour.tourId.uuidString.lowercased()
            switch event.eventType {
            case TourPublished.eventType where !state.listed.contains(id): state.listed.append(id)
            case TourUnpublished.eventType: state.listed.removeAll { $0 == id }
            default: break
            }
        }
        state.applied = Int64(state.log.count)
    }

    private struct TourReference: Decodable { var tourId: UUID }

    /// The stand-in's routes.
    var standIn: StandIn {
        StandIn { [self] in
            let router = Router()
            router.get("/v1/tours") { _, _ in
                let (tours, position) = self.state.withLock { state in
                    state.listRequests += 1
                    return (state.listed, state.applied)
                }
                return Self.json(#"{"tours":[\#(tours.map { "\"\($0)\"" }.joined(separator: ","))]}"#,
                                 tag: CatalogueCacheTags.tours, position: position)
            }
            router.get("/v1/tours/:id") { _, context in
                let id = try context.parameters.require("id")
                let (listed, position) = self.state.withLock { ($0.listed.contains(id), $0.applied) }
                return Self.json(#"{"id":"\#(id)","listed":\#(listed)}"#, tag: CatalogueCacheTags.tour(UUID(uuidString: id)!), position: position)
            }
            router.post("/v1/tours/:id/publish") { _, context in
                let id = UUID(uuidString: try context.parameters.require("id"))!
                let position = try self.append(TourPublished.eventType, tourId: id)
                var headers = HTTPFields()
                headers[.contentType] = "application/json"
                headers[HTTPField.Name(CatalogueCacheTags.positionField)!] = String(position)
                return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: "{}")))
            }
            router.get("/v1/internal/events") { request, _ -> Response in
                let after = request.uri.queryParameters.get("after").flatMap { Int64($0) } ?? 0
                let limit = request.uri.queryParameters.get("limit").flatMap { Int($0) } ?? 500
                let wait = request.uri.queryParameters.get("wait").flatMap { Double($0) } ?? 0
                let deadline = ContinuousClock.now + .milliseconds(Int64(wait * 1000))
                while true {
                    let (available, events, head) = self.state.withLock { state in
                        (state.feedAvailable, Array(state.log.dropFirst(Int(min(after, Int64(state.log.count)))).prefix(limit)), Int64(state.log.count))
                    }
                    guard available else { return Response(status: .serviceUnavailable) }
                    if !events.isEmpty || ContinuousClock.now >= deadline {
                        let page = EventFeedPage(source: Self.source, events: events, head: head)
                        return Response(status: .ok, headers: [.contentType: "application/json"],
                                        body: .init(byteBuffer: ByteBuffer(data: try EventJSON.encode(page))))
                    }
                    try await Task.sleep(for: .milliseconds(10))
                }
            }
            return router
        }
    }

    static func json(_ body: String, tag: String, position: Int64) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[HTTPField.Name(CatalogueCacheTags.tagField)!] = tag
        headers[HTTPField.Name(CatalogueCacheTags.positionField)!] = String(position)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}
