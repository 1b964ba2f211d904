import ServiceKit
import Testing

@Suite("JSON string escapes: one reader for request checks and analytics' payloads")
struct JSONStringEscapesTests {
    private func text(_ raw: String, loneSurrogate: Unicode.Scalar? = nil) -> String? {
        JSONStringEscapes.unescape(ArraySlice(Array(raw.utf8)), loneSurrogate: loneSurrogate)
    }

    @Test("escapes resolve: the short ones, \\u, surrogate pairs; plain bytes pass through")
    func escapes() {
        #expect(text(#"plain é"#) == "plain é")
        #expect(text(#"a\"b\\c\/d\b\f\n\r\t"#) == "a\"b\\c/d\u{08}\u{0C}\n\r\t")
        #expect(text(#"caf\u00e9 \u00E9"#) == "café é")
        #expect(text(#"\ud83d\ude00!"#) == "😀!")
    }

    @Test("a lone surrogate fails, or reads as the replacement asked for")
    func loneSurrogates() {
        #expect(text(#"\ud83d"#) == nil)
        #expect(text(#"\ude00x"#) == nil)
        #expect(text(#"\ud83d\u0041"#, loneSurrogate: "\u{FFFD}") == "\u{FFFD}A")
        #expect(text(#"x\ude00"#, loneSurrogate: "\u{FFFD}") == "x\u{FFFD}")
    }
}
