import EventSourcing
import Foundation
import Hummingbird
import ServiceKit

/// The signed-in traveller's places (any role): favourites under `/v1/places/favourites` (list, add, show, rename,
/// remove) and recent locations under `/v1/places/recent` (list, record a searched location, clear).
public struct PlacesRoutes: Sendable {
    let places: NavigationPlaces

    /// Places bodies are a name and a coordinate: anything above this is refused with 413 before it is read.
    public static let bodyLimits = [HTTPRequest.Method.post, .patch].map { BodyLimitOverride(method: $0, pathPrefix: "/v1/places", limit: 16_384) }

    public init(places: NavigationPlaces) {
        self.places = places
    }

    public func addRoutes(to routes: ServiceRoutes) {
        let favourites = routes.authenticated("/v1/places/favourites")
        favourites.get(use: listFavourites)
        favourites.post(use: addFavourite)
        favourites.get(":id", use: showFavourite)
        favourites.patch(":id", use: renameFavourite)
        favourites.delete(":id", use: removeFavourite)
        let recent = routes.authenticated("/v1/places/recent")
        recent.get(use: listRecents)
        recent.post(use: recordRecent)
        recent.delete(use: clearRecents)
    }

    /// `GET /v1/places/favourites`: by name, then id.
    @Sendable func listFavourites(_ request: Request, context: ServiceRequestContext) async throws -> FavouritePlacesResponse {
        FavouritePlacesResponse(favourites: try await places.favourites(of: try context.requireCallerID()).map(FavouritePlaceResponse.init))
    }

    /// `POST /v1/places/favourites`: 201 with the favourite and its `Location`.
    @Sendable func addFavourite(_ request: Request, context: ServiceRequestContext) async throws -> EditedResponse<FavouritePlaceResponse> {
        let (user, metadata) = try Self.caller(context)
        let body = try await request.decode(as: FavouritePlaceBody.self, context: context).validated()
        let favourite = try await places.addFavourite(name: body.name, at: body.coordinate, destinationId: body.destinationId, for: user,
                                                      metadata: metadata)
        var headers = HTTPFields()
        headers[.location] = "/v1/places/favourites/\(favourite.id.uuidString.lowercased())"
        return EditedResponse(status: .created, headers: headers, response: FavouritePlaceResponse(favourite))
    }

    /// `GET /v1/places/favourites/{id}`: 404 `unknown-place` unless it is the caller's.
    @Sendable func showFavourite(_ request: Request, context: ServiceRequestContext) async throws -> FavouritePlaceResponse {
        let user = try context.requireCallerID()
        guard let favourite = try await places.favourite(try Self.placeID(context), of: user) else { throw PlacesError.unknownPlace }
        return FavouritePlaceResponse(favourite)
    }

    /// `PATCH /v1/places/favourites/{id}` `{ "name" }`: the renamed favourite.
    @Sendable func renameFavourite(_ request: Request, context: ServiceRequestContext) async throws -> FavouritePlaceResponse {
        let (user, metadata) = try Self.caller(context)
        let id = try Self.placeID(context)
        let name = try await request.decode(as: FavouriteRenameBody.self, context: context).validated()
        return FavouritePlaceResponse(try await places.renameFavourite(id, to: name, of: user, metadata: metadata))
    }

    /// `DELETE /v1/places/favourites/{id}`: 204; 404 `unknown-place` unless it is the caller's.
    @Sendable func removeFavourite(_ request: Request, context: ServiceRequestContext) async throws -> HTTPResponse.Status {
        let (user, metadata) = try Self.caller(context)
        try await places.removeFavourite(try Self.placeID(context), of: user, metadata: metadata)
        return .noContent
    }

    /// `GET /v1/places/recent?limit=1..50` (default 50): newest first.
    @Sendable func listRecents(_ request: Request, context: ServiceRequestContext) async throws -> RecentPlacesResponse {
        let user = try context.requireCallerID()
        var validator = Validator()
        let limit = request.uri.queryParameters.get("limit").map { Int($0) ?? -1 } ?? PlacesAggregate.recentLimit
        validator.range(limit, field: "limit", 1...PlacesAggregate.recentLimit)
        try validator.check()
        return RecentPlacesResponse(recents: try await places.recents(of: user, limit: limit).map(RecentPlaceResponse.init))
    }

    /// `POST /v1/places/recent`: 201 with the new recent, 200 with the recent it repeated (moved to the top).
    @Sendable func recordRecent(_ request: Request, context: ServiceRequestContext) async throws -> EditedResponse<RecentPlaceResponse> {
        let (user, metadata) = try Self.caller(context)
        let body = try await request.decode(as: RecentPlaceBody.self, context: context).validated(now: places.now())
        let (recent, added) = try await places.record(body.coordinate, name: body.name, kind: body.kind, for: user, at: body.at, metadata: metadata)
        return EditedResponse(status: added ? .created : .ok, response: RecentPlaceResponse(recent))
    }

    /// `DELETE /v1/places/recent`: 204.
    @Sendable func clearRecents(_ request: Request, context: ServiceRequestContext) async throws -> HTTPResponse.Status {
        let (user, metadata) = try Self.caller(context)
        try await places.clearRecents(of: user, metadata: metadata)
        return .noContent
    }

    static func caller(_ context: ServiceRequestContext) throws -> (UUID, EventMetadata) {
        (try context.requireCallerID(), EventMetadata(actorID: try context.requireIdentity().subject, traceparent: context.traceparent))
    }

    /// The `{id}` path parameter; 404 `unknown-place` when it is not a UUID.
    static func placeID(_ context: ServiceRequestContext) throws -> UUID {
        try context.parameters.require("id", as: UUID.self, ifInvalid: PlacesError.unknownPlace.problem)
    }
}
