import Contracts
import Foundation

/// Golden-file contract tests for integration events: the producer proves that it still
/// writes the pinned JSON, and every consumer proves that it can read that same file.
///
/// Golden files live in the repository at
/// `Tests/Golden/<topic>/<EventType>.v<schemaVersion>.json`: the event encoded with
/// ``Contracts/ContractJSON/prettyEncoder`` (pretty-printed, sorted keys) plus a trailing
/// newline. Set `WAYPOINT_RECORD_GOLDEN=1` to write them instead of comparing.
///
/// ```swift
/// @Test("TourPublished keeps its published shape")
/// func tourPublishedContract() throws {
///     try GoldenFile.verify(TourPublished.example)                    // producer side
/// }
///
/// @Test("analytics reads TourPublished as published")
/// func readsTourPublished() throws {
///     let event = try GoldenFile.decode(TourPublished.self)           // consumer side
///     #expect(TourStatisticsProjection().apply(event) == …)
/// }
/// ```
public enum GoldenFile {
    /// Compares `event`, encoded canonically, with its golden file in the repository that
    /// contains the calling test file; records it instead when `WAYPOINT_RECORD_GOLDEN=1`.
    ///
    /// - Throws: ``GoldenFileError`` describing a missing or different file.
    public static func verify(_ event: some IntegrationEvent, file: StaticString = #filePath) throws {
        try verify(event, in: goldenDirectory(forTestFile: file), mode: .fromEnvironment)
    }

    /// Compares `event`, encoded canonically, with its golden file under `directory` (which
    /// holds one folder per topic), or writes that file when `mode` is ``GoldenFileMode/record``.
    /// In both modes, also checks that the file decodes back to `event`.
    ///
    /// - Throws: ``GoldenFileError`` describing a missing or different file.
    public static func verify<Event: IntegrationEvent>(
        _ event: Event,
        in directory: URL,
        mode: GoldenFileMode
    ) throws {
        let url = try fileURL(for: Event.self, in: directory)
        let actual = try canonicalText(of: event)
        switch mode {
        case .record:
            try write(actual, to: url)
        case .verify:
            guard let expected = try read(url) else {
                throw GoldenFileError.missing(path: url.path, actual: actual)
            }
            guard expected == actual else {
                throw GoldenFileError.mismatch(
                    path: url.path,
                    expected: expected,
                    actual: actual,
                    diff: LineDiff.render(expected: expected, actual: actual)
                )
            }
        }
        let decoded = try decode(Event.self, at: url)
        guard decoded == event else {
            throw GoldenFileError.roundTripMismatch(
                path: url.path,
                original: String(describing: event),
                decoded: String(describing: decoded)
            )
        }
    }

    /// Reads the golden file of `type` from the repository that contains the calling test
    /// file, as a consumer would read the event from the topic.
    public static func decode<Event: IntegrationEvent>(
        _ type: Event.Type,
        file: StaticString = #filePath
    ) throws -> Event {
        try decode(type, in: goldenDirectory(forTestFile: file))
    }

    /// Reads the golden file of `type` from under `directory` (one folder per topic).
    public static func decode<Event: IntegrationEvent>(_ type: Event.Type, in directory: URL) throws -> Event {
        try decode(type, at: fileURL(for: type, in: directory))
    }

    /// Where the golden file of `type` lives under `directory`:
    /// `<directory>/<topic>/<EventType>.v<schemaVersion>.json`.
    public static func fileURL<Event: IntegrationEvent>(for type: Event.Type, in directory: URL) throws -> URL {
        let eventType = Event.eventType
        guard !eventType.isEmpty, !eventType.hasPrefix("."), !eventType.contains(where: { "/\\".contains($0) }) else {
            throw GoldenFileError.invalidEventType(eventType)
        }
        return directory
            .appendingPathComponent(Event.topic.name, isDirectory: true)
            .appendingPathComponent("\(eventType).v\(Event.schemaVersion).json", isDirectory: false)
    }

    /// The repository's golden directory, `Tests/Golden`, found by walking up from
    /// `testFile` (a `#filePath`) to the nearest directory that holds `Package.swift`.
    public static func goldenDirectory(forTestFile testFile: StaticString = #filePath) throws -> URL {
        let start = URL(fileURLWithPath: "\(testFile)", isDirectory: false)
        var candidate = start.deletingLastPathComponent()
        while true {
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("Package.swift").path) {
                return candidate.appendingPathComponent("Tests", isDirectory: true)
                    .appendingPathComponent("Golden", isDirectory: true)
            }
            let parent = candidate.deletingLastPathComponent()
            guard parent.path != candidate.path else {
                throw GoldenFileError.repositoryRootNotFound(startingAt: start.path)
            }
            candidate = parent
        }
    }

    /// The exact text of a golden file for `event`: pretty-printed canonical JSON and a newline.
    public static func canonicalText(of event: some IntegrationEvent) throws -> String {
        let data = try ContractJSON.prettyEncoder.encode(event)
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    // MARK: File access

    private static func decode<Event: IntegrationEvent>(_ type: Event.Type, at url: URL) throws -> Event {
        guard let text = try read(url) else {
            throw GoldenFileError.fileSystem(
                path: url.path,
                reason: "no such file; the producer's test records it with \(GoldenFileMode.environmentVariable)=1"
            )
        }
        do {
            return try ContractJSON.decode(type, from: Data(text.utf8))
        } catch {
            throw GoldenFileError.undecodable(path: url.path, reason: "\(error)")
        }
    }

    /// The file's text, or `nil` when it does not exist.
    private static func read(_ url: URL) throws -> String? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        do {
            return String(decoding: try Data(contentsOf: url), as: UTF8.self)
        } catch {
            throw GoldenFileError.fileSystem(path: url.path, reason: "\(error)")
        }
    }

    private static func write(_ text: String, to url: URL) throws {
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try Data(text.utf8).write(to: url, options: .atomic)
        } catch {
            throw GoldenFileError.fileSystem(path: url.path, reason: "\(error)")
        }
    }
}
