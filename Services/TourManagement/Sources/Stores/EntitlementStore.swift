import Foundation

/// The reads of the `entitlements` read model (``SQLiteEntitlementsProjection`` / ``PostgresEntitlementsProjection``'s
/// table) behind ``Entitlements``.
public protocol EntitlementStore: Sendable {
    /// The row of (tour, user), active or revoked.
    func entitlement(tour: UUID, user: UUID) async throws -> Entitlement?
    /// The active rows of `user`, most recently granted first.
    func owned(by user: UUID) async throws -> [Entitlement]
}
