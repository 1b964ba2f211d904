import Contracts
import EventSourcing
import Foundation
import GRDB
import PostgresNIO
import Synchronization

/// Ratings of a tour as discovery shows and sorts them.
public struct TourRating: Sendable, Hashable, Codable {
    /// Prior of the Bayesian average: `priorWeight` imaginary ratings of `priorMean` (IMDb's weighted rating). A tour
    /// with few ratings sorts near 3.5 until enough travellers agree it is better or worse.
    public static let priorMean = 3.5
    public static let priorWeight = 5.0

    public var count: Int
    public var sum: Int

    public init(count: Int = 0, sum: Int = 0) {
        self.count = count
        self.sum = sum
    }

    /// Plain average, `nil` without ratings.
    public var average: Double? { count == 0 ? nil : Double(sum) / Double(count) }

    /// `(w·m + Σ ratings) / (w + n)`: what the rating sort orders by.
    public var bayesian: Double { (Self.priorWeight * Self.priorMean + Double(sum)) / (Self.priorWeight + Double(count)) }
}

/// One row of the discovery read model: the last published revision of a tour, with what discovery sorts by.
public struct PublishedTour: Sendable, Hashable {
    public var tourId: UUID
    public var guideId: UUID
    public var revision: Int
    public var details: TourDetails
    public var stops: [TourStop]
    public var lengthMetres: Int
    /// Whether travellers see it (false after `TourUnpublished`; the row stays so ratings and first publication
    /// survive a later re-publication).
    public var listed: Bool
    public var firstPublishedAt: Date
    public var publishedAt: Date
    public var rating: TourRating
    /// Completed purchases and acquisitions (the popularity sort).
    public var popularity: Int
    /// How many stops the revision has (also when `stops` is not loaded: search hits carry the summary only).
    public var stopCount: Int
    /// Where the tour starts: its first stop.
    public var start: LatLng

    /// The published revision, as stored in the row's `document` column.
    struct Document: Codable {
        var guideId: UUID
        var revision: Int
        var details: TourDetails
        var stops: [TourStop]
        var lengthMetres: Int
    }

    var document: Document {
        Document(guideId: guideId, revision: revision, details: details, stops: stops, lengthMetres: lengthMetres)
    }

    /// What a list shows, as stored in the row's `summary` column: the revision without its stops (a tenth of the
    /// document's size, so a page of search hits decodes fast).
    struct Summary: Codable, Sendable {
        var guideId: UUID
        var revision: Int
        var details: TourDetails
        var lengthMetres: Int
        var stopCount: Int
        var start: LatLng
    }

    var summary: Summary {
        Summary(guideId: guideId, revision: revision, details: details, lengthMetres: lengthMetres, stopCount: stopCount, start: start)
    }

    init(tourId: UUID, document: Document, listed: Bool, firstPublishedAt: Date, publishedAt: Date, rating: TourRating, popularity: Int) {
        self.tourId = tourId
        guideId = document.guideId
        revision = document.revision
        details = document.details
        stops = document.stops
        lengthMetres = document.lengthMetres
        stopCount = document.stops.count
        start = document.stops.first?.location ?? LatLng(lat: 0, lng: 0)
        self.listed = listed
        self.firstPublishedAt = firstPublishedAt
        self.publishedAt = publishedAt
        self.rating = rating
        self.popularity = popularity
    }

    /// A search hit: the summary, `stops` empty.
    init(tourId: UUID, summary: Summary, listed: Bool, firstPublishedAt: Date, publishedAt: Date, rating: TourRating, popularity: Int) {
        self.tourId = tourId
        guideId = summary.guideId
        revision = summary.revision
        details = summary.details
        stops = []
        lengthMetres = summary.lengthMetres
        stopCount = summary.stopCount
        start = summary.start
        self.listed = listed
        self.firstPublishedAt = firstPublishedAt
        self.publishedAt = publishedAt
        self.rating = rating
        self.popularity = popularity
    }

    /// Searchable text, folded: title, description, stop names.
    var searchText: (title: String, description: String, stops: String) {
        (DiscoveryText.folded(details.title), DiscoveryText.folded(details.description),
         DiscoveryText.folded(stops.map(\.name).joined(separator: " \u{2022} ")))
    }

    /// The folded words of title, description and stop names (`tour_terms` counts tours per word).
    var vocabulary: Set<String> {
        DiscoveryText.vocabulary(details.title + " " + details.description + " " + stops.map(\.name).joined(separator: " "))
    }

    /// Primary language subtags.
    var primaryLanguages: Set<String> { Set(details.languages.map(DiscoveryText.primaryLanguage)) }

    /// `,de,en,`: primary language subtags, so `LIKE '%,de,%'` matches `de` and `de-AT`.
    var languageList: String {
        "," + Set(details.languages.map(DiscoveryText.primaryLanguage)).sorted().joined(separator: ",") + ","
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()
    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()

    /// Decoded summaries by their stored text: a search decodes the summary of every hit, the same few thousand
    /// tours over and over (`JSONDecoder` was 7 % of tour-management's CPU at 1,000 catalogue requests/s). Keyed by the
    /// text itself, so a changed row (a new revision) is a new key and nothing can be stale; bounded at
    /// ``summaryMemoLimit`` entries (~2–3 KB each), emptied whole when full.
    private static let summaryMemo = Mutex<[String: Summary]>([:])
    static let summaryMemoLimit = 16_384

    /// The summary stored as `text` (the `summary` column).
    static func summary(from text: String) throws -> Summary {
        if let known = summaryMemo.withLock({ $0[text] }) { return known }
        let summary = try decoder.decode(Summary.self, from: Data(text.utf8))
        summaryMemo.withLock { memo in
            if memo.count >= summaryMemoLimit { memo.removeAll(keepingCapacity: true) }
            memo[text] = summary
        }
        return summary
    }
}

/// How tour events change discovery rows; both backends apply exactly this.
enum DiscoveryFold {
    /// Every type the discovery projection applies: the tours' own, ratings' and popularity's.
    static let eventTypes = TourAggregate.eventTypes.eventTypes.union(DiscoveryRatingFold.types.eventTypes)
        .union(DiscoveryPopularityFold.types.eventTypes)

    enum Change {
        /// Upsert the published revision, keeping first publication, ratings and popularity of an existing row.
        case publish(TourPublished)
        case unlist(UUID)
        case none
    }

    static func change(for event: TourEvent) -> Change {
        switch event {
        case .published(let e): .publish(e)
        case .unpublished(let e): .unlist(e.tourId)
        default: .none
        }
    }

    /// `pending`: ratings of reviews folded before the tour had a row (see ``DiscoveryRatingFold``).
    static func row(_ e: TourPublished, existing: PublishedTour?, pending: TourRating? = nil) -> PublishedTour {
        PublishedTour(tourId: e.tourId, document: PublishedTour.Document(guideId: e.guideId, revision: e.revision, details: e.details,
                                                                         stops: e.stops, lengthMetres: e.lengthMetres),
                      listed: true, firstPublishedAt: existing?.firstPublishedAt ?? e.publishedAt, publishedAt: e.publishedAt,
                      rating: (existing?.rating ?? TourRating()).adding(pending ?? TourRating()), popularity: existing?.popularity ?? 0)
    }
}

/// How review events move a tour's rating in discovery (`rating_count`, `rating_sum`, `rating_avg`, `rating_bayes`);
/// both backends apply exactly this. `ReviewPosted` adds its rating, `ReviewEdited` moves `previousRating` to `rating`,
/// `ReviewHidden` takes its rating away.
///
/// Order: a review needs an entitlement and an entitlement a published tour, so in the one log of the service the tour's
/// `TourPublished` comes first. Should a review still arrive for a tour without a row (a tour whose publication is not
/// in this log, a replay of a partial log), its change waits in `tour_rating_pending` and is added to the row when the
/// tour is first published: a rating is never lost, whatever the order.
enum DiscoveryRatingFold {
    enum Event: Sendable {
        case posted(ReviewPosted)
        case edited(ReviewEdited)
        case hidden(ReviewHidden)
    }

    static let types = EventTypeMap<Event>()
        .registering(ReviewPosted.self) { .posted($0) }
        .registering(ReviewEdited.self) { .edited($0) }
        .registering(ReviewHidden.self) { .hidden($0) }

    /// The tour and the change of its rating (count, sum), or `nil` for other events.
    static func change(_ envelope: EventEnvelope) throws -> (tourId: UUID, delta: TourRating)? {
        switch try types.decode(envelope) {
        case .posted(let e)?: (e.tourId, TourRating(count: 1, sum: e.rating))
        case .edited(let e)?: (e.tourId, TourRating(count: 0, sum: e.rating - e.previousRating))
        case .hidden(let e)?: (e.tourId, TourRating(count: -1, sum: -e.rating))
        case nil: nil
        }
    }

    static func apply(_ change: (tourId: UUID, delta: TourRating), _ db: Database, _ t: ProjectionTables) throws {
        let id = change.tourId.uuidString.lowercased()
        if let row = try Row.fetchOne(db, sql: "SELECT rating_count, rating_sum FROM \(t("tour_search")) WHERE tour_id = ?", arguments: [id]) {
            let rating = TourRating(count: row[0], sum: row[1]).adding(change.delta)
            try db.execute(sql: """
                UPDATE \(t("tour_search")) SET rating_count = ?, rating_sum = ?, rating_avg = ?, rating_bayes = ? WHERE tour_id = ?
                """, arguments: [rating.count, rating.sum, rating.average, rating.bayesian, id])
            return
        }
        try db.execute(sql: """
            INSERT INTO \(t("tour_rating_pending")) (tour_id, rating_count, rating_sum) VALUES (?, ?, ?)
            ON CONFLICT (tour_id) DO UPDATE SET rating_count = rating_count + excluded.rating_count, rating_sum = rating_sum + excluded.rating_sum
            """, arguments: [id, change.delta.count, change.delta.sum])
    }

    /// Removes and returns the ratings waiting for `tourId`.
    static func takePending(_ tourId: UUID, _ db: Database, _ t: ProjectionTables) throws -> TourRating? {
        let id = tourId.uuidString.lowercased()
        guard let row = try Row.fetchOne(db, sql: "SELECT rating_count, rating_sum FROM \(t("tour_rating_pending")) WHERE tour_id = ?",
                                         arguments: [id]) else { return nil }
        try db.execute(sql: "DELETE FROM \(t("tour_rating_pending")) WHERE tour_id = ?", arguments: [id])
        return TourRating(count: row[0], sum: row[1])
    }

    static func apply(_ change: (tourId: UUID, delta: TourRating), _ connection: PostgresConnection, _ t: ProjectionTables) async throws {
        let select: PostgresQuery = "SELECT rating_count, rating_sum FROM \(unescaped: t("tour_search")) WHERE tour_id = \(change.tourId)"
        var current: TourRating?
        for try await (count, sum) in try await connection.query(select, logger: connection.logger).decode((Int32, Int32).self) {
            current = TourRating(count: Int(count), sum: Int(sum))
        }
        if let current {
            let rating = current.adding(change.delta)
            try await connection.query("""
                UPDATE \(unescaped: t("tour_search")) SET rating_count = \(Int32(rating.count)), rating_sum = \(Int32(rating.sum)),
                    rating_avg = \(rating.average), rating_bayes = \(rating.bayesian) WHERE tour_id = \(change.tourId)
                """, logger: connection.logger)
            return
        }
        let pending = t("tour_rating_pending")
        try await connection.query("""
            INSERT INTO \(unescaped: pending) (tour_id, rating_count, rating_sum)
            VALUES (\(change.tourId), \(Int32(change.delta.count)), \(Int32(change.delta.sum)))
            ON CONFLICT (tour_id) DO UPDATE SET rating_count = \(unescaped: pending).rating_count + excluded.rating_count,
                rating_sum = \(unescaped: pending).rating_sum + excluded.rating_sum
            """, logger: connection.logger)
    }

    static func takePending(_ tourId: UUID, _ connection: PostgresConnection, _ t: ProjectionTables) async throws -> TourRating? {
        let delete: PostgresQuery = "DELETE FROM \(unescaped: t("tour_rating_pending")) WHERE tour_id = \(tourId) RETURNING rating_count, rating_sum"
        for try await (count, sum) in try await connection.query(delete, logger: connection.logger).decode((Int32, Int32).self) {
            return TourRating(count: Int(count), sum: Int(sum))
        }
        return nil
    }
}

/// How ownership moves a tour's popularity (the `popularity` sort and popular destinations): a completed purchase or a
/// free acquisition adds one, a refund takes it back. A purchase needs a listed tour, so in the service's one log the
/// tour's row exists by then.
enum DiscoveryPopularityFold {
    enum Event: Sendable {
        case completed(PurchaseCompleted)
        case acquired(TourAcquired)
        case refunded(PurchaseRefunded)
    }

    static let types = EventTypeMap<Event>()
        .registering(PurchaseCompleted.self) { .completed($0) }
        .registering(TourAcquired.self) { .acquired($0) }
        .registering(PurchaseRefunded.self) { .refunded($0) }

    static func change(_ envelope: EventEnvelope) throws -> (UUID, Int)? {
        switch try types.decode(envelope) {
        case .completed(let e)?: (e.tourId, 1)
        case .acquired(let e)?: (e.tourId, 1)
        case .refunded(let e)?: (e.tourId, -1)
        case nil: nil
        }
    }
}

extension TourRating {
    /// This rating with another's count and sum added (a change may be negative).
    func adding(_ other: TourRating) -> TourRating {
        TourRating(count: count + other.count, sum: sum + other.sum)
    }
}

/// The discovery read model on SQLite: `tour_search` rows, an FTS5 index over folded title, description and stop
/// names (`tour_text`, rowid = `doc_id`), and an R*Tree over first stops (`tour_start`).
public struct SQLiteDiscoveryProjection: SQLiteProjection {
    /// The event types it applies: a commit of others (a `TourViewed` per catalogue view) neither wakes nor feeds it.
    public var eventTypes: Set<String>? { DiscoveryFold.eventTypes }

    public let name = "discovery"
    public let tables = ["tour_search", "tour_text", "tour_start", "tour_rating_pending", "tour_document", "tour_terms", "tour_language",
                         "tour_words"]
    /// 2: summary column, the document in `tour_document`, destination indexes per sort; 3: `tour_terms` (tours per word,
    /// for the broad-query estimate) and `tour_language` (rare languages without a scan); 4: each tour's words in the narrow
    /// `tour_words` (broad queries probe them row by row instead of collecting every FTS5 match).
    /// `tour_rating_pending` is made here only (no longer on the event path): every version-4 schema was created with it,
    /// so existing databases open unchanged without a new version.
    public let schemaVersion = 4

    public init() {}

    public func createTables(_ db: Database, _ t: ProjectionTables) throws {
        try db.execute(sql: """
            CREATE TABLE \(t("tour_document")) (doc_id INTEGER PRIMARY KEY, document TEXT NOT NULL);
            CREATE TABLE \(t("tour_words")) (doc_id INTEGER PRIMARY KEY, words TEXT NOT NULL);
            CREATE TABLE \(t("tour_terms")) (term TEXT PRIMARY KEY, docs INTEGER NOT NULL) WITHOUT ROWID;
            CREATE TABLE \(t("tour_language")) (lang TEXT NOT NULL, doc_id INTEGER NOT NULL, PRIMARY KEY (lang, doc_id)) WITHOUT ROWID;
            CREATE TABLE \(t("tour_search")) (
                doc_id INTEGER PRIMARY KEY, tour_id TEXT NOT NULL UNIQUE, guide_id TEXT NOT NULL, listed INTEGER NOT NULL,
                title TEXT NOT NULL, destination_id INTEGER NOT NULL, theme_mask INTEGER NOT NULL, languages TEXT NOT NULL,
                price_minor INTEGER NOT NULL, currency TEXT NOT NULL, estimated_minutes INTEGER NOT NULL, mode TEXT NOT NULL,
                start_lat REAL NOT NULL, start_lng REAL NOT NULL, rating_count INTEGER NOT NULL, rating_sum INTEGER NOT NULL,
                rating_avg REAL, rating_bayes REAL NOT NULL, popularity INTEGER NOT NULL,
                first_published_at_us INTEGER NOT NULL, published_at_us INTEGER NOT NULL, summary TEXT NOT NULL);
            CREATE INDEX \(t.index("tour_search_destination_popularity")) ON \(t("tour_search")) (destination_id, popularity DESC, tour_id);
            CREATE INDEX \(t.index("tour_search_destination_rating")) ON \(t("tour_search")) (destination_id, rating_bayes DESC, tour_id);
            CREATE INDEX \(t.index("tour_search_rating")) ON \(t("tour_search")) (rating_bayes DESC, tour_id);
            CREATE INDEX \(t.index("tour_search_popularity")) ON \(t("tour_search")) (popularity DESC, tour_id);
            CREATE INDEX \(t.index("tour_search_newest")) ON \(t("tour_search")) (first_published_at_us DESC, tour_id);
            CREATE INDEX \(t.index("tour_search_price")) ON \(t("tour_search")) (price_minor, tour_id);
            CREATE VIRTUAL TABLE \(t("tour_text")) USING fts5(title, description, stops, tokenize = 'unicode61 remove_diacritics 2');
            CREATE VIRTUAL TABLE \(t("tour_start")) USING rtree(id, min_lat, max_lat, min_lng, max_lng);
            CREATE TABLE \(t("tour_rating_pending")) (tour_id TEXT PRIMARY KEY, rating_count INTEGER NOT NULL, rating_sum INTEGER NOT NULL);
            """)
    }

    public func apply(_ event: EventEnvelope, _ db: Database, _ t: ProjectionTables) throws {
        if let rating = try DiscoveryRatingFold.change(event) { return try DiscoveryRatingFold.apply(rating, db, t) }
        if let (tour, delta) = try DiscoveryPopularityFold.change(event) {
            return try db.execute(sql: "UPDATE \(t("tour_search")) SET popularity = popularity + ? WHERE tour_id = ?",
                                  arguments: [delta, tour.uuidString.lowercased()])
        }
        guard let decoded = try TourAggregate.eventTypes.decode(event) else { return }
        switch DiscoveryFold.change(for: decoded) {
        case .none:
            return
        case .unlist(let id):
            try db.execute(sql: "UPDATE \(t("tour_search")) SET listed = 0 WHERE tour_id = ?", arguments: [id.uuidString.lowercased()])
        case .publish(let e):
            let existing = try Row.fetchOne(db, sql: "SELECT * FROM \(t("tour_search")) WHERE tour_id = ?",
                                            arguments: [e.tourId.uuidString.lowercased()])
            let row = DiscoveryFold.row(e, existing: try existing.map(Self.hit), pending: try DiscoveryRatingFold.takePending(e.tourId, db, t))
            let docID: Int64? = existing?["doc_id"]
            try db.execute(sql: """
                INSERT INTO \(t("tour_search")) (doc_id, tour_id, guide_id, listed, title, destination_id, theme_mask, languages,
                    price_minor, currency, estimated_minutes, mode, start_lat, start_lng, rating_count, rating_sum, rating_avg,
                    rating_bayes, popularity, first_published_at_us, published_at_us, summary)
                VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (tour_id) DO UPDATE SET guide_id = excluded.guide_id, listed = 1, title = excluded.title,
                    destination_id = excluded.destination_id, theme_mask = excluded.theme_mask, languages = excluded.languages,
                    price_minor = excluded.price_minor, currency = excluded.currency, estimated_minutes = excluded.estimated_minutes,
                    mode = excluded.mode, start_lat = excluded.start_lat, start_lng = excluded.start_lng,
                    rating_count = excluded.rating_count, rating_sum = excluded.rating_sum, rating_avg = excluded.rating_avg,
                    rating_bayes = excluded.rating_bayes, published_at_us = excluded.published_at_us, summary = excluded.summary
                """, arguments: [
                    docID, row.tourId.uuidString.lowercased(), row.guideId.uuidString.lowercased(), row.details.title,
                    row.details.destinationId, DiscoveryFilter.mask(row.details.themes), row.languageList, row.details.price.amountMinor,
                    row.details.price.currency.code, row.details.estimatedMinutes, row.details.mode.rawValue, row.start.lat, row.start.lng,
                    row.rating.count, row.rating.sum, row.rating.average, row.rating.bayesian, row.popularity,
                    row.firstPublishedAt.microsecondsSince1970, row.publishedAt.microsecondsSince1970,
                    String(decoding: try PublishedTour.encoder.encode(row.summary), as: UTF8.self),
                ])
            let id = docID ?? db.lastInsertedRowID
            let oldTerms = try String.fetchOne(db, sql: "SELECT words FROM \(t("tour_words")) WHERE doc_id = ?", arguments: [id])
                .map { DiscoveryText.vocabulary(wordList: $0) } ?? []
            let newTerms = row.vocabulary
            try db.execute(sql: "INSERT OR REPLACE INTO \(t("tour_document")) (doc_id, document) VALUES (?, ?)",
                           arguments: [id, String(decoding: try PublishedTour.encoder.encode(row.document), as: UTF8.self)])
            try db.execute(sql: "INSERT OR REPLACE INTO \(t("tour_words")) (doc_id, words) VALUES (?, ?)",
                           arguments: [id, DiscoveryText.wordList(newTerms)])
            for term in oldTerms.subtracting(newTerms) {
                try db.execute(sql: "UPDATE \(t("tour_terms")) SET docs = docs - 1 WHERE term = ?", arguments: [term])
            }
            let add = try db.makeStatement(sql: """
                INSERT INTO \(t("tour_terms")) (term, docs) VALUES (?, 1) ON CONFLICT (term) DO UPDATE SET docs = docs + 1
                """)
            for term in newTerms.subtracting(oldTerms) { try add.execute(arguments: [term]) }
            try db.execute(sql: "DELETE FROM \(t("tour_language")) WHERE doc_id = ?", arguments: [id])
            for language in row.primaryLanguages {
                try db.execute(sql: "INSERT INTO \(t("tour_language")) (lang, doc_id) VALUES (?, ?)", arguments: [language, id])
            }
            let text = row.searchText
            try db.execute(sql: "DELETE FROM \(t("tour_text")) WHERE rowid = ?", arguments: [id])
            try db.execute(sql: "INSERT INTO \(t("tour_text")) (rowid, title, description, stops) VALUES (?, ?, ?, ?)",
                           arguments: [id, text.title, text.description, text.stops])
            try db.execute(sql: "INSERT OR REPLACE INTO \(t("tour_start")) (id, min_lat, max_lat, min_lng, max_lng) VALUES (?, ?, ?, ?, ?)",
                           arguments: [id, row.start.lat, row.start.lat, row.start.lng, row.start.lng])
        }
    }

    /// A whole row with its `document` (joined from `tour_document`).
    static func tour(_ row: Row) throws -> PublishedTour {
        let document = try PublishedTour.decoder.decode(PublishedTour.Document.self, from: Data((row["document"] as String).utf8))
        return PublishedTour(tourId: UUID(uuidString: row["tour_id"])!, document: document, listed: row["listed"],
                             firstPublishedAt: Date(microsecondsSince1970: row["first_published_at_us"]),
                             publishedAt: Date(microsecondsSince1970: row["published_at_us"]),
                             rating: TourRating(count: row["rating_count"], sum: row["rating_sum"]), popularity: row["popularity"])
    }

    /// A row from its `summary` (search hits).
    static func hit(_ row: Row) throws -> PublishedTour {
        let summary = try PublishedTour.summary(from: row["summary"])
        return PublishedTour(tourId: UUID(uuidString: row["tour_id"])!, summary: summary, listed: row["listed"],
                             firstPublishedAt: Date(microsecondsSince1970: row["first_published_at_us"]),
                             publishedAt: Date(microsecondsSince1970: row["published_at_us"]),
                             rating: TourRating(count: row["rating_count"], sum: row["rating_sum"]), popularity: row["popularity"])
    }
}

/// The discovery read model on PostgreSQL/PostGIS: `tour_search` rows with a weighted `tsvector` (GIN) over the same
/// folded text and a `geography` first stop (GiST).
public struct PostgresDiscoveryProjection: PostgresProjection {
    /// The event types it applies: a commit of others (a `TourViewed` per catalogue view) neither wakes nor feeds it.
    public var eventTypes: Set<String>? { DiscoveryFold.eventTypes }

    public let name = "discovery"
    public let tables = ["tour_search", "tour_rating_pending", "tour_terms"]
    /// 2: summary column, destination indexes per sort, GIN without a pending list; 3: `tour_terms` (tours per word);
    /// 4: `words` (the tour's words as one string, probed by broad queries) instead of the `terms` array.
    /// `tour_rating_pending` is made here only (no longer on the event path): every version-4 schema was created with it,
    /// so existing databases open unchanged without a new version.
    public let schemaVersion = 4

    public init() {}

    public func createTables(_ connection: PostgresConnection, _ t: ProjectionTables) async throws {
        for statement in [
            // Operators' databases get PostGIS from deploy/'s init script; this names the dependency and creates it where the
            // role may.
            "CREATE EXTENSION IF NOT EXISTS postgis",
            """
            CREATE TABLE \(t("tour_search")) (
                tour_id uuid PRIMARY KEY, guide_id uuid NOT NULL, listed boolean NOT NULL, title text NOT NULL,
                destination_id bigint NOT NULL, theme_mask bigint NOT NULL, languages text NOT NULL, price_minor bigint NOT NULL,
                currency text NOT NULL, estimated_minutes int NOT NULL, mode text NOT NULL,
                start_lat double precision NOT NULL, start_lng double precision NOT NULL, start_geog geography(Point, 4326) NOT NULL,
                rating_count int NOT NULL, rating_sum int NOT NULL, rating_avg double precision, rating_bayes double precision NOT NULL,
                popularity int NOT NULL, first_published_at_us bigint NOT NULL, published_at_us bigint NOT NULL,
                search tsvector NOT NULL, summary text NOT NULL, document text NOT NULL, words text NOT NULL)
            """,
            "CREATE TABLE \(t("tour_terms")) (term text PRIMARY KEY, docs int NOT NULL)",
            "CREATE INDEX \(t.index("tour_search_destination_popularity")) ON \(t("tour_search")) (destination_id, popularity DESC, tour_id)",
            "CREATE INDEX \(t.index("tour_search_destination_rating")) ON \(t("tour_search")) (destination_id, rating_bayes DESC, tour_id)",
            "CREATE INDEX \(t.index("tour_search_rating")) ON \(t("tour_search")) (rating_bayes DESC, tour_id)",
            "CREATE INDEX \(t.index("tour_search_popularity")) ON \(t("tour_search")) (popularity DESC, tour_id)",
            "CREATE INDEX \(t.index("tour_search_newest")) ON \(t("tour_search")) (first_published_at_us DESC, tour_id)",
            "CREATE INDEX \(t.index("tour_search_price")) ON \(t("tour_search")) (price_minor, tour_id)",
            // No pending list: entries go into the index at once, so a fresh load does not make every text search a
            // sequential scan until vacuum merges the list.
            "CREATE INDEX \(t.index("tour_search_text")) ON \(t("tour_search")) USING gin (search) WITH (fastupdate = off)",
            "CREATE INDEX \(t.index("tour_search_start")) ON \(t("tour_search")) USING gist (start_geog)",
            "CREATE TABLE \(t("tour_rating_pending")) (tour_id uuid PRIMARY KEY, rating_count int NOT NULL, rating_sum int NOT NULL)",
        ] {
            try await connection.query("\(unescaped: statement)", logger: connection.logger)
        }
    }

    /// The columns of a search hit (`hit(_:)`); a whole row adds `document` (`tour(_:)`).
    static let columns = """
        tour_id, listed, first_published_at_us, published_at_us, rating_count, rating_sum, popularity, summary
        """

    public func apply(_ event: EventEnvelope, _ connection: PostgresConnection, _ t: ProjectionTables) async throws {
        if let rating = try DiscoveryRatingFold.change(event) { return try await DiscoveryRatingFold.apply(rating, connection, t) }
        if let (tour, delta) = try DiscoveryPopularityFold.change(event) {
            try await connection.query("UPDATE \(unescaped: t("tour_search")) SET popularity = popularity + \(Int32(delta)) WHERE tour_id = \(tour)",
                                       logger: connection.logger)
            return
        }
        guard let decoded = try TourAggregate.eventTypes.decode(event) else { return }
        switch DiscoveryFold.change(for: decoded) {
        case .none:
            return
        case .unlist(let id):
            try await connection.query("UPDATE \(unescaped: t("tour_search")) SET listed = false WHERE tour_id = \(id)", logger: connection.logger)
        case .publish(let e):
            let select: PostgresQuery = "SELECT \(unescaped: Self.columns) FROM \(unescaped: t("tour_search")) WHERE tour_id = \(e.tourId)"
            var existing: PublishedTour?
            for try await found in try await connection.query(select, logger: connection.logger) { existing = try Self.hit(found) }
            let row = DiscoveryFold.row(e, existing: existing, pending: try await DiscoveryRatingFold.takePending(e.tourId, connection, t))
            let text = row.searchText
            let summary = String(decoding: try PublishedTour.encoder.encode(row.summary), as: UTF8.self)
            let document = String(decoding: try PublishedTour.encoder.encode(row.document), as: UTF8.self)
            let newTerms = row.vocabulary
            let details = row.details
            let query: PostgresQuery = """
                INSERT INTO \(unescaped: t("tour_search")) (tour_id, guide_id, listed, title, destination_id, theme_mask, languages, price_minor,
                    currency, estimated_minutes, mode, start_lat, start_lng, start_geog, rating_count, rating_sum, rating_avg,
                    rating_bayes, popularity, first_published_at_us, published_at_us, search, summary, document, words)
                VALUES (\(row.tourId), \(row.guideId), true, \(details.title), \(details.destinationId), \(DiscoveryFilter.mask(details.themes)),
                    \(row.languageList), \(details.price.amountMinor), \(details.price.currency.code), \(Int32(details.estimatedMinutes)),
                    \(details.mode.rawValue), \(row.start.lat), \(row.start.lng),
                    ST_SetSRID(ST_MakePoint(\(row.start.lng), \(row.start.lat)), 4326)::geography, \(Int32(row.rating.count)),
                    \(Int32(row.rating.sum)), \(row.rating.average), \(row.rating.bayesian), \(Int32(row.popularity)),
                    \(row.firstPublishedAt.microsecondsSince1970), \(row.publishedAt.microsecondsSince1970),
                    setweight(to_tsvector('simple', \(text.title)), 'A') || setweight(to_tsvector('simple', \(text.stops)), 'B')
                        || setweight(to_tsvector('simple', \(text.description)), 'C'), \(summary), \(document),
                    \(DiscoveryText.wordList(newTerms)))
                ON CONFLICT (tour_id) DO UPDATE SET guide_id = excluded.guide_id, listed = true, title = excluded.title,
                    destination_id = excluded.destination_id, theme_mask = excluded.theme_mask, languages = excluded.languages,
                    price_minor = excluded.price_minor, currency = excluded.currency, estimated_minutes = excluded.estimated_minutes,
                    mode = excluded.mode, start_lat = excluded.start_lat, start_lng = excluded.start_lng,
                    start_geog = excluded.start_geog, rating_count = excluded.rating_count, rating_sum = excluded.rating_sum,
                    rating_avg = excluded.rating_avg, rating_bayes = excluded.rating_bayes, published_at_us = excluded.published_at_us,
                    search = excluded.search, summary = excluded.summary, document = excluded.document, words = excluded.words
                """
            // The previous revision's words (before the upsert replaces them).
            let previous: PostgresQuery = "SELECT words FROM \(unescaped: t("tour_search")) WHERE tour_id = \(row.tourId)"
            var oldTerms: Set<String> = []
            for try await (words) in try await connection.query(previous, logger: connection.logger).decode(String.self) {
                oldTerms = DiscoveryText.vocabulary(wordList: words)
            }
            try await connection.query(query, logger: connection.logger)
            let removed = oldTerms.subtracting(newTerms).sorted(), added = newTerms.subtracting(oldTerms).sorted()
            if !removed.isEmpty {
                try await connection.query("UPDATE \(unescaped: t("tour_terms")) SET docs = docs - 1 WHERE term = ANY(\(removed))",
                                           logger: connection.logger)
            }
            if !added.isEmpty {
                try await connection.query("""
                    INSERT INTO \(unescaped: t("tour_terms")) (term, docs) SELECT unnest(\(added)::text[]), 1
                    ON CONFLICT (term) DO UPDATE SET docs = \(unescaped: t("tour_terms")).docs + 1
                    """, logger: connection.logger)
            }
        }
    }

    /// A whole row: ``columns`` then `document`.
    static func tour(_ row: PostgresRow) throws -> PublishedTour {
        let (id, listed, first, published, count, sum, popularity, _, document) = try row.decode(
            (UUID, Bool, Int64, Int64, Int32, Int32, Int32, String, String).self)
        return PublishedTour(tourId: id, document: try PublishedTour.decoder.decode(PublishedTour.Document.self, from: Data(document.utf8)),
                             listed: listed, firstPublishedAt: Date(microsecondsSince1970: first),
                             publishedAt: Date(microsecondsSince1970: published), rating: TourRating(count: Int(count), sum: Int(sum)),
                             popularity: Int(popularity))
    }

    /// A search hit: ``columns`` (the summary).
    static func hit(_ row: PostgresRow) throws -> PublishedTour {
        let (id, listed, first, published, count, sum, popularity, summary) = try row.decode(
            (UUID, Bool, Int64, Int64, Int32, Int32, Int32, String).self)
        return PublishedTour(tourId: id, summary: try PublishedTour.summary(from: summary),
                             listed: listed, firstPublishedAt: Date(microsecondsSince1970: first),
                             publishedAt: Date(microsecondsSince1970: published), rating: TourRating(count: Int(count), sum: Int(sum)),
                             popularity: Int(popularity))
    }
}
