import Foundation
import RecordTripAnalysis
import Testing

/// gpxpy (1.6.2, the peer of the statistics and the GPX writer) run on a GPX file by `Peers/gpxpy_stats.py`, with the
/// interpreter named by `WAYPOINT_PEERS_PYTHON` (scripts/test.sh exports it from scripts/lib/peers.sh).
struct GPXPeer {
    struct Point: Decodable {
        var lat: Double
        var lon: Double
        var ele: Double?
        var time: Double?
        var speed: Double?
        var course: Double?
        var accel: Int
    }

    struct Figures: Decodable {
        var length2d: Double
        var movingTime: Double
        var stoppedTime: Double
        var maxSpeed: Double
        var uphill: Double
        var downhill: Double
        var segments: Int
        var points: [Point]
    }

    /// gpxpy's figures for `document` as GPXWriter writes it; `nil` (with an Issue recorded, so the test fails rather
    /// than passes silently) when the peer's interpreter is not configured.
    static func figures(for document: GPXDocument, sourceLocation: SourceLocation = #_sourceLocation) throws -> Figures? {
        try figures(forFile: GPXWriter.write(document), sourceLocation: sourceLocation)
    }

    /// gpxpy's figures for the GPX bytes `data`.
    static func figures(forFile data: Data, sourceLocation: SourceLocation = #_sourceLocation) throws -> Figures? {
        guard let python = ProcessInfo.processInfo.environment["WAYPOINT_PEERS_PYTHON"], !python.isEmpty else {
            Issue.record("WAYPOINT_PEERS_PYTHON is not set: the gpxpy peer cannot run (scripts/test.sh sets it)",
                         sourceLocation: sourceLocation)
            return nil
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("trackstats-\(UUID().uuidString).gpx")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script.path, file.path]
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let json = output.fileHandleForReading.readDataToEndOfFile()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            Issue.record("gpxpy failed: \(String(decoding: message, as: UTF8.self))", sourceLocation: sourceLocation)
            return nil
        }
        return try JSONDecoder().decode(Figures.self, from: json)
    }

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Peers/gpxpy_stats.py")
}
