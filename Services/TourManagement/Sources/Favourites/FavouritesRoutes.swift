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

    public func add(to routes: ServiceRoutes) {
        let favourites = favourites, destinations = destinations, guideNames = guideNames
        let group = routes.authenticated("/v1/me/favourites")

        group.get { request, context -> FavouritesResponse in
            let (user, _) = try ReviewRoutes.caller(context)
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
        group.put(":tourId") { _, context -> EditedResponse<FavouriteAddedResponse> in
            let (user, metadata) = try ReviewRoutes.caller(context)
            let tourId = try ReviewRoutes.uuid(context, "tourId", code: "unknown-tour")
            let (at, added) = try await favourites.add(tourId: tourId, user: user, metadata: metadata)
            return EditedResponse(status: added ? .created : .ok,
                                  response: FavouriteAddedResponse(tourId: tourId.uuidString.lowercased(), favouritedAt: at))
        }
        group.delete(":tourId") { _, context -> HTTPResponse.Status in
            let (user, metadata) = try ReviewRoutes.caller(context)
            // Removing something that is not a favourite (or not a tour) is the same success: the tour is not a favourite.
            if let tourId = UUID(uuidString: try context.parameters.require("tourId")) {
                try await favourites.remove(tourId: tourId, user: user, metadata: metadata)
            }
            return .noContent
        }
    }
}
