import Foundation
@testable import RecordTripAnalysis
import Testing

/// Reading GPX as devices and apps write it: segments, time variants, elevation, Garmin extensions.
@Suite struct GPXReaderTests {
    static func gpx(_ body: String, namespaces: String = "") -> Data {
        Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1" \(namespaces)>
            \(body)
            </gpx>
            """.utf8)
    }

    @Test("tracks and segments: every point in order, with the index where each segment starts")
    func segments() throws {
        let data = Self.gpx("""
            <metadata><name>Morning &amp; ride</name></metadata>
            <trk><name>ignored, metadata came first</name>
              <trkseg><trkpt lat="48.41" lon="15.60"><ele>201.5</ele><time>2026-11-26T07:00:00Z</time></trkpt>
                      <trkpt lat="48.4101" lon="15.6002"><time>2026-11-26T07:00:01Z</time></trkpt></trkseg>
              <trkseg/>
              <trkseg><trkpt lat='48.4102' lon='15.6004'><time>2026-11-26T07:05:00Z</time></trkpt></trkseg>
            </trk>
            <trk><trkseg><trkpt lat="-33.9" lon="151.2"><time>2026-11-26T07:06:00Z</time></trkpt></trkseg></trk>
            <rte><rtept lat="1" lon="1"/></rte><wpt lat="2" lon="2"><name>not a ride</name></wpt>
            """)
        let document = try GPXReader.read(data)
        #expect(document.name == "Morning & ride")
        #expect(document.fixes.count == 4)
        #expect(document.segmentStarts == [0, 2, 3])
        #expect(document.fixes[0] == GPSFix(time: 1_795_676_400, latitude: 48.41, longitude: 15.60, altitude: 201.5))
        #expect(document.fixes[1].altitude == nil)
        #expect(document.fixes[3].latitude == -33.9)
    }

    @Test("RFC 3339 and ISO 8601 variants", arguments: [
        ("2026-11-26T07:00:00Z", 1_795_676_400.0), ("2026-11-26T07:00:00.250Z", 1_795_676_400.25),
        ("2026-11-26T08:00:00+01:00", 1_795_676_400), ("2026-11-26T01:30:00-0530", 1_795_676_400),
        ("2026-11-26T07:00:00", 1_795_676_400), ("2026-11-26 07:00:00z", 1_795_676_400),
        ("2026-11-26t07:00:00.5+00", 1_795_676_400.5), ("1970-01-01T00:00:00Z", 0), ("2024-02-29T12:00:00Z", 1_709_208_000),
        ("2000-03-01T00:00:00.123456789Z", 951_868_800.123456789),
    ])
    func times(text: String, seconds: Double) {
        #expect(GPXTime.parse(Array(text.utf8)).map { abs($0 - seconds) < 1e-6 } == true, "\(text)")
    }

    @Test("malformed times are refused", arguments: ["2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z", "2026-11-26T24:00:00Z",
                                                    "2026-11-26", "26.11.2026 07:00", "2026-11-26T07:00:00.Z",
                                                    "2026-11-26T07:00:00+1", "2026-11-26T07:00:00Zjunk", ""])
    func badTimes(text: String) {
        #expect(GPXTime.parse(Array(text.utf8)) == nil)
    }

    @Test("formatting then parsing a time gives it back to the millisecond", arguments: [0.0, 1_795_676_400.25, 951_868_800.999, -86_400.5])
    func timeRoundTrip(seconds: Double) {
        let text = GPXTime.format(seconds)
        #expect(GPXTime.parse(Array(text.utf8)).map { abs($0 - seconds) < 0.0005 } == true, "\(text)")
    }

    @Test("Garmin TrackPointExtension v2 speed and course under any prefix; v1 (heart rate only) is read past")
    func trackPointExtension() throws {
        let data = Self.gpx("""
            <trk><trkseg>
            <trkpt lat="48.41" lon="15.60"><time>2026-11-26T07:00:00Z</time><extensions><ns3:TrackPointExtension>
              <ns3:speed>5.25</ns3:speed><ns3:course>87.5</ns3:course></ns3:TrackPointExtension></extensions></trkpt>
            <trkpt lat="48.41" lon="15.60"><time>2026-11-26T07:00:01Z</time><extensions><gpxtpx:TrackPointExtension>
              <gpxtpx:hr>131</gpxtpx:hr><gpxtpx:cad>80</gpxtpx:cad></gpxtpx:TrackPointExtension></extensions></trkpt>
            </trkseg></trk>
            """, namespaces: #"xmlns:ns3="http://www.garmin.com/xmlschemas/TrackPointExtension/v2" xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1""#)
        let document = try GPXReader.read(data)
        #expect(document.fixes[0].speed == 5.25 && document.fixes[0].course == 87.5)
        #expect(document.fixes[1].speed == nil && document.fixes[1].course == nil)
    }

    @Test("Garmin AccelerationExtension samples: offset in ms from the point, values in g turned into m/s²")
    func acceleration() throws {
        let data = Self.gpx("""
            <trk><trkseg><trkpt lat="48.41" lon="15.60"><time>2026-11-26T07:00:00Z</time><extensions>
              <gpxacc:AccelerationExtension><gpxacc:accel offset="0" x="0" y="1" z="0"/>
              <gpxacc:accel offset="20" x="-0.5" y="1.25" z="0.125"/></gpxacc:AccelerationExtension>
            </extensions></trkpt></trkseg></trk>
            """, namespaces: #"xmlns:gpxacc="http://www.garmin.com/xmlschemas/AccelerationExtension/v1""#)
        let document = try GPXReader.read(data)
        let g = 9.80665
        #expect(document.acceleration == [
            AccelerationSample(time: 1_795_676_400, x: 0, y: g, z: 0),
            AccelerationSample(time: 1_795_676_400.02, x: -0.5 * g, y: 1.25 * g, z: 0.125 * g),
        ])
    }

    @Test("what GPXWriter writes GPXReader reads back: points, segments, extensions and samples")
    func roundTrip() throws {
        let document = Self.sampleDocument()
        let read = try GPXReader.read(GPXWriter.write(document))
        #expect(read.name == document.name)
        #expect(read.segmentStarts == document.segmentStarts)
        #expect(read.fixes.count == document.fixes.count)
        for (a, b) in zip(read.fixes, document.fixes) {
            #expect(a.latitude == b.latitude && a.longitude == b.longitude && a.altitude == b.altitude)
            #expect(abs(a.time - b.time) < 0.0005 && a.speed == b.speed && a.course == b.course)
        }
        #expect(read.acceleration.count == document.acceleration.count)
        for (a, b) in zip(read.acceleration, document.acceleration) {
            #expect(abs(a.time - b.time) < 0.0006 && abs(a.x - b.x) < 1e-9 && abs(a.y - b.y) < 1e-9 && abs(a.z - b.z) < 1e-9)
        }
    }

    /// 120 fixes at 1 Hz in two segments with speed/course on some, a name needing escapes, and 50 Hz samples.
    static func sampleDocument() -> GPXDocument {
        let fixes = SyntheticRide(path: SyntheticRide.krems(vertices: 8)).ride().fixes.prefix(120).enumerated().map { index, fix in
            var fix = fix
            fix.time += 0.125 * Double(index % 3)
            if index % 2 == 0 { fix.speed = 5 + Double(index) / 100; fix.course = Double(index * 3 % 360) }
            return fix
        }
        let start = fixes[0].time
        let samples = (0..<(119 * 50)).map { index in
            AccelerationSample(time: start + Double(index) / 50, x: sin(Double(index)), y: 9.81 + cos(Double(index) / 3), z: 0.25)
        }
        return GPXDocument(name: "Ride <to> \"Stein\" & back", fixes: Array(fixes), segmentStarts: [0, 60], acceleration: samples)
    }
}
