import Contracts
import EventSourcing
import Foundation
import Hummingbird
import ServiceKit

/// What the authoring handlers share: running a command on the tour of the path, and reading the path and headers.
extension TourAuthoringRoutes {
    /// Runs the command `make` builds (from the caller and now) on the tour named by the path, honouring `If-Match`.
    func run(_ request: Request, _ context: ServiceRequestContext, _ make: (UUID, Date) throws -> TourCommand)
        async throws -> EditedResponse<GuideTourResponse> {
        let actor = try context.requireCallerID()
        let tourId = try Self.tourId(context)
        let command = try make(actor, authoring.now())
        return try Self.respond(try await authoring.execute(
            command, on: tourId, ifMatch: try Self.ifMatch(request),
            metadata: EventMetadata(actorID: try context.requireIdentity().subject, traceparent: context.traceparent)))
    }

    /// The tour as its guide sees it, with its version as `ETag` (and `Location` when created).
    static func respond(_ result: (TourState, Int64), status: HTTPResponse.Status = .ok) throws -> EditedResponse<GuideTourResponse> {
        guard let body = GuideTourResponse(result.0, version: result.1) else { throw Problem.notFound("no such tour", code: "unknown-tour") }
        var headers = HTTPFields()
        headers[.eTag] = "\"\(result.1)\""
        if status == .created { headers[.location] = "/v1/guides/me/tours/\(body.id)" }
        return EditedResponse(status: status, headers: headers, response: body)
    }

    /// The stop a request describes, with its cleaned name and the default trigger radius (30 m).
    static func stop(_ body: StopRequest, id: UUID, media: [StopMedia]) -> TourStop {
        TourStop(stopId: id, name: body.name.trimmingCharacters(in: .whitespacesAndNewlines), description: body.description ?? "",
                 location: body.location, triggerRadiusMetres: body.triggerRadiusMetres ?? 30, media: media)
    }

    /// 422 `unknown-destination` unless `id` is a destination.
    static func checkDestination(_ id: Int64, _ index: DestinationIndex) throws {
        guard index.city(id: id) != nil else {
            throw Problem.unprocessable(fieldErrors: [FieldError(field: "destinationId", code: "unknown-destination",
                                                                 message: "is not a destination (see GET /v1/destinations)")])
        }
    }

    /// The `id` path parameter; 404 `unknown-tour` when it is not a UUID.
    static func tourId(_ context: ServiceRequestContext) throws -> UUID {
        try context.parameters.require("id", as: UUID.self, ifInvalid: .notFound("no such tour", code: "unknown-tour"))
    }

    /// The `stopId` path parameter; 404 `unknown-stop` when it is not a UUID.
    static func stopId(_ context: ServiceRequestContext) throws -> UUID {
        try context.parameters.require("stopId", as: UUID.self, ifInvalid: .notFound("no such stop", code: "unknown-stop"))
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
