import Foundation
import Logging
import ServiceKit
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Log lines leave the logging thread: gathered and written together within the interval, in order; warnings, a full
/// buffer and `flush()` write at once.
@Suite("Log output: buffered lines, urgent lines at once")
struct LogOutputTests {
    /// A pipe whose read end does not block.
    final class Pipe: @unchecked Sendable {
        let read: Int32
        let write: Int32

        init() throws {
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else { throw POSIXError(.EIO) }
            (read, write) = (ends[0], ends[1])
            _ = fcntl(read, F_SETFL, fcntl(read, F_GETFL) | O_NONBLOCK)
        }

        deinit {
            close(read)
            close(write)
        }

        /// What is readable now.
        func available() -> String {
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = chunk.withUnsafeMutableBytes { Glibc.read(read, $0.baseAddress!, 4096) }
                guard count > 0 else { break }
                bytes += chunk.prefix(count)
            }
            return String(decoding: bytes, as: UTF8.self)
        }

        /// Reads until `expected` has arrived (or 60 s passed: at the start of the parallel suite on 2 cores, tests
        /// took 8 s to get scheduled); returns what arrived.
        func read(until expected: String) async throws -> String {
            var text = ""
            let deadline = ContinuousClock.now + .seconds(60)
            while true {
                text += available()  // read once more after every wait, also the last one
                if text.count >= expected.count || ContinuousClock.now >= deadline { return text }
                try await Task.sleep(for: .milliseconds(5))
            }
        }
    }

    static func line(_ text: String) -> [UInt8] { Array((text + "\n").utf8) }

    @Test("lines gather and are written together after the interval, in order")
    func gathered() async throws {
        let pipe = try Pipe()
        let output = LogOutput(fileDescriptor: pipe.write, interval: .milliseconds(300))
        let start = ContinuousClock.now
        for index in 0..<5 { output.write(Self.line("line \(index)")) }
        #expect(pipe.available() == "", "nothing is written before the interval")
        let expected = (0..<5).map { "line \($0)\n" }.joined()
        #expect(try await pipe.read(until: expected) == expected)
        #expect(ContinuousClock.now - start >= .milliseconds(300))
    }

    @Test("an urgent line is written at once, after everything queued before it")
    func urgent() throws {
        let pipe = try Pipe()
        let output = LogOutput(fileDescriptor: pipe.write, interval: .seconds(60))
        output.write(Self.line("info"))
        output.write(Self.line("warning"), urgent: true)
        #expect(pipe.available() == "info\nwarning\n")
    }

    @Test("a buffer over the limit is written at once; flush writes what is queued")
    func limitAndFlush() throws {
        let pipe = try Pipe()
        let output = LogOutput(fileDescriptor: pipe.write, interval: .seconds(60), limit: 16)
        output.write(Self.line("0123456789"))
        #expect(pipe.available() == "")
        output.write(Self.line("abcdef"))
        #expect(pipe.available() == "0123456789\nabcdef\n")
        output.write(Self.line("queued"))
        output.flush()
        #expect(pipe.available() == "queued\n")
    }

    @Test("the JSON handler buffers informational lines and writes warnings at once, each a JSON object on its own line")
    func handlerLevels() throws {
        let pipe = try Pipe()
        let output = LogOutput(fileDescriptor: pipe.write, interval: .seconds(60))
        let logger = Logger(label: "test") { JSONLogHandler(label: $0, output: output) }
        logger.info("access")
        #expect(pipe.available() == "")
        logger.warning("upstream failed")
        let lines = pipe.available().split(separator: "\n")
        #expect(lines.count == 2)
        let messages = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }.map { $0?["message"] as? String }
        #expect(messages == ["access", "upstream failed"])
    }
}
