import Crypto
import EventSourcing
import Foundation
import Messaging

/// How a batch of one topic's events becomes statements — shared by the SQLite and PostgreSQL targets
/// (``SQLiteAnalyticsTarget``, ``PostgresAnalyticsTarget``), so both backends execute the same plan:
///
/// 1. **Dedupe** (`analytics_inbox`: the last applied version per source stream, keyed by a hash of source and stream
///    id — stream ids such as `access-<tour>-<user>` embed user ids, the hash does not): an event at or below its
///    stream's version, stored or seen earlier in the batch, is skipped.
/// 2. **Decode** the new events (``AnalyticsEvents``; read before the transaction, ``prepare(_:)``); the first one that
///    cannot be read fails the batch.
/// 3. **Fold** them in order (``AnalyticsFold``) against the erasure tombstones, and aggregate what commutes: counter
///    increments summed per key, the viewer set deduplicated, each guide's activity cut to its 50 newest (one trim per
///    guide). Order-sensitive writes (tour details, unlisting) keep their place; an erasure first flushes everything
///    pending, so that it rewrites those rows too, and later events of the batch see its tombstone. The result equals
///    applying the events one by one (a test compares it with the kernel's per-event target and handler).
/// 4. The touched streams' versions are written once each.
enum AnalyticsBatch {
    /// The dedupe key of a source stream: the first 128 bits of SHA-256 of `source`, a newline and the stream id, hex.
    static func streamKey(source: String, stream: String) -> String {
        var hasher = SHA256()
        var source = source, stream = stream
        source.withUTF8 { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
        withUnsafeBytes(of: UInt8(0x0A)) { hasher.update(bufferPointer: $0) }
        stream.withUTF8 { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
        return hex(hasher.finalize().prefix(16))
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(32)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A new event of the batch and what it says.
    struct Decoded {
        var event: PublishedEvent
        var key: String
        var fact: AnalyticsFact?
    }

    /// A batch's events with their stream keys and what each says — pure work, done before the transaction opens and
    /// spread over the cores (hashing and reading payloads was a fifth of the ingest, measured), so the writer holds
    /// its lock only for the database work.
    struct Prepared: Sendable {
        /// What reading one event gave: its fact (`nil` for a type analytics ignores), or why it cannot be read.
        enum Reading: Sendable, Equatable {
            case fact(AnalyticsFact?)
            case unreadable(String)
        }

        let events: [PublishedEvent]
        let keys: [String]
        let readings: [Reading]
    }

    /// Fewest events a parallel chunk of ``prepare(_:)`` gets; smaller batches are read on the calling task.
    static let chunkSize = 4_096

    /// Computes the stream key and reads the payload of every event of `events`, in chunks run concurrently.
    static func prepare(_ events: [PublishedEvent]) async -> Prepared {
        let parts: [[(String, Prepared.Reading)]]
        if events.count < 2 * chunkSize {
            parts = [read(events[...])]
        } else {
            let chunks = max(2, min(ProcessInfo.processInfo.activeProcessorCount, events.count / chunkSize))
            let size = (events.count + chunks - 1) / chunks
            parts = await withTaskGroup(of: (Int, [(String, Prepared.Reading)]).self) { group in
                for (index, start) in stride(from: 0, to: events.count, by: size).enumerated() {
                    let slice = events[start..<min(start + size, events.count)]
                    group.addTask { (index, read(slice)) }
                }
                var parts = [[(String, Prepared.Reading)]](repeating: [], count: chunks)
                for await (index, part) in group { parts[index] = part }
                return parts
            }
        }
        let joined = parts.joined()
        return Prepared(events: events, keys: joined.map(\.0), readings: joined.map(\.1))
    }

    /// The same on the calling thread.
    static func prepareHere(_ events: [PublishedEvent]) -> Prepared {
        let readings = read(events[...])
        return Prepared(events: events, keys: readings.map(\.0), readings: readings.map(\.1))
    }

    /// The stream key and the reading of each event of `slice`.
    private static func read(_ slice: ArraySlice<PublishedEvent>) -> [(String, Prepared.Reading)] {
        slice.map { event in
            let key = streamKey(source: event.source, stream: event.streamID)
            do {
                return (key, .fact(try AnalyticsEvents.fact(event)))
            } catch {
                return (key, .unreadable("\(error)"))
            }
        }
    }

    /// The events of `batch` that are new given the stored `versions` (by stream key), in order; and the last version
    /// per touched stream key. The first new event that cannot be read fails the batch (one already applied cannot).
    static func decode(_ batch: Prepared, versions stored: [String: Int64]) throws -> (decoded: [Decoded], versions: [String: Int64]) {
        var versions = stored
        var touched: [String: Int64] = [:]
        var decoded: [Decoded] = []
        decoded.reserveCapacity(batch.events.count)
        for index in batch.events.indices {
            let event = batch.events[index], key = batch.keys[index]
            guard event.streamVersion > versions[key] ?? 0 else { continue }
            versions[key] = event.streamVersion
            touched[key] = event.streamVersion
            switch batch.readings[index] {
            case .fact(let fact): decoded.append(Decoded(event: event, key: key, fact: fact))
            case .unreadable(let reason): throw EventFailure(event: event, reason: reason)
            }
        }
        return (decoded, touched)
    }

    /// The ids whose tombstones the fold needs.
    static func idsToCheck(_ decoded: [Decoded]) -> Set<String> {
        var ids: Set<String> = []
        for item in decoded {
            if let fact = item.fact { ids.formUnion(AnalyticsFold.idsToCheck(fact)) }
        }
        return ids
    }

    /// The statements for the decoded events, given the ids whose tombstones exist, followed by the inbox writes.
    static func plan(_ decoded: [Decoded], erased stored: Set<String>, inbox: [String: Int64]) -> [AnalyticsWrite] {
        var erased = stored
        var pending = Pending()
        var statements: [AnalyticsWrite] = []
        for item in decoded {
            guard let fact = item.fact else { continue }
            // Almost always nothing is erased: then no per-event set is built.
            let relevant = erased.isEmpty ? [] : erased.intersection(AnalyticsFold.idsToCheck(fact))
            let writes = AnalyticsFold.writes(fact, eventID: item.event.eventID, erased: relevant)
            for write in writes {
                switch write.statement {
                case .eraseMark:
                    pending.flush(into: &statements)
                    statements.append(write)
                case .eraseActivity:
                    statements.append(write)
                    if case .text(let user?) = write.arguments[0] { erased.insert(user) }
                case .eraseViewers, .eraseViewerGuides, .eraseTours, .eraseTourDays, .eraseSales, .eraseRiderTrips, .tourDetails, .tourUnlisted,
                     .riderTrip, .riderTripDelete, .reviewDecision:
                    // Order-sensitive (a trip written, then deleted) or rare: in their place.
                    statements.append(write)
                default:
                    pending.add(write)
                }
            }
        }
        pending.flush(into: &statements)
        // The dedupe records in key order too (see ``KeyPlace``).
        for key in KeyPlace.sorted(inbox.keys) {
            statements.append(AnalyticsWrite(statement: .inboxWrite, arguments: [.text(key), .int(inbox[key]!)]))
        }
        return statements
    }

    /// The commutative writes not yet flushed.
    struct Pending {
        private var dayIndex: [DayRowKey: Int] = [:]
        private var days: [(key: DayRowKey, counters: Counters)] = []
        private var salesIndex: [DayRowKey: Int] = [:]
        private var sales: [(key: DayRowKey, counters: Counters)] = []
        private var ratings: [String: (guide: String, sum: Int64, count: Int64)] = [:]
        private var ratingOrder: [String] = []
        private var registrations: [AnalyticsWrite] = []
        /// The bike counters' increments per day (in ``BikeCounter`` order), days in first-seen order.
        private var bikeDays: [Int64: [Int64]] = [:]
        private var bikeDayOrder: [Int64] = []
        private var viewers: [AnalyticsWrite] = []
        private var viewerKeys: [DayRowKey] = []
        private var viewerSet: Set<DayRowKey> = []
        private var activity: [String: [[SQLArg]]] = [:]
        private var activityOrder: [String] = []

        mutating func add(_ write: AnalyticsWrite) {
            let a = write.arguments
            switch write.statement {
            case .tourDay:
                let key = DayRowKey(guide: a[0].string, day: a[1].integer, tour: a[2].string)
                let index = Self.slot(of: key, in: &dayIndex, next: days.count)
                if index == days.count { days.append((key, Counters())) }
                days[index].counters.add(a, from: 3)
            case .sales:
                let key = DayRowKey(guide: a[0].string, day: a[1].integer, tour: a[2].string, detail: a[3].string)
                let index = Self.slot(of: key, in: &salesIndex, next: sales.count)
                if index == sales.count { sales.append((key, Counters())) }
                sales[index].counters.add(a, from: 4)
            case .viewer:
                let key = DayRowKey(guide: a[0].string, day: a[1].integer, tour: a[2].string, detail: a[3].string)
                if viewerSet.insert(key).inserted {
                    viewers.append(write)
                    viewerKeys.append(key)
                }
            case .activity:
                let guide = a[0].string
                if activity[guide] == nil { activityOrder.append(guide) }
                activity[guide, default: []].append(a)
            case .tourRating:
                let tour = a[0].string
                if let current = ratings[tour] {
                    ratings[tour] = (current.guide, current.sum + a[2].integer, current.count + a[3].integer)
                } else {
                    ratings[tour] = (a[1].string, a[2].integer, a[3].integer)
                    ratingOrder.append(tour)
                }
            case .registration:
                registrations.append(write)
            case .bikeDay:
                let day = a[0].integer
                if bikeDays[day] == nil {
                    bikeDays[day] = Array(repeating: 0, count: a.count - 1)
                    bikeDayOrder.append(day)
                }
                for index in 1..<a.count { bikeDays[day]![index - 1] += a[index].integer }
            default:
                break  // activity trims are one per guide at flush; lookups are not writes
            }
        }

        /// The position of `key` in `index`, inserting `next` when it is new — with one hash lookup, not two.
        private static func slot<Key: Hashable>(of key: Key, in index: inout [Key: Int], next: Int) -> Int {
            func claim(_ slot: inout Int) -> Int {
                if slot < 0 { slot = next }
                return slot
            }
            return claim(&index[key, default: -1])
        }

        /// Appends one statement per pending key and clears. Each table's rows go in (about) its primary-key order,
        /// ``KeyPlace``; plans stay deterministic.
        mutating func flush(into statements: inout [AnalyticsWrite]) {
            for index in KeyPlace.order(days.map(\.key)) {
                let (key, counters) = days[index]
                statements.append(AnalyticsWrite(statement: .tourDay,
                                                 arguments: [.text(key.guide), .int(key.day), .text(key.tour)] + counters.arguments(7)))
            }
            for index in KeyPlace.order(sales.map(\.key)) {
                let (key, counters) = sales[index]
                statements.append(AnalyticsWrite(statement: .sales, arguments: [
                    .text(key.guide), .int(key.day), .text(key.tour), .text(key.detail),
                ] + counters.arguments(8)))
            }
            for index in KeyPlace.order(viewerKeys) { statements.append(viewers[index]) }
            for tour in ratingOrder {
                let rating = ratings[tour]!
                statements.append(AnalyticsWrite(statement: .tourRating, arguments: [.text(tour), .text(rating.guide), .int(rating.sum),
                                                                                    .int(rating.count)]))
            }
            statements += registrations
            for day in bikeDayOrder {
                statements.append(AnalyticsWrite(statement: .bikeDay, arguments: [.int(day)] + bikeDays[day]!.map { .int($0) }))
            }
            for guide in activityOrder {
                // Only the batch's 50 newest can be among the guide's 50 newest.
                let newest = activity[guide]!.sorted { ($0[1].integer, $0[2].string) > ($1[1].integer, $1[2].string) }
                    .prefix(AnalyticsSchema.activityLimit)
                statements += newest.map { AnalyticsWrite(statement: .activity, arguments: $0) }
                statements.append(AnalyticsWrite(statement: .activityTrim, arguments: [.text(guide)]))
            }
            self = Pending()
        }
    }
}

/// An event of a batch that cannot be applied, and why (the batch rolls back; see the targets).
struct EventFailure: Error, CustomStringConvertible {
    var event: PublishedEvent
    var reason: String
    var description: String {
        "cannot apply \(event.source) event \(event.eventType) (stream \(event.streamID) v\(event.streamVersion)): \(reason)"
    }
}

/// The key of a pending aggregate row: a guide's tour on a UTC day, and for sales the currency, for the viewer set the
/// viewer (empty for tour days).
struct DayRowKey: Hashable {
    var guide: String
    var day: Int64
    var tour: String
    var detail: String = ""

    func hash(into hasher: inout Hasher) {
        hasher.combine(day)
        IDTail.combine(guide, into: &hasher)
        IDTail.combine(tour, into: &hasher)
        IDTail.combine(detail, into: &hasher)
    }
}

/// About where a key sits in its table's primary-key order (guide, day, tour, …): the first 8 bytes of the guide id,
/// the day and the first 8 bytes of the tour id, compared as numbers. A part's writes go in this order, so SQLite walks
/// each B-tree leaf after leaf instead of jumping between random pages of trees larger than the CPU's caches — measured
/// at a million events, the writer's statements ~25 % faster than in first-seen order. Sorting these plain values costs the planner
/// ~1 ms a part (sorting the keys themselves, strings and all, cost it more than the writer saved). Ties (ids sharing 8
/// bytes) keep first-seen order: the order changes where SQLite looks, never what it writes (the writes commute).
struct KeyPlace: Comparable {
    var guide: UInt64
    var day: Int64
    var tour: UInt64
    var index: Int

    static func < (lhs: KeyPlace, rhs: KeyPlace) -> Bool {
        (lhs.guide, lhs.day, lhs.tour, lhs.index) < (rhs.guide, rhs.day, rhs.tour, rhs.index)
    }

    /// The indices of `keys` in key order.
    static func order(_ keys: [DayRowKey]) -> [Int] {
        keys.enumerated().map { KeyPlace(guide: prefix($1.guide), day: $1.day, tour: prefix($1.tour), index: $0) }.sorted().map(\.index)
    }

    /// `keys` (single-column text keys) in the order of their first 8 bytes.
    static func sorted(_ keys: some Collection<String>) -> [String] {
        keys.map { (prefix($0), $0) }.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// The first 8 UTF-8 bytes of `text` as a big-endian number (zero-padded), so numbers compare as the bytes do.
    static func prefix(_ text: String) -> UInt64 {
        var text = text
        return text.withUTF8 { bytes in
            var value: UInt64 = 0
            for offset in 0..<8 { value = value << 8 | (offset < bytes.count ? UInt64(bytes[offset]) : 0) }
            return value
        }
    }
}

/// Hashing an id by its length and last 16 bytes: ids are UUIDs (their tails random) or `user:`/`client:` plus one, so
/// the tail tells keys apart as well as the whole string, at a fraction of the cost — hashing whole ids was a fifth of
/// planning a batch (measured). Equality still compares whole strings, so only the spread of hashes depends on this.
enum IDTail {
    static func combine(_ id: String, into hasher: inout Hasher) {
        var id = id
        id.withUTF8 { bytes in
            hasher.combine(bytes.count)
            hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes.suffix(16))))
        }
    }
}

/// Up to 8 counter increments, summed without allocating.
struct Counters {
    var values: (Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64) = (0, 0, 0, 0, 0, 0, 0, 0)

    mutating func add(_ arguments: [SQLArg], from start: Int) {
        withUnsafeMutableBytes(of: &values) { raw in
            let counters = raw.bindMemory(to: Int64.self)
            for index in start..<min(arguments.count, start + 8) { counters[index - start] += arguments[index].integer }
        }
    }

    func arguments(_ count: Int) -> [SQLArg] {
        withUnsafeBytes(of: values) { raw in
            let counters = raw.bindMemory(to: Int64.self)
            return (0..<count).map { .int(counters[$0]) }
        }
    }
}

extension SQLArg {
    var integer: Int64 {
        if case .int(let value?) = self { return value }
        return 0
    }

    var string: String {
        if case .text(let value?) = self { return value }
        return ""
    }
}
