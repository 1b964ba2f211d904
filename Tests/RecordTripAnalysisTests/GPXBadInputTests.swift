import Foundation
import RecordTripAnalysis
import Testing

/// Hostile and broken uploads: each is a typed GPXError that says where and why (never a crash, never a hang).
@Suite struct GPXBadInputTests {
    static func refusal(_ text: String, limits: GPXLimits = .standard) -> GPXError? {
        refusal(Data(text.utf8), limits: limits)
    }

    static func refusal(_ data: Data, limits: GPXLimits = .standard) -> GPXError? {
        do {
            _ = try GPXReader.read(data, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    static let point = #"<trkpt lat="48.41" lon="15.6"><time>2026-11-26T07:00:00Z</time></trkpt>"#

    @Test("an XML bomb (billion laughs) is refused at its DOCTYPE, before any entity")
    func billionLaughs() throws {
        let bomb = """
            <?xml version="1.0"?>
            <!DOCTYPE gpx [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
            <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
            <gpx version="1.1"><trk><name>&lol3;</name></trk></gpx>
            """
        let error = try #require(Self.refusal(bomb))
        #expect(error.kind == .forbiddenMarkup)
        #expect(error.line == 2)
        #expect(error.description.contains("line 2"))
    }

    @Test("an external entity (XXE) and an undefined entity are refused")
    func entities() throws {
        let xxe = #"<?xml version="1.0"?><!DOCTYPE gpx SYSTEM "file:///etc/passwd"><gpx/>"#
        #expect(Self.refusal(xxe)?.kind == .forbiddenMarkup)
        let undefined = "<gpx><trk><name>&xxe;</name></trk></gpx>"
        #expect(Self.refusal(undefined)?.kind == .forbiddenMarkup)
    }

    @Test("XML that is not GPX is refused as such", arguments: ["<osm version=\"0.6\"><node id=\"1\" lat=\"1\" lon=\"1\"/></osm>",
                                                               "<?xml version=\"1.0\"?><kml><Document/></kml>"])
    func notGPX(text: String) {
        #expect(Self.refusal(text)?.kind == .notGPX)
    }

    @Test("an empty upload and whitespace only are not GPX", arguments: ["", "   \n  "])
    func empty(text: String) {
        #expect(Self.refusal(text)?.kind == .notGPX)
    }

    @Test("a truncated upload names the element and line it ends in")
    func truncated() throws {
        let text = "<gpx>\n<trk>\n<trkseg>\n" + Self.point + "\n<trkpt lat=\"48.41\" lon=\"15.6\"><time>2026-11-26T07:00:01Z</ti"
        let error = try #require(Self.refusal(text))
        #expect(error.kind == .truncated)
        let closed = try #require(Self.refusal("<gpx>\n<trk>\n<trkseg>\n" + Self.point + "\n"))
        #expect(closed.kind == .truncated && closed.description.contains("<trkseg>") && closed.line == 5)
    }

    @Test("garbage bytes are malformed, at byte 0")
    func garbage() throws {
        var random = SeededGenerator(seed: 3)
        let bytes = Data((0..<4_096).map { _ in UInt8.random(in: 0...255, using: &random) }.map { $0 == 60 ? 61 : $0 })
        let error = try #require(Self.refusal(bytes))
        #expect(error.kind == .malformed && error.offset == 0)
    }

    @Test("mismatched tags, text after the root, a second root and a '<' in a tag are malformed", arguments: [
        "<gpx><trk></trkseg></gpx>", "<gpx></gpx>junk", "<gpx></gpx><gpx></gpx>", "<gpx><trk <trkseg></gpx>",
        "<gpx><trk name=unquoted></trk></gpx>", "</gpx>",
    ])
    func malformed(text: String) {
        #expect(Self.refusal(text)?.kind == .malformed)
    }

    @Test("unreadable values name their line", arguments: [
        #"<trkpt lat="north" lon="15.6"/>"#, #"<trkpt lat="91" lon="15.6"/>"#, #"<trkpt lon="15.6"/>"#,
        #"<trkpt lat="NaN" lon="15.6"/>"#, "<trkpt lat=\"48\" lon=\"15\"><ele>high</ele></trkpt>",
        "<trkpt lat=\"48\" lon=\"15\"><time>yesterday</time></trkpt>",
        "<trkpt lat=\"48\" lon=\"15\"><extensions><AccelerationExtension><accel offset=\"-1\" x=\"0\" y=\"0\" z=\"0\"/></AccelerationExtension></extensions></trkpt>",
    ])
    func invalidValues(trkpt: String) throws {
        let error = try #require(Self.refusal("<gpx>\n<trk>\n<trkseg>\n\(trkpt)\n</trkseg></trk></gpx>"))
        #expect(error.kind == .invalidValue)
        #expect(error.line == 4, "\(error)")
    }

    @Test("over the limits of fixes, samples, duration, bytes and depth is tooLarge (HTTP 413)")
    func limits() throws {
        var small = GPXLimits()
        small.maxFixes = 3
        let four = "<gpx><trk><trkseg>" + String(repeating: Self.point, count: 4) + "</trkseg></trk></gpx>"
        #expect(Self.refusal(four, limits: small)?.isTooLarge == true)
        #expect(Self.refusal(String(repeating: Self.point, count: 3).wrappedInGPX, limits: small) == nil)

        small = GPXLimits()
        small.maxAccelerationSamples = 2
        let accel = #"<trkpt lat="48.41" lon="15.6"><time>2026-11-26T07:00:00Z</time><extensions><AccelerationExtension>"#
            + String(repeating: #"<accel offset="1" x="0" y="0" z="1"/>"#, count: 3) + "</AccelerationExtension></extensions></trkpt>"
        #expect(Self.refusal(accel.wrappedInGPX, limits: small)?.isTooLarge == true)

        let day = Self.point + #"<trkpt lat="48.41" lon="15.6"><time>2026-11-27T07:00:01Z</time></trkpt>"#
        #expect(Self.refusal(day.wrappedInGPX)?.isTooLarge == true)

        small = GPXLimits()
        small.maxBytes = 100
        #expect(Self.refusal(String(repeating: Self.point, count: 3).wrappedInGPX, limits: small)?.isTooLarge == true)

        let deep = "<gpx>" + String(repeating: "<extensions>", count: 100) + String(repeating: "</extensions>", count: 100) + "</gpx>"
        #expect(Self.refusal(deep)?.isTooLarge == true)
    }

    @Test("a valid file cut at every byte, or with a byte changed, reads or is refused: never a crash")
    func mutations() throws {
        let valid = GPXWriter.write(GPXReaderTests.sampleDocument()).prefix(6_000)
        let whole = Data(valid) + Data("</trkpt></trkseg></trk></gpx>".utf8)
        for cut in stride(from: 0, to: whole.count, by: 7) {
            _ = Self.refusal(whole.prefix(cut))
        }
        var random = SeededGenerator(seed: 5)
        for _ in 0..<300 {
            var bytes = [UInt8](whole)
            for _ in 0..<3 { bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random) }
            _ = Self.refusal(Data(bytes))
        }
    }
}

private extension String {
    var wrappedInGPX: String { "<gpx><trk><trkseg>" + self + "</trkseg></trk></gpx>" }
}
