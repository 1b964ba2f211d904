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


/// `/v1/tours` authoring (guides) and `/v1/guides/me/tours/{id}` (the guide's working copy).
///
/// Every edit answers the tour as the guide sees it with its version as `ETag`; `If-Match` makes an edit conditional.
public struct TourAuthoringRoutes: Sendable {
    public let authoring: TourAuthoring
    public let guideTours: GuideTours

    public init(authoring: TourAuthoring, guideTours: GuideTours) {
        self.authoring = authoring
        self.guideTours = guideTours
    }

    /// Mounts the authoring routes and the guide's own tours on `routes`, for guides only.
    public func addRoutes(to routes: ServiceRoutes) {
        let tours = routes.authenticated("/v1/tours", requiring: .guide)
        tours.post(use: draft)
        tours.put(":id/details", use: changeDetails)
        tours.post(":id/stops", use: addStop)
        tours.put(":id/stops/order", use: reorderStops)
        tours.put(":id/stops/:stopId", use: changeStop)
        tours.post(":id/stops/:stopId/media", use: attachMedia)
        tours.delete(":id/stops/:stopId", use: removeStop)
        tours.post(":id/publish", use: publish)
        tours.post(":id/unpublish", use: unpublish)
        tours.delete(":id", use: deleteDraft)

        let mine = routes.authenticated("/v1/guides/me/tours", requiring: .guide)
        mine.get(use: listOwnTours)
        mine.get(":id", use: showOwnTour)
    }

    /// `POST /v1/tours`: 201 with the new draft and its `Location`.
    @Sendable func draft(_ request: Request, context: ServiceRequestContext) async throws -> EditedResponse<GuideTourResponse> {
        let guide = try context.requireCallerID()
        let body = try await request.decode(as: TourDetailsRequest.self, context: context)
        try Self.checkDestination(body.destinationId, authoring.destinations)
        let tourId = UUID.v4()
        return try Self.respond(try await authoring.execute(
            .draft(tourId: tourId, guideId: guide, details: body.details, at: authoring.now()), on: tourId, ifMatch: nil,
            metadata: EventMetadata(actorID: try context.requireIdentity().subject, traceparent: context.traceparent)), status: .created)
    }

    /// `PUT /v1/tours/{id}/details`.
    @Sendable func changeDetails(_ request: Request, context: ServiceRequestContext) async throws -> EditedResponse<GuideTourResponse> {
        let body = try await request.decode(as: TourDetailsRequest.self, context: context)
        try Self.checkDestination(body.destinationId, authoring.destinations)
        return try await run(request, context) { .changeDetails(actor: $0, details: body.details, at: $1) }
    }

    /// `POST /v1/tours/{id}/stops`: 201; the stop's media must have been uploaded.
    @Sendable func addStop(_ request: Request, context: ServiceRequestContext) async throws -> EditedResponse<GuideTourResponse> {
        let body = try await request.decode(as: StopRequest.self, context: context)
        let stop = Self.stop(body, id: .v4(), media: try await authoring.resolveMedia(body.media ?? [], field: "media"))
        var response = try await run(request, context) { .addStop(actor: $0, stop: stop, position: body.position, at: $1) }
        response.status = .created
        return response
    }

    /// `PUT /v1/tours/{id}/stops/order`.
    @Sendable func reorderStops(_ request: Request, context: ServiceRequestContext) async throws -> EditedResponse<GuideTourResponse> {
        let body = try await request.decode(as: StopOrderRequest.self, context: context)
        return try await run(request, context) { .reorderStops(actor: $0, stopIds: body.stopIds, at: $1) }
    }

    /// `PUT /v1/tours/{id}/stops/{stopId}`.
    @Sendable func changeStop(_ request: Request, context: ServiceRequestContext) async throws -> EditedResponse<GuideTourResponse> {
        let body = try await request.decode(as: StopRequest.self, context: context)
        let stopId = try Self.stopId(context)
        let media = try await authoring.resolveMedia(body.media ?? [], field: "media")
        return try await run(request, context) { .changeStop(actor: $0, stop: Self.stop(body, id: stopId, media: media), at: $1) }
    }

    /// `POST /v1/tours/{id}/stops/{stopId}/media`.
    @Sendable func attachMedia(_ request: Request, context: ServiceRequestContext) async throws -> EditedResponse<GuideTourResponse> {
        let body = try await request.decode(as: AttachMediaRequest.self, context: context)
        let stopId = try Self.stopId(context)
        let media = try await authoring.resolveMedia([body.sha256], field: "sha256")
        return try await run(request, context) { .attachMedia(actor: $0, stopId: stopId, media: media[0], at: $1) }
    }

    /// `DELETE /v1/tours/{id}/stops/{stopId}`.
    @Sendable func removeStop(_ request: Request, context: ServiceRequestContext) async throws -> EditedResponse<GuideTourResponse> {
        let stopId = try Self.stopId(context)
        return try await run(request, context) { .removeStop(actor: $0, stopId: stopId, at: $1) }
    }

    /// `POST /v1/tours/{id}/publish`.
    @Sendable func publish(_ request: Request, context: ServiceRequestContext) async throws -> EditedResponse<GuideTourResponse> {
        try await run(request, context) { .publish(actor: $0, at: $1) }
    }

    /// `POST /v1/tours/{id}/unpublish`.
    @Sendable func unpublish(_ request: Request, context: ServiceRequestContext) async throws -> EditedResponse<GuideTourResponse> {
        try await run(request, context) { .unpublish(actor: $0, at: $1) }
    }

    /// `DELETE /v1/tours/{id}`: 204; only a draft that was never published.
    @Sendable func deleteDraft(_ request: Request, context: ServiceRequestContext) async throws -> HTTPResponse.Status {
        _ = try await run(request, context) { .deleteDraft(actor: $0, at: $1) }
        return .noContent
    }

    /// `GET /v1/guides/me/tours`.
    @Sendable func listOwnTours(_ request: Request, context: ServiceRequestContext) async throws -> GuideTourListResponse {
        GuideTourListResponse(tours: try await guideTours.tours(ofGuide: try context.requireCallerID()))
    }

    /// `GET /v1/guides/me/tours/{id}`: the working copy; 403 for another guide's tour.
    @Sendable func showOwnTour(_ request: Request, context: ServiceRequestContext) async throws -> EditedResponse<GuideTourResponse> {
        let identity = try context.requireIdentity()
        let (state, version) = try await authoring.load(try Self.tourId(context))
        guard state.exists, state.status != .deleted, state.status != .expired else { throw Problem.notFound("no such tour", code: "unknown-tour") }
        guard state.guideId?.uuidString.lowercased() == identity.subject.lowercased() else { throw TourError.notOwner }
        return try Self.respond((state, version))
    }
}
