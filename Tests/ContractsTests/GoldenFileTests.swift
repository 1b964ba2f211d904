import ContractTesting
import Contracts
import Foundation
import Testing

@Suite("GoldenFile")
struct GoldenFileTests {
    @Test("the producer still encodes the committed golden file")
    func producerMatchesCommittedFile() throws {
        try GoldenFile.verify(ExampleEventRecorded.pinned)
    }

    @Test("a consumer decodes the committed golden file into the same event")
    func consumerReadsCommittedFile() throws {
        #expect(try GoldenFile.decode(ExampleEventRecorded.self) == ExampleEventRecorded.pinned)
    }

    @Test("golden files live under Tests/Golden/<topic>/<EventType>.v<schemaVersion>.json")
    func location() throws {
        let directory = try GoldenFile.goldenDirectory()
        let url = try GoldenFile.fileURL(for: ExampleEventRecorded.self, in: directory)
        #expect(url.path.hasSuffix("/Tests/Golden/waypoint.auth/ExampleEventRecorded.v1.json"))
        #expect(FileManager.default.fileExists(atPath: directory.deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Package.swift").path))
    }

    @Test("a changed payload fails with the expected and actual JSON and a diff")
    func mismatchIsDescriptive() throws {
        try withTemporaryDirectory { directory in
            try GoldenFile.verify(ExampleEventAmended.sample, in: directory, mode: .record)
            var changed = ExampleEventAmended.sample
            changed = ExampleEventAmended(exampleId: changed.exampleId, amendedAt: changed.amendedAt, refund: nil)
            let error = try #require(throws: GoldenFileError.self) {
                try GoldenFile.verify(changed, in: directory, mode: .verify)
            }
            guard case .mismatch(let path, let expected, let actual, let diff) = error else {
                Issue.record("expected a mismatch, got \(error)")
                return
            }
            #expect(path.hasSuffix("waypoint.tours/ExampleEventAmended.v2.json"))
            #expect(expected.contains("\"refund\""))
            #expect(!actual.contains("\"refund\""))
            #expect(diff.contains("-   \"refund\" : {"))
            #expect(diff.contains("    \"amendedAt\" : \"2026-11-22T10:00:00Z\""))
            #expect(error.description.contains("Golden file mismatch"))
            #expect(error.description.contains("WAYPOINT_RECORD_GOLDEN=1"))
            #expect(error.description.contains("bump schemaVersion"))
        }
    }

    @Test("a missing golden file fails and shows what the producer encodes")
    func missingFileIsDescriptive() throws {
        try withTemporaryDirectory { directory in
            let error = try #require(throws: GoldenFileError.self) {
                try GoldenFile.verify(ExampleEventAmended.sample, in: directory, mode: .verify)
            }
            #expect(error.description.contains("Golden file missing"))
            #expect(error.description.contains("\"amountMinor\" : -500"))
            #expect(error.description.contains("WAYPOINT_RECORD_GOLDEN=1"))
        }
    }

    @Test("record mode writes pretty, sorted JSON with a trailing newline that then verifies")
    func recordModeWritesFile() throws {
        try withTemporaryDirectory { directory in
            try GoldenFile.verify(ExampleEventAmended.sample, in: directory, mode: .record)
            let url = try GoldenFile.fileURL(for: ExampleEventAmended.self, in: directory)
            let text = try String(contentsOf: url, encoding: .utf8)
            #expect(text == """
                {
                  "amendedAt" : "2026-11-22T10:00:00Z",
                  "exampleId" : "0E9B1A2C-3D4E-4F50-8162-738495A6B7C8",
                  "refund" : {
                    "amountMinor" : -500,
                    "currency" : "JPY"
                  }
                }

                """)
            try GoldenFile.verify(ExampleEventAmended.sample, in: directory, mode: .verify)
            #expect(try GoldenFile.decode(ExampleEventAmended.self, in: directory) == .sample)
        }
    }

    @Test("record mode overwrites an outdated file")
    func recordModeOverwrites() throws {
        try withTemporaryDirectory { directory in
            let url = try GoldenFile.fileURL(for: ExampleEventAmended.self, in: directory)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("{}\n".utf8).write(to: url)
            try GoldenFile.verify(ExampleEventAmended.sample, in: directory, mode: .record)
            try GoldenFile.verify(ExampleEventAmended.sample, in: directory, mode: .verify)
        }
    }

    @Test("a consumer reading a golden file that no longer decodes gets the path and the reason")
    func undecodableFile() throws {
        try withTemporaryDirectory { directory in
            let url = try GoldenFile.fileURL(for: ExampleEventAmended.self, in: directory)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(#"{"exampleId":"not-a-uuid"}"#.utf8).write(to: url)
            let error = try #require(throws: GoldenFileError.self) {
                try GoldenFile.decode(ExampleEventAmended.self, in: directory)
            }
            #expect(error.description.contains(url.path))
        }
    }

    @Test("the environment switch is WAYPOINT_RECORD_GOLDEN=1")
    func environmentSwitch() {
        #expect(GoldenFileMode.environmentVariable == "WAYPOINT_RECORD_GOLDEN")
        let expected: GoldenFileMode = ProcessInfo.processInfo.environment["WAYPOINT_RECORD_GOLDEN"] == "1" ? .record : .verify
        #expect(GoldenFileMode.fromEnvironment == expected)
    }
}
