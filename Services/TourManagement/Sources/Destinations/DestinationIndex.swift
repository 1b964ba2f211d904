import Foundation
import Geo
import ReferenceData
import Synchronization

/// A city of the gazetteer: a destination tours belong to.
public struct City: Sendable, Hashable, Codable {
    /// GeoNames id (the gazetteer's `_id`).
    public var id: Int64
    public var name: String
    /// ISO 3166-1 alpha-2; empty for a few entries.
    public var country: String
    public var coordinate: Coordinate

    public init(id: Int64, name: String, country: String, coordinate: Coordinate) {
        self.id = id
        self.name = name
        self.country = country
        self.coordinate = coordinate
    }
}

/// How destination names are compared: ReferenceData's ``NameKey`` (case- and diacritic-insensitive, with the letters
/// Unicode does not decompose folded by hand), the one folding of names in Waypoint.
public enum DestinationName {
    /// The search key of `name`.
    public static func key(_ name: String) -> String {
        NameKey.key(name)
    }
}

/// The destination search index, held in memory: all 209,579 cities sorted by their search key, so a prefix is one
/// binary search and a contiguous range; plus a 1° grid for "nearest cities".
///
/// Ranking of a prefix search: exact matches first, then cities with more published tours, then by name. Cities with
/// tours are few, so they are found by scanning the tour counts (not the range), and the rest of the page is the first
/// names of the range: a one-letter prefix costs the same as a long one.
public final class DestinationIndex: Sendable {
    /// Every city, in gazetteer order (its position is its index everywhere below).
    public let cities: [City]
    /// Search keys, concatenated UTF-8, in key order; `keyOffsets[i]..<keyOffsets[i+1]` is the i-th sorted key.
    private let keyBytes: [UInt8]
    private let keyOffsets: [UInt32]
    /// City index of the i-th sorted key.
    private let sortedCities: [UInt32]
    /// Sorted position of each city (for comparing a city's key with a prefix).
    private let positionOfCity: [UInt32]
    /// 1° × 1° cells (row-major from latitude −90, longitude −180) → city indices.
    private let cellStart: [UInt32]
    private let cellCities: [UInt32]
    private let counts = Mutex(Counts())

    struct Counts: Sendable {
        var publishedTours: [UInt32: Int] = [:]
        var completedPurchases: [UInt32: Int] = [:]
        /// The log position the counts include (read from their read models before counting).
        var position: Int64 = 0
    }

    /// Index position of a city id.
    private let indexOfID: [Int64: UInt32]

    public init(cities: [City]) {
        self.cities = cities
        let keys = cities.map { Array(DestinationName.key($0.name).utf8) }
        let order = keys.indices.sorted { a, b in
            let byKey = Self.compareBytes(keys[a], keys[b])
            return byKey != 0 ? byKey < 0 : cities[a].name < cities[b].name
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(keys.reduce(0) { $0 + $1.count })
        var offsets: [UInt32] = [0]
        offsets.reserveCapacity(cities.count + 1)
        var position = [UInt32](repeating: 0, count: cities.count)
        for (sortedIndex, city) in order.enumerated() {
            bytes.append(contentsOf: keys[city])
            offsets.append(UInt32(bytes.count))
            position[city] = UInt32(sortedIndex)
        }
        keyBytes = bytes
        keyOffsets = offsets
        sortedCities = order.map { UInt32($0) }
        positionOfCity = position
        var cells = [[UInt32]](repeating: [], count: 180 * 360)
        for (index, city) in cities.enumerated() {
            cells[Self.cell(city.coordinate)].append(UInt32(index))
        }
        var start: [UInt32] = [0]
        start.reserveCapacity(cells.count + 1)
        var flat: [UInt32] = []
        flat.reserveCapacity(cities.count)
        for cell in cells {
            flat.append(contentsOf: cell)
            start.append(UInt32(flat.count))
        }
        cellStart = start
        cellCities = flat
        indexOfID = Dictionary(cities.enumerated().map { ($0.element.id, UInt32($0.offset)) }, uniquingKeysWith: { first, _ in first })
    }

    /// The byte order of two keys (negative, 0, positive), as `lexicographicallyPrecedes` and `==` give it for bytes,
    /// by `memcmp`: a debug build compares element by element through generic iterators — seconds for the world's
    /// cities at every start of the service under test.
    static func compareBytes(_ a: [UInt8], _ b: [UInt8]) -> Int {
        let common = Swift.min(a.count, b.count)
        let order = common == 0 ? 0 : a.withUnsafeBufferPointer { x in
            b.withUnsafeBufferPointer { y in Int(memcmp(x.baseAddress!, y.baseAddress!, common)) }
        }
        return order != 0 ? order : a.count - b.count
    }

    // MARK: Counts

    /// Sets how many published tours a city has (maintained by the tours projection).
    public func setPublishedTours(_ count: Int, cityID: Int64) {
        guard let index = indexOfID[cityID] else { return }
        counts.withLock { $0.publishedTours[index] = count > 0 ? count : nil }
    }

    /// Sets how many completed purchases of a city's tours there are (maintained by the purchases projection).
    public func setCompletedPurchases(_ count: Int, cityID: Int64) {
        guard let index = indexOfID[cityID] else { return }
        counts.withLock { $0.completedPurchases[index] = count > 0 ? count : nil }
    }

    /// Replaces every published-tour count at once (from the tours read model).
    public func replacePublishedTours(_ counts: [Int64: Int]) {
        var byIndex: [UInt32: Int] = [:]
        for (cityID, count) in counts where count > 0 {
            if let index = indexOfID[cityID] { byIndex[index] = count }
        }
        self.counts.withLock { $0.publishedTours = byIndex }
    }

    /// Replaces every completed-purchase count at once (from the discovery read model's popularity).
    public func replaceCompletedPurchases(_ counts: [Int64: Int]) {
        var byIndex: [UInt32: Int] = [:]
        for (cityID, count) in counts where count > 0 {
            if let index = indexOfID[cityID] { byIndex[index] = count }
        }
        self.counts.withLock { $0.completedPurchases = byIndex }
    }

    /// Records the log position the counts now include (``TourMaintenance`` after a refresh): what destination answers
    /// report in `Waypoint-Position`, so the gateway's cache keeps no count older than a change it has seen.
    public func setCountsPosition(_ position: Int64) {
        counts.withLock { $0.position = max($0.position, position) }
    }

    /// The log position the counts include (0 before the first refresh).
    public var countsPosition: Int64 { counts.withLock { $0.position } }

    public func publishedTours(cityID: Int64) -> Int {
        guard let index = indexOfID[cityID] else { return 0 }
        return counts.withLock { $0.publishedTours[index] ?? 0 }
    }

    public func city(id: Int64) -> City? {
        indexOfID[id].map { cities[Int($0)] }
    }

    // MARK: Prefix search

    /// At most `limit` cities whose search key starts with the key of `prefix`: exact matches, then more published
    /// tours, then name.
    public func search(prefix: String, limit: Int = 50) -> [City] {
        let key = Array(DestinationName.key(prefix).utf8)
        guard !key.isEmpty, limit > 0 else { return [] }
        let lower = lowerBound(key)
        let upper = upperBound(forPrefix: key, from: lower)
        guard lower < upper else { return [] }
        // Exact matches sit at the start of the range.
        var exact: [UInt32] = []
        var position = lower
        while position < upper, keyEquals(position, key) {
            exact.append(sortedCities[position])
            position += 1
        }
        let tours = counts.withLock { $0.publishedTours }
        func tourCount(_ city: UInt32) -> Int { tours[city] ?? 0 }
        exact.sort { (tourCount($0), cities[Int($1)].name) > (tourCount($1), cities[Int($0)].name) }
        var result = Array(exact.prefix(limit))
        guard result.count < limit else { return result.map { cities[Int($0)] } }
        // Cities with tours inside the range, best first.
        let withTours = tours.keys.filter { city in
            let sorted = Int(positionOfCity[Int(city)])
            return sorted >= position && sorted < upper
        }.sorted { (tourCount($0), cities[Int($1)].name) > (tourCount($1), cities[Int($0)].name) }
        result.append(contentsOf: withTours.prefix(limit - result.count))
        // The rest by name (the range is in key order, names break ties).
        let chosen = Set(result)
        while result.count < limit, position < upper {
            let city = sortedCities[position]
            if !chosen.contains(city) { result.append(city) }
            position += 1
        }
        return result.map { cities[Int($0)] }
    }

    /// How many cities match a prefix (for tests and the benchmark's bookkeeping).
    public func count(prefix: String) -> Int {
        let key = Array(DestinationName.key(prefix).utf8)
        let lower = lowerBound(key)
        return upperBound(forPrefix: key, from: lower) - lower
    }

    /// Every distinct key prefix of `length` characters' worth of UTF-8 bytes that occurs (benchmark input).
    public func keys() -> [String] {
        (0..<sortedCities.count).map { String(decoding: key(at: $0), as: UTF8.self) }
    }

    private func key(at position: Int) -> ArraySlice<UInt8> {
        keyBytes[Int(keyOffsets[position])..<Int(keyOffsets[position + 1])]
    }

    private func keyEquals(_ position: Int, _ key: [UInt8]) -> Bool {
        self.key(at: position).elementsEqual(key)
    }

    /// First sorted position whose key is not less than `key`.
    private func lowerBound(_ key: [UInt8]) -> Int {
        var low = 0, high = sortedCities.count
        while low < high {
            let middle = (low + high) / 2
            if self.key(at: middle).lexicographicallyPrecedes(key) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// First sorted position at or after `start` whose key does not start with `prefix`.
    private func upperBound(forPrefix prefix: [UInt8], from start: Int) -> Int {
        var low = start, high = sortedCities.count
        while low < high {
            let middle = (low + high) / 2
            if self.key(at: middle).starts(with: prefix) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    // MARK: Popular and nearest

    /// Cities by published tours, then completed purchases, then name; only cities with tours or purchases.
    public func popular(limit: Int = 50) -> [(city: City, publishedTours: Int, completedPurchases: Int)] {
        let snapshot = counts.withLock { $0 }
        let candidates = Set(snapshot.publishedTours.keys).union(snapshot.completedPurchases.keys)
        return candidates.map { (Int($0), snapshot.publishedTours[$0] ?? 0, snapshot.completedPurchases[$0] ?? 0) }
            .sorted { ($0.1, $0.2, cities[$1.0].name) > ($1.1, $1.2, cities[$0.0].name) }
            .prefix(limit)
            .map { (cities[$0.0], $0.1, $0.2) }
    }

    /// The `limit` cities nearest to `coordinate` (great-circle), nearest first, with their distance in metres.
    public func nearest(to coordinate: Coordinate, limit: Int = 10) -> [(city: City, metres: Double)] {
        guard limit > 0, !cities.isEmpty else { return [] }
        let centerRow = Self.row(coordinate.latitude), centerColumn = Self.column(coordinate.longitude)
        var best: [(UInt32, Double)] = []
        var visited = Set<Int>()
        // Rings of cells around the centre. Every city outside rings 0…r−1 is at least r − 1 degrees of latitude away,
        // or r − 1 degrees of longitude at a latitude no nearer the equator than |lat| + r: once the k-th best is
        // nearer than that bound, no farther ring can improve the answer (near the poles the bound shrinks and more
        // rings are read, never fewer than needed).
        for ring in 0...360 {
            if best.count >= limit, let worst = best.last?.1 {
                let steps = Double(max(0, ring - 1))
                let widest = min(89.9, abs(coordinate.latitude) + Double(ring)) * .pi / 180
                if worst < steps * 111_000 * cos(widest) { break }
            }
            for row in (centerRow - ring)...(centerRow + ring) where row >= 0 && row < 180 {
                let onEdgeRow = row == centerRow - ring || row == centerRow + ring
                let columns: [Int] = onEdgeRow ? Array((centerColumn - ring)...(centerColumn + ring))
                    : [centerColumn - ring, centerColumn + ring]
                for rawColumn in Set(columns.map { (($0 % 360) + 360) % 360 }) {
                    let cell = row * 360 + rawColumn
                    guard visited.insert(cell).inserted else { continue }
                    for slot in Int(cellStart[cell])..<Int(cellStart[cell + 1]) {
                        let city = cellCities[slot]
                        let metres = coordinate.distance(to: cities[Int(city)].coordinate)
                        if best.count < limit || metres < best[best.count - 1].1 {
                            let insertAt = best.firstIndex { $0.1 > metres } ?? best.count
                            best.insert((city, metres), at: insertAt)
                            if best.count > limit { best.removeLast() }
                        }
                    }
                }
            }
        }
        return best.map { (cities[Int($0.0)], $0.1) }
    }

    /// Approximate bytes held by the index structures (not counting the city records' strings).
    public var indexBytes: Int {
        keyBytes.count + keyOffsets.count * 4 + sortedCities.count * 4 + positionOfCity.count * 4 + cellStart.count * 4
            + cellCities.count * 4 + indexOfID.count * 16
    }

    private static func row(_ latitude: Double) -> Int { min(179, max(0, Int((latitude + 90).rounded(.down)))) }
    private static func column(_ longitude: Double) -> Int { min(359, max(0, Int((longitude + 180).rounded(.down)))) }
    private static func cell(_ coordinate: Coordinate) -> Int { row(coordinate.latitude) * 360 + column(coordinate.longitude) }
}
