import Foundation
@testable import Gateway
import Testing

@Suite("Routing: a path's segments split on its bytes")
struct PathSegmentsTests {
    /// The splitting the table used before it split ASCII paths on their bytes: on `/` characters, each segment
    /// percent-decoded and lower-cased, `nil` for `.`, `..`, an encoded `/` or a bad escape.
    static func reference(_ path: String) -> [String]? {
        var segments: [String] = []
        for raw in path.split(separator: "/") {
            guard var segment = raw.contains("%") ? String(raw).removingPercentEncoding : String(raw) else { return nil }
            segment = segment.lowercased()
            guard segment != ".", segment != "..", !segment.utf8.contains(UInt8(ascii: "/")) else { return nil }
            segments.append(segment)
        }
        return segments
    }

    @Test("20,000 random ASCII paths (slashes, escapes, capitals, dots, empty segments) split as the character walk does")
    func randomPaths() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("//aZv1.%2F%2f%41%zz%e2%82%acTOURS-_~?=&;:@!$'()*+,".utf8)
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...24, using: &generator)
            let bytes = (0..<length).map { _ in alphabet.randomElement(using: &generator)! }
            let path = String(decoding: bytes, as: UTF8.self)
            #expect(RouteTable.normalizedSegments(path).map { $0.map(String.init) } == Self.reference(path), "\(path)")
        }
    }

    /// A combining mark after a slash makes one character with it, so the character walk does not split there and the
    /// segment holding the slash is refused (`nil`: hidden) — kept as it was.
    @Test("the usual paths, and non-ASCII ones (which take the character walk)")
    func knownPaths() {
        let cases: [(String, [String]?)] = [
            ("/v1/routes", ["v1", "routes"]), ("/V1//Paths/", ["v1", "paths"]), ("", []), ("/", []),
            ("/v1/navigation/sessions/0192/positions", ["v1", "navigation", "sessions", "0192", "positions"]),
            ("/v1/%69nternal/x", ["v1", "internal", "x"]), ("/v1/a%2Fb", nil), ("/v1/./x", nil), ("/v1/%2e%2e/x", nil), ("/v1/%zz", nil),
            ("/v1/Straße/ÄÖ", ["v1", "straße", "äö"]), ("/v1/\u{301}internal", nil), ("/v1/a/\u{301}", nil),
        ]
        for (path, expected) in cases {
            #expect(RouteTable.normalizedSegments(path).map { $0.map(String.init) } == expected, "\(path)")
            #expect(RouteTable.normalizedSegments(path).map { $0.map(String.init) } == Self.reference(path), "\(path)")
        }
    }
}
