import Foundation

/// A position in a rider's trip list (newest first): the sort time in microseconds and the trip id, opaque to clients.
public struct TripCursor: Sendable, Hashable {
    public var key: Int64
    public var id: UUID

    /// A cursor after the trip `id` sorted at `key` (microseconds).
    public init(key: Int64, id: UUID) {
        self.key = key
        self.id = id
    }

    /// Base64url of `key:id`.
    public var encoded: String {
        Data("\(key):\(id.uuidString.lowercased())".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// The cursor a `nextCursor` spells, `nil` for anything else.
    public init?(encoded: String) {
        var text = encoded.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        guard let data = Data(base64Encoded: text), let plain = String(data: data, encoding: .utf8) else { return nil }
        let parts = plain.split(separator: ":")
        guard parts.count == 2, let key = Int64(parts[0]), let id = UUID(uuidString: String(parts[1])) else { return nil }
        self.init(key: key, id: id)
    }
}

/// Reads of the `trips` read model (``SQLiteTripsProjection``, ``PostgresTripsProjection``).
public protocol TripReadStore: Sendable {
    /// A rider's trips, newest first (ties by trip id, descending), after `cursor`.
    func page(rider: UUID, after cursor: TripCursor?, limit: Int) async throws -> [TripRow]
    /// Every trip of a rider (for totals, summaries and erasure), newest first.
    func all(rider: UUID) async throws -> [TripRow]
    /// Finished trips without weather, up to `limit`.
    func weatherPending(limit: Int) async throws -> [UUID]
}

/// Erased riders (from `waypoint.auth`) whose trips are still to remove (``RiderErasureWorker``).
public protocol RiderErasureStore: Sendable {
    /// Up to 100 erased riders not yet handled.
    func pendingRiders() async throws -> [UUID]
    /// Records that `rider`'s key and trips are gone (idempotent).
    func markApplied(_ rider: UUID) async throws
}
