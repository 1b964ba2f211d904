import Contracts
import EventSourcing
import Foundation
import Hummingbird
import ServiceKit

/// One favourite: the tour's summary while it is listed; `available` false (and no `tour`) once it was unpublished —
/// it stays in the list, so the traveller sees what happened and can remove it, and it comes back if the tour does.
struct FavouriteResponse: Codable, Sendable {
    var tourId: String
    var favouritedAt: Date
    var available: Bool
    var tour: TourSummaryResponse?
}

/// `GET /v1/me/favourites`.
struct FavouritesResponse: ResponseEncodable {
    var favourites: [FavouriteResponse]
    var nextCursor: String?
}

/// `PUT /v1/me/favourites/{tourId}`.
struct FavouriteAddedResponse: ResponseEncodable {
    var tourId: String
    var favouritedAt: Date
}

/// Favourites of the signed-in user (any role): `PUT` (idempotent: 201 when added, 200 when it already was) and `DELETE /v1/me/favourites/{tourId}`,
/// `GET /v1/me/favourites` (most recent first, with tour summaries).
public struct FavouritesRoutes: Sendable {
    let favourites: Favourites
    let destinations: DestinationIndex
    let guideNames: @Sendable ([UUID]) async -> [UUID: String]

    public init(favourites: Favourites, destinations: DestinationIndex,
                guideNames: @escaping @Sendable ([UUID]) async -> [UUID: String] = { _ in [:] }) {
        self.favourites = favourites
        self.destinations = destinations
        self.guideNames = guideNames
    }

    /// Mounts the favourites of the signed-in user under `/v1/me/favourites`.
    public func addRoutes(to routes: ServiceRoutes) {
        let group = routes.authenticated("/v1/me/favourites")
        group.get(use: list)
        group.put(":tourId", use: add)
        group.delete(":tourId", use: remove)
    }

    /// `GET /v1/me/favourites`: most recent first, with the summaries of listed tours.
    @Sendable func list(_ request: Request, context: ServiceRequestContext) async throws -> FavouritesResponse {
        let user = try context.requireCallerID()
        let (cursor, limit) = try ReviewRoutes.paging(request)
        let page = try await favourites.list(user: user, cursor: cursor, limit: limit)
        let names = await guideNames(Array(Set(page.favourites.compactMap(\.tour?.guideId))))
        return FavouritesResponse(favourites: page.favourites.map { favourite in
            FavouriteResponse(
                tourId: favourite.tourId.uuidString.lowercased(), favouritedAt: favourite.favouritedAt, available: favourite.tour != nil,
                tour: favourite.tour.map {
                    TourSummaryResponse($0, guideName: names[$0.guideId], city: destinations.city(id: $0.details.destinationId),
                                        distanceMetres: nil, fullDescription: false)
                })
        }, nextCursor: page.nextCursor?.encoded)
    }

    /// `PUT /v1/me/favourites/{tourId}`: 201 when added, 200 when it already was.
    @Sendable func add(_ request: Request, context: ServiceRequestContext) async throws -> EditedResponse<FavouriteAddedResponse> {
        let (user, metadata) = try ReviewRoutes.caller(context)
        let tourId = try ReviewRoutes.uuid(context, "tourId", code: "unknown-tour")
        let (at, added) = try await favourites.add(tourId: tourId, user: user, metadata: metadata)
        return EditedResponse(status: added ? .created : .ok,
                              response: FavouriteAddedResponse(tourId: tourId.uuidString.lowercased(), favouritedAt: at))
    }

    /// `DELETE /v1/me/favourites/{tourId}`: 204, also for something that is not a favourite (or not a tour) — either way
    /// the tour is not a favourite.
    @Sendable func remove(_ request: Request, context: ServiceRequestContext) async throws -> HTTPResponse.Status {
        let (user, metadata) = try ReviewRoutes.caller(context)
        if let tourId = context.parameters.get("tourId", as: UUID.self) {
            try await favourites.remove(tourId: tourId, user: user, metadata: metadata)
        }
        return .noContent
    }
}
