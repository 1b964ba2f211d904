import Contracts
import EventSourcing
import Foundation
import GRDB
import PostgresNIO

/// One trip as the `trips` read model keeps it: figures in clear (for lists and totals), nothing placed — no track,
/// route or candidate position rests in a read model.
public struct TripRow: Codable, Sendable, Hashable {
    public var tripId: UUID
    public var riderId: UUID
    public var status: TripStatus
    public var source: String
    public var createdAt: Date
    public var finishedAt: Date?
    public var rideStartedAt: Date?
    public var fixCount: Int
    public var accelerationCount: Int
    public var figures: TripFigures?
    public var candidateCount: Int
    public var hasWeather: Bool
    public var reviewed: Bool

    /// Finished without weather: the backfill worker's work.
    var weatherPending: Bool { status == .finished && !hasWeather }
    /// Finish requested, analysis not recorded: the analysis worker's work.
    var analysisPending: Bool { status == .analysing }
    /// The time the trip's lists and totals sort and bucket by: the ride's start, else when it was created.
    public var sortDate: Date { rideStartedAt ?? createdAt }
}

/// How trip events change a `trips` row (`nil`: the row goes); both backends apply exactly this.
enum TripRowFold {
    static func fold(_ existing: TripRow?, _ event: TripEvent) -> TripRow? {
        if case .started(let e) = event {
            return TripRow(tripId: e.tripId, riderId: e.riderId, status: .recording, source: e.source, createdAt: e.startedAt, finishedAt: nil,
                           rideStartedAt: nil, fixCount: 0, accelerationCount: 0, figures: nil, candidateCount: 0, hasWeather: false,
                           reviewed: false)
        }
        guard var row = existing else { return nil }
        switch event {
        case .started: break
        case .samples(let e):
            row.fixCount += e.fixCount
            row.accelerationCount += e.accelerationCount
        case .finishRequested: row.status = .analysing
        case .analysed(let e):
            (row.figures, row.rideStartedAt, row.candidateCount) = (e.figures, e.rideStartedAt, e.candidateCount)
        case .finished(let e): (row.status, row.finishedAt) = (.finished, e.finishedAt)
        case .weather: row.hasWeather = true
        case .reviewed: row.reviewed = true
        case .obstacle, .draft: break
        case .deleted: return nil
        }
        return row
    }

    static func tripId(_ event: TripEvent) -> UUID {
        switch event {
        case .started(let e): e.tripId
        case .samples(let e): e.tripId
        case .finishRequested(let e): e.tripId
        case .analysed(let e): e.tripId
        case .finished(let e): e.tripId
        case .weather(let e): e.tripId
        case .reviewed(let e): e.tripId
        case .obstacle, .draft: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        case .deleted(let e): e.tripId
        }
    }

    static func encode(_ row: TripRow) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(row), as: UTF8.self)
    }

    static func decode(_ text: String) throws -> TripRow {
        try JSONDecoder().decode(TripRow.self, from: Data(text.utf8))
    }

    /// Published obstacle and draft events name no trip row: skipped before any read.
    static func concernsRow(_ event: TripEvent) -> Bool {
        switch event {
        case .obstacle, .draft: false
        default: true
        }
    }
}

/// The `trips` read model on SQLite: one row per live trip (deleted trips and erased riders' trips are removed).
public struct SQLiteTripsProjection: SQLiteProjection {
    public let name = "trips"
    public let tables = ["trips"]
    /// 2: `analysis_pending` (trips whose finish was recorded and whose analysis was not).
    public var schemaVersion: Int { 2 }

    /// Creates it.
    public init() {}

    public func createTables(_ db: Database, _ t: ProjectionTables) throws {
        try db.execute(sql: """
            CREATE TABLE \(t("trips")) (trip_id TEXT PRIMARY KEY, rider_id TEXT NOT NULL, sort_at_us INTEGER NOT NULL,
                weather_pending INTEGER NOT NULL, analysis_pending INTEGER NOT NULL, row TEXT NOT NULL);
            CREATE INDEX \(t.index("trips_by_rider")) ON \(t("trips")) (rider_id, sort_at_us DESC, trip_id DESC);
            CREATE INDEX \(t.index("trips_weather_pending")) ON \(t("trips")) (trip_id) WHERE weather_pending = 1;
            CREATE INDEX \(t.index("trips_analysis_pending")) ON \(t("trips")) (trip_id) WHERE analysis_pending = 1;
            """)
    }

    public func apply(_ event: EventEnvelope, _ db: Database, _ t: ProjectionTables) throws {
        guard let decoded = try TripAggregate.eventTypes.decode(event), TripRowFold.concernsRow(decoded) else { return }
        let id = TripRowFold.tripId(decoded).uuidString.lowercased()
        let existing = try String.fetchOne(db, sql: "SELECT row FROM \(t("trips")) WHERE trip_id = ?", arguments: [id]).map(TripRowFold.decode)
        guard let row = TripRowFold.fold(existing, decoded) else {
            try db.execute(sql: "DELETE FROM \(t("trips")) WHERE trip_id = ?", arguments: [id])
            return
        }
        try db.execute(sql: """
            INSERT OR REPLACE INTO \(t("trips")) (trip_id, rider_id, sort_at_us, weather_pending, analysis_pending, row)
            VALUES (?, ?, ?, ?, ?, ?)
            """, arguments: [id, row.riderId.uuidString.lowercased(), row.sortDate.microsecondsSince1970, row.weatherPending,
                             row.analysisPending, try TripRowFold.encode(row)])
    }
}

/// The `trips` read model on PostgreSQL (same table and fold as SQLite).
public struct PostgresTripsProjection: PostgresProjection {
    public let name = "trips"
    public let tables = ["trips"]
    /// 2: `analysis_pending`, as on SQLite.
    public var schemaVersion: Int { 2 }

    /// Creates it.
    public init() {}

    public func createTables(_ connection: PostgresConnection, _ t: ProjectionTables) async throws {
        for statement in [
            """
            CREATE TABLE \(t("trips")) (trip_id uuid PRIMARY KEY, rider_id uuid NOT NULL, sort_at_us bigint NOT NULL,
                weather_pending boolean NOT NULL, analysis_pending boolean NOT NULL, row text NOT NULL)
            """,
            "CREATE INDEX \(t.index("trips_by_rider")) ON \(t("trips")) (rider_id, sort_at_us DESC, trip_id DESC)",
            "CREATE INDEX \(t.index("trips_weather_pending")) ON \(t("trips")) (trip_id) WHERE weather_pending",
            "CREATE INDEX \(t.index("trips_analysis_pending")) ON \(t("trips")) (trip_id) WHERE analysis_pending",
        ] {
            try await connection.query("\(unescaped: statement)", logger: connection.logger)
        }
    }

    public func apply(_ event: EventEnvelope, _ connection: PostgresConnection, _ t: ProjectionTables) async throws {
        guard let decoded = try TripAggregate.eventTypes.decode(event), TripRowFold.concernsRow(decoded) else { return }
        let id = TripRowFold.tripId(decoded)
        var existing: TripRow?
        let select: PostgresQuery = "SELECT row FROM \(unescaped: t("trips")) WHERE trip_id = \(id)"
        for try await (text) in try await connection.query(select, logger: connection.logger).decode(String.self) {
            existing = try TripRowFold.decode(text)
        }
        guard let row = TripRowFold.fold(existing, decoded) else {
            try await connection.query("DELETE FROM \(unescaped: t("trips")) WHERE trip_id = \(id)", logger: connection.logger)
            return
        }
        let encoded = try TripRowFold.encode(row)
        try await connection.query("""
            INSERT INTO \(unescaped: t("trips")) (trip_id, rider_id, sort_at_us, weather_pending, analysis_pending, row)
            VALUES (\(id), \(row.riderId), \(row.sortDate.microsecondsSince1970), \(row.weatherPending), \(row.analysisPending), \(encoded))
            ON CONFLICT (trip_id) DO UPDATE SET sort_at_us = excluded.sort_at_us, weather_pending = excluded.weather_pending,
                analysis_pending = excluded.analysis_pending, row = excluded.row
            """, logger: connection.logger)
    }
}
