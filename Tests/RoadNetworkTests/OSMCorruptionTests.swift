import Foundation
import Testing
@testable import RoadNetwork

/// Damaged input is a typed error naming the file — never a crash, never a read that looks complete.
@Suite("Damaged OpenStreetMap extracts")
struct OSMCorruptionTests {
    static func write(_ bytes: [UInt8], suffix: String) throws -> String {
        let path = OSMFixtures.temporaryPath(suffix)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Reads `path`, expecting an ``OSMReadError`` naming it.
    static func expectReadError(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try CollectingVisitor.read(path)
            Issue.record("\(path) read without an error", sourceLocation: sourceLocation)
        } catch let error as OSMReadError {
            #expect(error.file == path, sourceLocation: sourceLocation)
            #expect(error.description.hasPrefix(path), sourceLocation: sourceLocation)
        } catch {
            Issue.record("not an OSMReadError: \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test("a file cut off anywhere is an error", arguments: [
        (OSMFixtures.krems, ".osm.gz"), (OSMFixtures.monaco, ".osm.gz"), (OSMFixtures.helsinki, ".osm.pbf"),
    ])
    func truncated(source: String, suffix: String) throws {
        let whole = try Self.bytes(source)
        // Cuts near the start, in the middle of blocks and just before the end (the last bytes hold gzip's checksum and
        // length, or PBF's last block).
        var cuts = [3, 9, 1_000, whole.count / 2, whole.count - 1, whole.count - 9]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2 { cuts.append(Int.random(in: 1..<whole.count, using: &generator)) }
        for cut in cuts {
            let path = try Self.write(Array(whole[..<cut]), suffix: suffix)
            defer { try? FileManager.default.removeItem(atPath: path) }
            Self.expectReadError(path)
        }
    }

    @Test("uncompressed XML cut inside an element, after it, or before </osm>")
    func truncatedXML() throws {
        let document = """
            <osm version="0.6"><node id="1" lat="48.4" lon="15.6"><tag k="a" v="b"/></node><way id="2"><nd ref="1"/></way></osm>
            """
        for cut in [5, 20, 40, 60, 80, 100, document.utf8.count - 3] {
            let path = try Self.write(Array(document.utf8.prefix(cut)), suffix: ".osm")
            defer { try? FileManager.default.removeItem(atPath: path) }
            Self.expectReadError(path)
        }
        let path = try Self.write(Array(document.utf8), suffix: ".osm")
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try CollectingVisitor.read(path).ways.count == 1)
    }

    @Test("bit flips in gzip data are caught by its checksum or structure")
    func gzipBitFlips() throws {
        let whole = try Self.bytes(OSMFixtures.monaco)
        var generator = SystemRandomNumberGenerator()
        // Past the 10-byte gzip header (a flipped header flag byte can be legal) and before the 8-byte trailer too.
        for _ in 0..<16 {
            var damaged = whole
            let index = Int.random(in: 10..<whole.count, using: &generator)
            damaged[index] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &generator)
            let path = try Self.write(damaged, suffix: ".osm.gz")
            defer { try? FileManager.default.removeItem(atPath: path) }
            Self.expectReadError(path)
        }
    }

    /// PBF has no checksum (and Helsinki's blocks are not compressed), so a flipped bit inside a coordinate or an id
    /// cannot be noticed by any reader; a flip in the structure (lengths, field keys, string-table indexes) must be.
    /// What must always hold: no crash, and either a typed error or a complete read.
    @Test("bit flips in PBF never crash the reader")
    func pbfBitFlips() throws {
        let whole = try Self.bytes(OSMFixtures.helsinki)
        var generator = SystemRandomNumberGenerator()
        var errors = 0
        let trials = 20
        for _ in 0..<trials {
            var damaged = whole
            let index = Int.random(in: 0..<whole.count, using: &generator)
            damaged[index] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &generator)
            let path = try Self.write(damaged, suffix: ".osm.pbf")
            defer { try? FileManager.default.removeItem(atPath: path) }
            do {
                _ = try CollectingVisitor.read(path)
            } catch let error as OSMReadError {
                #expect(error.file == path)
                errors += 1
            }
        }
        // Most flips land in packed coordinates, ids and strings; some land in structure.
        #expect(errors > 0)
    }

    @Test("a flipped length prefix or block header is an error naming the offset")
    func pbfStructure() throws {
        var whole = try Self.bytes(OSMFixtures.helsinki)
        whole[1] ^= 0x40  // the first BlobHeader's length: 4 bytes big-endian
        let path = try Self.write(whole, suffix: ".osm.pbf")
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: OSMReadError.self) { try CollectingVisitor.read(path) }
        do {
            _ = try CollectingVisitor.read(path)
        } catch let error as OSMReadError {
            #expect(error.offset == 0)
        }
    }

    @Test("empty, missing, directory and foreign files are typed errors")
    func notExtracts() throws {
        let empty = try Self.write([], suffix: ".osm")
        let foreign = try Self.write(Array("{\"type\": \"FeatureCollection\"}".utf8), suffix: ".osm")
        defer {
            try? FileManager.default.removeItem(atPath: empty)
            try? FileManager.default.removeItem(atPath: foreign)
        }
        for (path, expected) in [(empty, OSMReadError.Reason.empty), (foreign, .unknownFormat)] {
            #expect {
                try CollectingVisitor.read(path)
            } throws: { error in
                (error as? OSMReadError)?.reason == expected
            }
        }
        for path in ["/nonexistent/krems.osm.gz", FileManager.default.temporaryDirectory.path] {
            #expect {
                try CollectingVisitor.read(path)
            } throws: { error in
                if case .unreadable = (error as? OSMReadError)?.reason { return true }
                return false
            }
        }
    }
}
