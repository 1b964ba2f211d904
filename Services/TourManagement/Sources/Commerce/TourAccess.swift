import Contracts
import Foundation
import ServiceKit

/// Who may use a published tour's full content (every stop's text and media, the offline bundle, progress): the
/// travellers who own it (the `entitlements` read model), its guide, and administrators.
public struct TourAccess: Sendable {
    public let entitlements: Entitlements

    public init(entitlements: Entitlements) {
        self.entitlements = entitlements
    }

    /// Whether `identity` may use `tour`'s content.
    public func mayUse(_ tour: PublishedTour, _ identity: AuthenticatedIdentity?) async throws -> Bool {
        guard let identity, let user = UUID(uuidString: identity.subject) else { return false }
        if identity.role == .admin || user == tour.guideId { return true }
        return try await entitlements.isEntitled(user: user, tour: tour.tourId)
    }

    /// Throws 403 `not-entitled` unless `identity` may use `tour`'s content.
    public func requireUse(_ tour: PublishedTour, _ identity: AuthenticatedIdentity) async throws {
        guard try await mayUse(tour, identity) else {
            throw Problem.forbidden("Only travellers who own this tour (and its guide) may use its content.", code: "not-entitled")
        }
    }
}
