import EventSourcing
import Foundation

/// A value bound to an analytics statement: both backends store ids and codes as text and everything else as 64-bit
/// integers, so one statement text (with `$n` placeholders) serves SQLite and PostgreSQL.
enum SQLArg: Sendable, Hashable {
    case int(Int64?)
    case text(String?)

    static func day(_ day: UTCDay) -> SQLArg { .int(Int64(day.number)) }
}

/// The two SQL dialects. Statements are written once with PostgreSQL's `$n` placeholders; SQLite reads the same
/// numbered parameters as `?n`.
enum AnalyticsDialect: Sendable {
    case sqlite, postgres

    func text(_ sql: String) -> String {
        self == .postgres ? sql : sql.replacingOccurrences(of: "$", with: "?")
    }
}

/// The analytics read model: every table is a projection of the topics, has one generation (rebuild writes
/// `<table>__rebuild`, then swaps), and holds no personal data beyond pseudonymous ids (see docs/analytics.md).
///
/// | table | key | what |
/// |---|---|---|
/// | `analytics_tours` | tour | guide, title, destination, price, listed, first publication day, all-time rating sum and count |
/// | `analytics_tour_days` | guide, day, tour | views, checkouts started, free acquisitions, starts, completions, reviews, publications |
/// | `analytics_sales_days` | guide, day, tour, currency | purchases, gross, platform fee, guide earnings; refunds and what they gave back |
/// | `analytics_viewers` | guide, day, tour, viewer | first view of a viewer key per tour and UTC day (unique viewers, exactly, for any range) |
/// | `analytics_activity` | guide, time, event | the guide's 50 newest events (no traveller ids) |
/// | `analytics_registrations` | day, role | registrations per UTC day and registered role |
/// | `analytics_rider_trips` | trip | a known rider's finished ride: rider, UTC day, distance (mm), moving time (ms), elevation gain (mm) |
/// | `analytics_bike_days` | day | the platform's bike counters per UTC day (``BikeCounter``) |
/// | `analytics_review_decisions` | draft, decision time | a moderator's decision: UTC day, outcome, time since the review opened (ms) |
/// | `analytics_erased` | tombstone | SHA-256 of erased user ids, so that events arriving after the erasure stay anonymous |
/// | `analytics_inbox` | stream key | the consumers' dedupe records: last applied version per source stream (hashed key) |
enum AnalyticsSchema {
    static let tours = "analytics_tours"
    static let tourDays = "analytics_tour_days"
    static let salesDays = "analytics_sales_days"
    static let viewers = "analytics_viewers"
    static let activity = "analytics_activity"
    static let registrations = "analytics_registrations"
    static let riderTrips = "analytics_rider_trips"
    static let bikeDays = "analytics_bike_days"
    static let reviewDecisions = "analytics_review_decisions"
    static let erased = "analytics_erased"
    static let inbox = "analytics_inbox"
    /// Every generational table (dropped and renamed together by a rebuild's swap).
    static let tables = [tours, tourDays, salesDays, viewers, activity, registrations, riderTrips, bikeDays, reviewDecisions, erased, inbox]
    /// The table holding the live generation (not generational itself).
    static let meta = "analytics_meta"

    /// The guide id erased guides' rows are re-keyed to: platform totals keep their figures, no row names the person.
    static let erasedGuide = "00000000-0000-0000-0000-000000000000"

    /// How many events the recent-activity feed keeps per guide.
    static let activityLimit = 50

    static func createStatements(_ t: ProjectionTables, dialect: AnalyticsDialect) -> [String] {
        let rowid = dialect == .sqlite ? " WITHOUT ROWID" : ""
        // Finding an erased traveller's viewer rows: an index on PostgreSQL. On SQLite the erasure scans the table
        // instead: the index took a random page per signed-in view, ~20 % of the ingest throughput (measured), and
        // erasures are rare (see docs/analytics.md for the scan's cost).
        let userIndex = dialect == .postgres
            ? ["CREATE INDEX IF NOT EXISTS \(t.index("analytics_viewers_user")) ON \(t(viewers)) (user_id) WHERE user_id IS NOT NULL"]
            : []
        return [
            """
            CREATE TABLE IF NOT EXISTS \(t(tours)) (
                tour_id TEXT NOT NULL PRIMARY KEY, guide_id TEXT NOT NULL, title TEXT, destination_id BIGINT, price_minor BIGINT,
                currency TEXT, listed BIGINT NOT NULL, first_published_day BIGINT, rating_sum BIGINT NOT NULL,
                rating_count BIGINT NOT NULL)\(rowid)
            """,
            "CREATE INDEX IF NOT EXISTS \(t.index("analytics_tours_guide")) ON \(t(tours)) (guide_id)",
            """
            CREATE TABLE IF NOT EXISTS \(t(tourDays)) (
                guide_id TEXT NOT NULL, day BIGINT NOT NULL, tour_id TEXT NOT NULL, views BIGINT NOT NULL, checkouts BIGINT NOT NULL,
                acquisitions BIGINT NOT NULL, starts BIGINT NOT NULL, completions BIGINT NOT NULL, reviews BIGINT NOT NULL,
                publications BIGINT NOT NULL, PRIMARY KEY (guide_id, day, tour_id))\(rowid)
            """,
            "CREATE INDEX IF NOT EXISTS \(t.index("analytics_tour_days_day")) ON \(t(tourDays)) (day)",
            """
            CREATE TABLE IF NOT EXISTS \(t(salesDays)) (
                guide_id TEXT NOT NULL, day BIGINT NOT NULL, tour_id TEXT NOT NULL, currency TEXT NOT NULL, purchases BIGINT NOT NULL,
                gross_minor BIGINT NOT NULL, fee_minor BIGINT NOT NULL, earnings_minor BIGINT NOT NULL, refunds BIGINT NOT NULL,
                refunded_minor BIGINT NOT NULL, refunded_fee_minor BIGINT NOT NULL, refunded_earnings_minor BIGINT NOT NULL,
                PRIMARY KEY (guide_id, day, tour_id, currency))\(rowid)
            """,
            "CREATE INDEX IF NOT EXISTS \(t.index("analytics_sales_days_day")) ON \(t(salesDays)) (day)",
            """
            CREATE TABLE IF NOT EXISTS \(t(viewers)) (
                guide_id TEXT NOT NULL, day BIGINT NOT NULL, tour_id TEXT NOT NULL, viewer TEXT NOT NULL, user_id TEXT,
                PRIMARY KEY (guide_id, day, tour_id, viewer))\(rowid)
            """,
            """
            CREATE TABLE IF NOT EXISTS \(t(activity)) (
                guide_id TEXT NOT NULL, occurred_us BIGINT NOT NULL, event_id TEXT NOT NULL, kind TEXT NOT NULL, tour_id TEXT NOT NULL,
                amount_minor BIGINT, currency TEXT, rating BIGINT, PRIMARY KEY (guide_id, occurred_us, event_id))\(rowid)
            """,
            """
            CREATE TABLE IF NOT EXISTS \(t(registrations)) (
                day BIGINT NOT NULL, role TEXT NOT NULL, registrations BIGINT NOT NULL, PRIMARY KEY (day, role))\(rowid)
            """,
            // A rider's rides: read by rider and day range; deleted by trip, or all of a rider's on erasure.
            """
            CREATE TABLE IF NOT EXISTS \(t(riderTrips)) (
                trip_id TEXT NOT NULL PRIMARY KEY, rider_id TEXT NOT NULL, day BIGINT NOT NULL, distance_mm BIGINT NOT NULL,
                moving_ms BIGINT NOT NULL, elevation_gain_mm BIGINT NOT NULL)\(rowid)
            """,
            "CREATE INDEX IF NOT EXISTS \(t.index("analytics_rider_trips_rider")) ON \(t(riderTrips)) (rider_id, day)",
            """
            CREATE TABLE IF NOT EXISTS \(t(bikeDays)) (
                day BIGINT NOT NULL PRIMARY KEY, \(BikeCounter.allCases.map { "\($0.column) BIGINT NOT NULL" }.joined(separator: ", ")))\(rowid)
            """,
            """
            CREATE TABLE IF NOT EXISTS \(t(reviewDecisions)) (
                draft_id TEXT NOT NULL, decided_us BIGINT NOT NULL, day BIGINT NOT NULL, outcome TEXT NOT NULL, wait_ms BIGINT NOT NULL,
                PRIMARY KEY (draft_id, decided_us))\(rowid)
            """,
            "CREATE INDEX IF NOT EXISTS \(t.index("analytics_review_decisions_day")) ON \(t(reviewDecisions)) (day)",
            "CREATE TABLE IF NOT EXISTS \(t(erased)) (tombstone TEXT NOT NULL PRIMARY KEY)\(rowid)",
            "CREATE TABLE IF NOT EXISTS \(t(inbox)) (stream_key TEXT NOT NULL PRIMARY KEY, last_version BIGINT NOT NULL)\(rowid)",
        ] + userIndex
    }

    static let createMeta = "CREATE TABLE IF NOT EXISTS \(meta) (key TEXT NOT NULL PRIMARY KEY, value BIGINT NOT NULL)"
}

/// The statements the consumers write with, one text per statement and generation.
enum AnalyticsStatement: Int, CaseIterable, Sendable {
    case tourDay, sales, viewer, activity, activityTrim, tourDetails, tourUnlisted, tourRating, registration
    case riderTrip, riderTripDelete, bikeDay, reviewDecision
    case eraseMark, eraseViewers, eraseViewerGuides, eraseTours, eraseTourDays, eraseSales, eraseRiderTrips, eraseActivity
    case erasedLookup, inboxWrite, inboxRead, tombstoneRead, tombstoneList, tombstoneCount

    func sql(_ t: ProjectionTables) -> String {
        typealias S = AnalyticsSchema
        switch self {
        case .tourDay:
            return """
                INSERT INTO \(t(S.tourDays)) AS t (guide_id, day, tour_id, views, checkouts, acquisitions, starts, completions, reviews,
                    publications) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
                ON CONFLICT (guide_id, day, tour_id) DO UPDATE SET views = t.views + excluded.views,
                    checkouts = t.checkouts + excluded.checkouts, acquisitions = t.acquisitions + excluded.acquisitions,
                    starts = t.starts + excluded.starts, completions = t.completions + excluded.completions,
                    reviews = t.reviews + excluded.reviews, publications = t.publications + excluded.publications
                """
        case .sales:
            return """
                INSERT INTO \(t(S.salesDays)) AS t (guide_id, day, tour_id, currency, purchases, gross_minor, fee_minor, earnings_minor,
                    refunds, refunded_minor, refunded_fee_minor, refunded_earnings_minor)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
                ON CONFLICT (guide_id, day, tour_id, currency) DO UPDATE SET purchases = t.purchases + excluded.purchases,
                    gross_minor = t.gross_minor + excluded.gross_minor, fee_minor = t.fee_minor + excluded.fee_minor,
                    earnings_minor = t.earnings_minor + excluded.earnings_minor, refunds = t.refunds + excluded.refunds,
                    refunded_minor = t.refunded_minor + excluded.refunded_minor,
                    refunded_fee_minor = t.refunded_fee_minor + excluded.refunded_fee_minor,
                    refunded_earnings_minor = t.refunded_earnings_minor + excluded.refunded_earnings_minor
                """
        case .viewer:
            return """
                INSERT INTO \(t(S.viewers)) (guide_id, day, tour_id, viewer, user_id) VALUES ($1, $2, $3, $4, $5)
                ON CONFLICT (guide_id, day, tour_id, viewer) DO NOTHING
                """
        case .activity:
            return """
                INSERT INTO \(t(S.activity)) (guide_id, occurred_us, event_id, kind, tour_id, amount_minor, currency, rating)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (guide_id, occurred_us, event_id) DO NOTHING
                """
        case .activityTrim:
            // Keeps the newest `activityLimit` by (time, event id): whatever order events arrive in, the same 50 remain.
            return """
                DELETE FROM \(t(S.activity)) WHERE guide_id = $1 AND (occurred_us, event_id) < (
                    SELECT occurred_us, event_id FROM \(t(S.activity)) WHERE guide_id = $1
                    ORDER BY occurred_us DESC, event_id DESC LIMIT 1 OFFSET \(AnalyticsSchema.activityLimit - 1))
                """
        case .tourDetails:
            return """
                INSERT INTO \(t(S.tours)) AS t (tour_id, guide_id, title, destination_id, price_minor, currency, listed,
                    first_published_day, rating_sum, rating_count) VALUES ($1, $2, $3, $4, $5, $6, 1, $7, 0, 0)
                ON CONFLICT (tour_id) DO UPDATE SET title = excluded.title, destination_id = excluded.destination_id,
                    price_minor = excluded.price_minor, currency = excluded.currency, listed = 1,
                    first_published_day = CASE WHEN t.first_published_day IS NULL OR excluded.first_published_day < t.first_published_day
                        THEN excluded.first_published_day ELSE t.first_published_day END
                """
        case .tourUnlisted:
            return "UPDATE \(t(S.tours)) SET listed = 0 WHERE tour_id = $1"
        case .tourRating:
            return """
                INSERT INTO \(t(S.tours)) AS t (tour_id, guide_id, listed, rating_sum, rating_count) VALUES ($1, $2, 0, $3, $4)
                ON CONFLICT (tour_id) DO UPDATE SET rating_sum = t.rating_sum + excluded.rating_sum,
                    rating_count = t.rating_count + excluded.rating_count
                """
        case .registration:
            return """
                INSERT INTO \(t(S.registrations)) AS t (day, role, registrations) VALUES ($1, $2, 1)
                ON CONFLICT (day, role) DO UPDATE SET registrations = t.registrations + 1
                """
        case .riderTrip:
            // The trip's figures as last published (a trip is finished once; a replay writes the same row).
            return """
                INSERT INTO \(t(S.riderTrips)) (trip_id, rider_id, day, distance_mm, moving_ms, elevation_gain_mm)
                VALUES ($1, $2, $3, $4, $5, $6)
                ON CONFLICT (trip_id) DO UPDATE SET rider_id = excluded.rider_id, day = excluded.day, distance_mm = excluded.distance_mm,
                    moving_ms = excluded.moving_ms, elevation_gain_mm = excluded.elevation_gain_mm
                """
        case .riderTripDelete:
            return "DELETE FROM \(t(S.riderTrips)) WHERE trip_id = $1"
        case .bikeDay:
            let columns = BikeCounter.allCases.map(\.column)
            let values = columns.indices.map { "$\($0 + 2)" }.joined(separator: ", ")
            return """
                INSERT INTO \(t(S.bikeDays)) AS t (day, \(columns.joined(separator: ", "))) VALUES ($1, \(values))
                ON CONFLICT (day) DO UPDATE SET \(columns.map { "\($0) = t.\($0) + excluded.\($0)" }.joined(separator: ", "))
                """
        case .reviewDecision:
            return """
                INSERT INTO \(t(S.reviewDecisions)) (draft_id, decided_us, day, outcome, wait_ms) VALUES ($1, $2, $3, $4, $5)
                ON CONFLICT (draft_id, decided_us) DO NOTHING
                """
        case .eraseRiderTrips:
            return "DELETE FROM \(t(S.riderTrips)) WHERE rider_id = $1"
        case .eraseMark:
            return "INSERT INTO \(t(S.erased)) (tombstone) VALUES ($1) ON CONFLICT (tombstone) DO NOTHING"
        case .eraseViewers:
            return "DELETE FROM \(t(S.viewers)) WHERE user_id = $1"
        case .eraseViewerGuides:
            return "UPDATE \(t(S.viewers)) SET guide_id = $2 WHERE guide_id = $1"
        case .eraseTours:
            return "UPDATE \(t(S.tours)) SET guide_id = $2 WHERE guide_id = $1"
        case .eraseTourDays:
            return "UPDATE \(t(S.tourDays)) SET guide_id = $2 WHERE guide_id = $1"
        case .eraseSales:
            return "UPDATE \(t(S.salesDays)) SET guide_id = $2 WHERE guide_id = $1"
        case .eraseActivity:
            return "DELETE FROM \(t(S.activity)) WHERE guide_id = $1"
        case .erasedLookup:
            return "SELECT tombstone FROM \(t(S.erased)) WHERE tombstone IN ($1, $2)"
        case .inboxWrite:
            return """
                INSERT INTO \(t(S.inbox)) (stream_key, last_version) VALUES ($1, $2)
                ON CONFLICT (stream_key) DO UPDATE SET last_version = excluded.last_version
                """
        case .inboxRead:
            return "SELECT last_version FROM \(t(S.inbox)) WHERE stream_key = $1"
        case .tombstoneRead:
            return "SELECT tombstone FROM \(t(S.erased)) WHERE tombstone = $1"
        case .tombstoneList:
            return "SELECT tombstone FROM \(t(S.erased)) LIMIT $1"
        case .tombstoneCount:
            return "SELECT count(*) FROM \(t(S.erased))"
        }
    }
}

/// The statement texts of one generation in one dialect, computed once per handler.
struct AnalyticsStatements: Sendable {
    let texts: [String]

    init(_ tables: ProjectionTables, dialect: AnalyticsDialect) {
        texts = AnalyticsStatement.allCases.map { dialect.text($0.sql(tables)) }
    }

    subscript(_ statement: AnalyticsStatement) -> String { texts[statement.rawValue] }
}

/// One statement execution.
struct AnalyticsWrite: Sendable, Hashable {
    var statement: AnalyticsStatement
    var arguments: [SQLArg]
}
