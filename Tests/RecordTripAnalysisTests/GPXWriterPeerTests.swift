import Foundation
import RecordTripAnalysis
import Testing

/// GPXWriter's output as gpxpy 1.6.2 reads it: the same points, times, elevations, speed/course and samples.
@Suite struct GPXWriterPeerTests {
    @Test("gpxpy parses what GPXWriter writes back to the same points, with the extensions")
    func gpxpyReadsTheSamePoints() throws {
        let document = GPXReaderTests.sampleDocument()
        guard let peer = try GPXPeer.figures(for: document) else { return }
        #expect(peer.segments == 2)
        #expect(peer.points.count == document.fixes.count)
        for (point, fix) in zip(peer.points, document.fixes) {
            #expect(point.lat == fix.latitude && point.lon == fix.longitude && point.ele == fix.altitude)
            #expect(abs((point.time ?? .nan) - fix.time) < 0.0005)
            #expect(point.speed == fix.speed && point.course == fix.course)
        }
        #expect(peer.points.map(\.accel).reduce(0, +) == document.acceleration.count)
    }

    @Test("a document without times, altitudes or extensions is still GPX that gpxpy reads")
    func bare() throws {
        let fixes = [GPSFix(time: .nan, latitude: 48.41, longitude: 15.6), GPSFix(time: .nan, latitude: 48.42, longitude: 15.61)]
        guard let peer = try GPXPeer.figures(for: GPXDocument(fixes: fixes)) else { return }
        #expect(peer.points.count == 2 && peer.points.allSatisfy { $0.time == nil && $0.ele == nil })
    }
}
