import Foundation
import Geo
import Testing
@testable import TourManagement

@Suite("tour-management: destination index over the real gazetteer")
struct DestinationIndexTests {
    /// Loading and indexing the whole gazetteer takes a few seconds: the suite shares one index.
    static let loaded: (index: DestinationIndex, skipped: Int) = {
        let (cities, skipped) = try! Gazetteer.loadReferenceData()
        return (DestinationIndex(cities: cities), skipped)
    }()

    var index: DestinationIndex { Self.loaded.index }

    @Test("keys are ordered by memcmp exactly as lexicographicallyPrecedes and == order them (prefixes, empty keys, bytes ≥ 0x80)")
    func byteOrder() {
        var random = SystemRandomNumberGenerator()
        let pool: [UInt8] = [0x00, 0x41, 0x61, 0x7A, 0x80, 0xC3, 0xFF]
        for _ in 0..<5_000 {
            let a = (0..<Int.random(in: 0...4, using: &random)).map { _ in pool.randomElement(using: &random)! }
            let b = Bool.random(using: &random) ? Array(a.prefix(Int.random(in: 0...a.count, using: &random)))
                : (0..<Int.random(in: 0...4, using: &random)).map { _ in pool.randomElement(using: &random)! }
            let expected = a.lexicographicallyPrecedes(b) ? -1 : (a == b ? 0 : 1)
            let order = DestinationIndex.compareBytes(a, b)
            #expect((order < 0 ? -1 : (order == 0 ? 0 : 1)) == expected, "\(a) vs \(b)")
        }
    }

    @Test("the import reads all 209,579 cities; the 4 nameless ones are skipped")
    func importCounts() {
        #expect(index.cities.count + Self.loaded.skipped == 209_579)
        #expect(Self.loaded.skipped == 4)
    }

    @Test("prefix search is case- and diacritic-insensitive and returns every city of the prefix, at most 50")
    func prefixMatching() {
        let zur = index.search(prefix: "zur")
        #expect(zur.contains { $0.name == "Zürich" })
        #expect(index.search(prefix: "ZÜR").map(\.id) == zur.map(\.id))
        // Letters Unicode does not decompose are folded too: ł → l, ø → o.
        #expect(index.search(prefix: "lomzyc").contains { $0.name == "Łomżyca" })
        #expect(index.search(prefix: "ŁOMŻ").contains { $0.name == "Łomżyca" })
        #expect(index.search(prefix: "gjovik").contains { $0.name == "Gjøvik" })
        #expect(index.search(prefix: "lodz").contains { $0.name == "Lodz" })
        #expect(index.search(prefix: "a").count == 50)
        #expect(index.count(prefix: "a") > 10_000)
        #expect(index.search(prefix: "qqqxz").isEmpty)
        #expect(index.search(prefix: "   ").isEmpty || index.search(prefix: "   ").allSatisfy { $0.name.hasPrefix("   ") })
        for city in index.search(prefix: "vien") {
            #expect(DestinationName.key(city.name).hasPrefix("vien"))
        }
    }

    @Test("ranking: exact matches first, then more published tours, then name")
    func ranking() {
        let paris = index.search(prefix: "paris")
        #expect(paris.first.map { DestinationName.key($0.name) } == "paris")
        let exactCount = paris.prefix { DestinationName.key($0.name) == "paris" }.count
        #expect(exactCount >= 1)
        let rest = paris.dropFirst(exactCount).map(\.name)
        #expect(rest.map(DestinationName.key) == rest.map(DestinationName.key).sorted())

        // A city with tours jumps ahead of names that sort before it; more tours first.
        let kr = index.search(prefix: "kr")
        let krems = try! #require(index.search(prefix: "krems an der donau").first)
        let krakow = try! #require(index.search(prefix: "krakow").first)
        index.setPublishedTours(3, cityID: krems.id)
        index.setPublishedTours(7, cityID: krakow.id)
        defer {
            index.setPublishedTours(0, cityID: krems.id)
            index.setPublishedTours(0, cityID: krakow.id)
        }
        let ranked = index.search(prefix: "kr")
        #expect(ranked.prefix(2).map(\.id) == [krakow.id, krems.id])
        #expect(ranked.count == 50 && kr.count == 50)
        let popular = index.popular()
        #expect(popular.prefix(2).map(\.city.id) == [krakow.id, krems.id])
        #expect(popular.first?.publishedTours == 7)
    }

    @Test("nearest cities are ordered by great-circle distance, also across the antimeridian and near a pole")
    func nearest() throws {
        let vienna = try Coordinate(latitude: 48.2082, longitude: 16.3738)
        let near = index.nearest(to: vienna, limit: 5)
        #expect(near.count == 5)
        #expect(near.map(\.metres) == near.map(\.metres).sorted())
        #expect(near.first.map { $0.metres < 10_000 } == true)
        // Brute force agrees.
        for probe in [vienna, try Coordinate(latitude: -16.5, longitude: 179.9), try Coordinate(latitude: 78.2, longitude: 15.6)] {
            let expected = index.cities.map { ($0.id, probe.distance(to: $0.coordinate)) }.sorted { $0.1 < $1.1 }.prefix(10).map(\.0)
            #expect(index.nearest(to: probe, limit: 10).map(\.city.id) == Array(expected))
        }
    }
}
