import Contracts
import EventSourcing
import Foundation
import Hummingbird
import ServiceKit

/// A tour as its guide sees it: the working copy, with the state of publication.
struct GuideTourResponse: ResponseEncodable {
    struct Price: Codable, Sendable {
        var amountMinor: Int64
        var currency: String
    }

    var id: String
    var guideId: String
    var status: TourStatus
    var revision: Int
    /// Stream version: send it back as `If-Match` to make an edit conditional.
    var version: Int64
    var hasUnpublishedChanges: Bool
    var title: String
    var description: String
    var destinationId: Int64
    var themes: [TourTheme]
    var languages: [String]
    var price: Price
    var estimatedMinutes: Int
    var difficulty: TourDifficulty
    var mode: TourMode
    var stops: [TourStop]
    var lengthMetres: Int
    var lastChangedAt: Date?
    var publishedAt: Date?

    init?(_ state: TourState, version: Int64) {
        guard let id = state.tourId, let guide = state.guideId, let details = state.details else { return nil }
        self.id = id.uuidString.lowercased()
        guideId = guide.uuidString.lowercased()
        status = state.status
        revision = state.revision
        self.version = version
        hasUnpublishedChanges = state.hasUnpublishedChanges
        title = details.title
        description = details.description
        destinationId = details.destinationId
        themes = details.themes
        languages = details.languages
        price = Price(amountMinor: details.price.amountMinor, currency: details.price.currency.code)
        estimatedMinutes = details.estimatedMinutes
        difficulty = details.difficulty
        mode = details.mode
        stops = state.stops
        lengthMetres = Int(TourAggregate.lengthMetres(state.stops).rounded())
        lastChangedAt = state.lastChangedAt
        publishedAt = state.publishedAt
    }
}

/// `GET /v1/guides/me/tours`: the guide's tours from the `guide_tours` read model (it trails a command by the
/// projection's poll interval, 100 ms by default).
struct GuideTourListResponse: ResponseEncodable {
    var tours: [GuideTourRow]
}

/// Authoring commands over the log: load the tour, check `If-Match`, decide, append at the loaded version — a
/// concurrent edit is a 409, never a lost update.
public struct TourAuthoring: Sendable {
    let repository: AggregateRepository<TourAggregate, AnyEventStore>
    let destinations: DestinationIndex
    let media: MediaStore
    public let now: @Sendable () -> Date

    public init(store: AnyEventStore, destinations: DestinationIndex, media: MediaStore, now: @escaping @Sendable () -> Date = Date.init) {
        repository = AggregateRepository(store: store)
        self.destinations = destinations
        self.media = media
        self.now = now
    }

    /// The uploads named by `addresses`, as stop media; 422 for any that was never uploaded.
    func resolveMedia(_ addresses: [String], field: String) async throws -> [StopMedia] {
        var resolved: [StopMedia] = []
        var errors: [FieldError] = []
        for (index, address) in addresses.enumerated() {
            if let object = try await media.object(sha256: address.lowercased()) {
                resolved.append(StopMedia(sha256: object.sha256, kind: object.kind.rawValue, contentType: object.contentType, size: Int64(object.size)))
            } else {
                errors.append(FieldError(field: "\(field)[\(index)]", code: "unknown-media", message: "was not uploaded (POST /v1/media)"))
            }
        }
        guard errors.isEmpty else { throw Problem.unprocessable(fieldErrors: errors) }
        return resolved
    }

    /// Runs `command` on `tourId`; `ifMatch` is the version the caller last saw, when it sent one.
    public func execute(_ command: TourCommand, on tourId: UUID, ifMatch: Int64?, metadata: EventMetadata) async throws -> (TourState, Int64) {
        let stream = TourAggregate.streamID(tourId)
        do {
            let loaded = try await repository.load(stream)
            if let ifMatch, ifMatch != loaded.version {
                throw Problem(status: .preconditionFailed, code: "version-mismatch", title: "Version mismatch",
                              detail: "The tour is at version \(loaded.version), not \(ifMatch); reload it and retry.")
            }
            let events = try TourAggregate.decide(command, loaded.state)
            guard !events.isEmpty else { return (loaded.state, loaded.version) }
            let result = try await repository.store.append(
                try events.map { try TourAggregate.payload(of: $0).newEvent(metadata: metadata) }, to: stream,
                expectedVersion: loaded.version == 0 ? .noStream : .exact(loaded.version))
            // Uploads a tour uses are no longer garbage (the flag is set after the event is durable).
            let attached = events.flatMap { event -> [String] in
                switch event {
                case .stopAdded(let e): e.stop.media.map(\.sha256)
                case .stopChanged(let e): e.stop.media.map(\.sha256)
                case .mediaAttached(let e): [e.media.sha256]
                default: []
                }
            }
            if !attached.isEmpty { try await media.catalog.markReferenced(attached) }
            return (events.reduce(loaded.state, TourAggregate.apply), result.streamVersion)
        } catch let error as TourError {
            throw error.problem
        } catch EventStoreError.wrongExpectedVersion {
            throw Problem.conflict("The tour was changed at the same time; reload it and retry.", code: "version-conflict")
        }
    }

    func load(_ tourId: UUID) async throws -> (TourState, Int64) {
        let loaded = try await repository.load(TourAggregate.streamID(tourId))
        return (loaded.state, loaded.version)
    }
}

/// `/v1/tours` authoring (guides) and `/v1/guides/me/tours/{id}` (the guide's working copy).
public struct TourAuthoringRoutes: Sendable {
    public let authoring: TourAuthoring
    public let guideTours: GuideTours

    public init(authoring: TourAuthoring, guideTours: GuideTours) {
        self.authoring = authoring
        self.guideTours = guideTours
    }

    public func add(to routes: ServiceRoutes) {
        let authoring = authoring
        let tours = routes.authenticated("/v1/tours", requiring: .guide)

        @Sendable func respond(_ result: (TourState, Int64), status: HTTPResponse.Status = .ok) throws -> EditedResponse<GuideTourResponse> {
            guard let body = GuideTourResponse(result.0, version: result.1) else { throw Problem.notFound("no such tour", code: "unknown-tour") }
            var headers = HTTPFields()
            headers[.eTag] = "\"\(result.1)\""
            if status == .created { headers[.location] = "/v1/guides/me/tours/\(body.id)" }
            return EditedResponse(status: status, headers: headers, response: body)
        }
        @Sendable func run(_ request: Request, _ context: ServiceRequestContext, _ make: (UUID, Date) throws -> TourCommand)
            async throws -> EditedResponse<GuideTourResponse> {
            let identity = try context.requireIdentity()
            guard let actor = UUID(uuidString: identity.subject) else { throw Problem.forbidden("unknown caller") }
            let tourId = try Self.tourId(context)
            let command = try make(actor, authoring.now())
            return try respond(try await authoring.execute(command, on: tourId, ifMatch: try Self.ifMatch(request),
                                                           metadata: EventMetadata(actorID: identity.subject, traceparent: context.traceparent)))
        }

        tours.post { request, context -> EditedResponse<GuideTourResponse> in
            let identity = try context.requireIdentity()
            guard let guide = UUID(uuidString: identity.subject) else { throw Problem.forbidden("unknown caller") }
            let body = try await request.decode(as: TourDetailsRequest.self, context: context)
            try Self.checkDestination(body.destinationId, authoring.destinations)
            let tourId = UUID.v4()
            return try respond(try await authoring.execute(
                .draft(tourId: tourId, guideId: guide, details: body.details, at: authoring.now()), on: tourId, ifMatch: nil,
                metadata: EventMetadata(actorID: identity.subject, traceparent: context.traceparent)), status: .created)
        }
        tours.put(":id/details") { request, context in
            let body = try await request.decode(as: TourDetailsRequest.self, context: context)
            try Self.checkDestination(body.destinationId, authoring.destinations)
            return try await run(request, context) { .changeDetails(actor: $0, details: body.details, at: $1) }
        }
        tours.post(":id/stops") { request, context -> EditedResponse<GuideTourResponse> in
            let body = try await request.decode(as: StopRequest.self, context: context)
            let stop = Self.stop(body, id: .v4(), media: try await authoring.resolveMedia(body.media ?? [], field: "media"))
            var response = try await run(request, context) { .addStop(actor: $0, stop: stop, position: body.position, at: $1) }
            response.status = .created
            return response
        }
        tours.put(":id/stops/order") { request, context in
            let body = try await request.decode(as: StopOrderRequest.self, context: context)
            return try await run(request, context) { .reorderStops(actor: $0, stopIds: body.stopIds, at: $1) }
        }
        tours.put(":id/stops/:stopId") { request, context in
            let body = try await request.decode(as: StopRequest.self, context: context)
            let stopId = try Self.stopId(context)
            let media = try await authoring.resolveMedia(body.media ?? [], field: "media")
            return try await run(request, context) { .changeStop(actor: $0, stop: Self.stop(body, id: stopId, media: media), at: $1) }
        }
        tours.post(":id/stops/:stopId/media") { request, context in
            let body = try await request.decode(as: AttachMediaRequest.self, context: context)
            let stopId = try Self.stopId(context)
            let media = try await authoring.resolveMedia([body.sha256], field: "sha256")
            return try await run(request, context) { .attachMedia(actor: $0, stopId: stopId, media: media[0], at: $1) }
        }
        tours.delete(":id/stops/:stopId") { request, context in
            let stopId = try Self.stopId(context)
            return try await run(request, context) { .removeStop(actor: $0, stopId: stopId, at: $1) }
        }
        tours.post(":id/publish") { request, context in
            try await run(request, context) { .publish(actor: $0, at: $1) }
        }
        tours.post(":id/unpublish") { request, context in
            try await run(request, context) { .unpublish(actor: $0, at: $1) }
        }
        tours.delete(":id") { request, context -> HTTPResponse.Status in
            _ = try await run(request, context) { .deleteDraft(actor: $0, at: $1) }
            return .noContent
        }

        let guideTours = guideTours
        routes.authenticated("/v1/guides/me/tours", requiring: .guide).get { _, context -> GuideTourListResponse in
            let identity = try context.requireIdentity()
            guard let guide = UUID(uuidString: identity.subject) else { throw Problem.forbidden("unknown caller") }
            return GuideTourListResponse(tours: try await guideTours.tours(ofGuide: guide))
        }
        routes.authenticated("/v1/guides/me/tours", requiring: .guide).get(":id") { _, context -> EditedResponse<GuideTourResponse> in
            let identity = try context.requireIdentity()
            let (state, version) = try await authoring.load(try Self.tourId(context))
            guard state.exists, state.status != .deleted, state.status != .expired else { throw Problem.notFound("no such tour", code: "unknown-tour") }
            guard state.guideId?.uuidString.lowercased() == identity.subject.lowercased() else { throw TourError.notOwner.problem }
            return try respond((state, version))
        }
    }

    static func stop(_ body: StopRequest, id: UUID, media: [StopMedia]) -> TourStop {
        TourStop(stopId: id, name: body.name.trimmingCharacters(in: .whitespacesAndNewlines), description: body.description ?? "",
                 location: body.location, triggerRadiusMetres: body.triggerRadiusMetres ?? 30, media: media)
    }

    static func checkDestination(_ id: Int64, _ index: DestinationIndex) throws {
        guard index.city(id: id) != nil else {
            throw Problem.unprocessable(fieldErrors: [FieldError(field: "destinationId", code: "unknown-destination",
                                                                 message: "is not a destination (see GET /v1/destinations)")])
        }
    }

    static func tourId(_ context: ServiceRequestContext) throws -> UUID {
        guard let id = UUID(uuidString: try context.parameters.require("id")) else { throw Problem.notFound("no such tour", code: "unknown-tour") }
        return id
    }

    static func stopId(_ context: ServiceRequestContext) throws -> UUID {
        guard let id = UUID(uuidString: try context.parameters.require("stopId")) else {
            throw Problem.notFound("no such stop", code: "unknown-stop")
        }
        return id
    }

    /// `If-Match: "7"` (or `7`): the version the caller's edit is based on.
    static func ifMatch(_ request: Request) throws -> Int64? {
        guard let raw = request.headers[.ifMatch] else { return nil }
        guard let version = Int64(raw.trimmingCharacters(in: CharacterSet(charactersIn: "\" W/"))) else {
            throw Problem.badRequest("If-Match must be a version previously returned in ETag", code: "bad-if-match")
        }
        return version
    }
}
