import Foundation
import Geo
import Logging

/// The gazetteer as the service keeps it: reference data (not events) in a `destinations` table of the service's own
/// database, imported from `../shared/data/cities.json.gz` on first start or by the operator command; the in-memory
/// ``DestinationIndex`` is built from it at every start.
public protocol DestinationStore: Sendable {
    /// How many destinations are stored.
    func count() async throws -> Int
    /// Inserts or updates every city (ids are GeoNames ids, stable across gazetteer versions); returns how many.
    func upsert(_ cities: [City]) async throws -> Int
    /// Every stored destination.
    func loadAll() async throws -> [City]
}

extension DestinationStore {
    /// Imports the reference gazetteer when the table is empty; returns the cities imported (0 when already there).
    public func importIfEmpty(logger: Logger) async throws -> Int {
        guard try await count() == 0 else { return 0 }
        let (cities, skipped) = try Gazetteer.loadReferenceData()
        let imported = try await upsert(cities)
        logger.notice("destinations imported from the reference gazetteer", metadata: [
            "destinations": "\(imported)", "skipped": "\(skipped)"])
        return imported
    }
}
