import Foundation
import Logging
import ServiceKit
import Synchronization
import Testing

@Suite("JSON log lines")
struct JSONLogHandlerTests {
    final class Lines: Sendable {
        let lines = Mutex<[String]>([])
        func append(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    func logger(_ lines: Lines, level: Logger.Level = .info) -> Logger {
        Logger(label: "tour-management") { label in
            JSONLogHandler(label: label, logLevel: level, sink: { lines.append($0) })
        }
    }

    @Test("one JSON object per line with timestamp, level, label, message and metadata")
    func shape() throws {
        let lines = Lines()
        var logger = logger(lines)
        logger[metadataKey: "request_id"] = "req-1"
        logger.info("tour \"Old Town\"\npublished", metadata: ["trace_id": "4bf92f3577b34da6a3ce929d0e0e4736", "stops": ["a", "b"]])
        let line = try #require(lines.all.first)
        #expect(!line.contains("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["level"] as? String == "info")
        #expect(object["label"] as? String == "tour-management")
        #expect(object["message"] as? String == "tour \"Old Town\"\npublished")
        let metadata = try #require(object["metadata"] as? [String: Any])
        #expect(metadata["request_id"] as? String == "req-1")
        #expect(metadata["trace_id"] as? String == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(metadata["stops"] as? [String] == ["a", "b"])
        let timestamp = try #require(object["timestamp"] as? String)
        #expect(timestamp.hasSuffix("Z"))
        #expect(ServiceJSON.parseTimestamp(timestamp) != nil)
    }

    @Test("lines below the level are dropped")
    func level() {
        let lines = Lines()
        let logger = logger(lines, level: .warning)
        logger.info("quiet")
        logger.error("loud")
        #expect(lines.all.count == 1)
    }

    @Test("control characters are escaped")
    func escaping() throws {
        let lines = Lines()
        logger(lines).info("bell\u{07} tab\t backslash\\")
        let object = try JSONSerialization.jsonObject(with: Data(lines.all[0].utf8)) as? [String: Any]
        #expect(object?["message"] as? String == "bell\u{07} tab\t backslash\\")
    }

    @Test("line and paragraph separators are escaped, other non-ASCII text is kept as UTF-8")
    func separators() throws {
        let lines = Lines()
        logger(lines).info("a\u{2028}b\u{2029}c Krems an der Donau – Straße 北京 🚲", metadata: ["ü\"": .array(["\u{1F}"])])
        let line = lines.all[0]
        #expect(line.contains(#"a\u2028b\u2029c Krems an der Donau – Straße 北京 🚲"#))
        #expect(line.contains(#""ü\"":["\u001f"]"#))
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect(object?["message"] as? String == "a\u{2028}b\u{2029}c Krems an der Donau – Straße 北京 🚲")
    }

    @Test("timestamps are RFC 3339 UTC with milliseconds, the time of the line")
    func timestamp() throws {
        let lines = Lines()
        let before = Date()
        logger(lines).info("now")
        let after = Date()
        let object = try #require(try JSONSerialization.jsonObject(with: Data(lines.all[0].utf8)) as? [String: Any])
        let text = try #require(object["timestamp"] as? String)
        #expect(text.count == 24)
        #expect(text.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/) != nil)
        let parsed = try #require(ServiceJSON.parseTimestamp(text))
        #expect(parsed >= before.addingTimeInterval(-0.001) && parsed <= after)
    }
}
