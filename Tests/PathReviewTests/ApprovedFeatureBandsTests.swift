import Foundation
import NIOCore
@testable import PathReview
import Testing

/// The pieces a bbox listing writes per feature without an encoder.
@Suite("path-review: pre-rendered features' closing")
struct ApprovedFeatureBandsTests {
    @Test("quoted text is the JSON string of the text: plain words as they are, quotes, backslashes, control and non-ASCII characters escaped")
    func quoted() throws {
        for text in ["optimal", "requires-maintenance", "", "a/b", #"say "hi""#, #"back\slash"#, "tab\there", "line\nbreak", "Straße", "🚲", "\u{7F}"] {
            let json = ApprovedFeatureBands.quoted(text)
            let decoded = try JSONDecoder().decode(String.self, from: Data(json.utf8))
            #expect(decoded == text, "\(json)")
        }
        #expect(ApprovedFeatureBands.quoted("optimal") == #""optimal""#)
    }

    @Test("a feature written into a buffer is its closed JSON")
    func written() throws {
        for fragment in [#"{"type":"Feature","id":"x","geometry":null,"properties":{"name":"n""#, #"{"type":"Feature","properties":{"#] {
            let row = ApprovedFeatureRow(fragment: fragment, condition: #"odd "one""#, obstacleCount: 3)
            var buffer = ByteBuffer()
            row.write(into: &buffer)
            #expect(String(buffer: buffer) == row.json)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(row.json.utf8)) as? [String: Any])
            let properties = try #require(object["properties"] as? [String: Any])
            #expect(properties["condition"] as? String == #"odd "one""# && properties["obstacleCount"] as? Int == 3)
        }
    }
}
