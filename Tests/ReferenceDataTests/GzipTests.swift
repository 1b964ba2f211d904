import Foundation
import ReferenceData
import Testing

@Suite("Reference data: gzip and the data directory")
struct GzipTests {
    @Test("the gazetteer decompresses to its documented JSON array")
    func gazetteer() throws {
        let url = try ReferenceDataDirectory.file("cities.json.gz")
        let json = try Gzip.decompress(contentsOf: url)
        #expect(json.count > 10_000_000)
        #expect(json.first == UInt8(ascii: "["))
        let text = String(decoding: json.prefix(200), as: UTF8.self)
        #expect(text.contains("\"_id\"") && text.contains("\"coord\""))
    }

    @Test("what gzip(1) compressed comes back byte for byte, also as concatenated members; garbage is an error")
    func roundTrip() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gzip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let original = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 / 7) })
        let plain = directory.appendingPathComponent("data.bin")
        try original.write(to: plain)
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/gzip")
        gzip.arguments = ["-k", plain.path]
        try gzip.run()
        gzip.waitUntilExit()
        let compressed = try Data(contentsOf: directory.appendingPathComponent("data.bin.gz"))
        #expect(try Gzip.decompress(compressed) == original)
        #expect(try Gzip.decompress(compressed + compressed) == original + original)
        #expect(throws: Gzip.Error.self) { try Gzip.decompress(Data("not gzip at all".utf8)) }
    }
}
