import Foundation

/// Writes a ``GPXDocument`` as GPX 1.1: one `<trk>` with a `<trkseg>` per segment; each `<trkpt>` with `<ele>` and
/// `<time>` when known, Garmin `TrackPointExtension` v2 `speed`/`course` when known, and Garmin
/// `AccelerationExtension` `accel` samples (offset in ms from the point's time, values in g).
///
/// An accelerometer sample goes with the last point at or before it, if it lies within the 65.535 s an `offset` can
/// say; a sample before the first timed point or in a longer gap between points cannot be written and is left out.
public enum GPXWriter {
    /// The document as UTF-8 GPX 1.1.
    public static func write(_ document: GPXDocument) -> Data {
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="Waypoint record-trip" xmlns="http://www.topografix.com/GPX/1/1" \
            xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2" \
            xmlns:gpxacc="http://www.garmin.com/xmlschemas/AccelerationExtension/v1" \
            xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
            xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">

            """
        out.reserveCapacity(document.fixes.count * 160 + document.acceleration.count * 64 + 512)
        if let name = document.name { out += "  <metadata><name>\(escaped(name))</name></metadata>\n" }
        out += "  <trk>\n"
        if let name = document.name { out += "    <name>\(escaped(name))</name>\n" }
        let starts = Set(document.segmentStarts.filter { $0 > 0 && $0 < document.fixes.count })
        var samples = AccelerationCursor(document.acceleration)
        // The time of the next timed point after each point (∞ after the last), for the samples that go with each.
        var nextTimes = [Double](repeating: .infinity, count: document.fixes.count)
        for index in document.fixes.indices.dropLast().reversed() {
            let next = document.fixes[index + 1].time
            nextTimes[index] = next.isFinite ? next : nextTimes[index + 1]
        }
        out += "    <trkseg>\n"
        for (index, fix) in document.fixes.enumerated() {
            if starts.contains(index) { out += "    </trkseg>\n    <trkseg>\n" }
            writePoint(fix, acceleration: samples.take(from: fix.time, before: nextTimes[index]), to: &out)
        }
        out += "    </trkseg>\n  </trk>\n</gpx>\n"
        return Data(out.utf8)
    }

    private static func writePoint(_ fix: GPSFix, acceleration: ArraySlice<AccelerationSample>, to out: inout String) {
        out += "      <trkpt lat=\"\(number(fix.latitude))\" lon=\"\(number(fix.longitude))\">"
        if let altitude = fix.altitude, altitude.isFinite { out += "<ele>\(number(altitude))</ele>" }
        if GPXTime.representable.contains(fix.time) { out += "<time>\(GPXTime.format(fix.time))</time>" }
        let speed = fix.speed.flatMap { $0.isFinite ? $0 : nil }
        let course = fix.course.flatMap { $0.isFinite ? $0 : nil }
        if speed != nil || course != nil || !acceleration.isEmpty {
            out += "<extensions>"
            if speed != nil || course != nil {
                out += "<gpxtpx:TrackPointExtension>"
                if let speed { out += "<gpxtpx:speed>\(number(speed))</gpxtpx:speed>" }
                if let course { out += "<gpxtpx:course>\(number(course))</gpxtpx:course>" }
                out += "</gpxtpx:TrackPointExtension>"
            }
            if !acceleration.isEmpty {
                out += "<gpxacc:AccelerationExtension>"
                let gravity = GPXDocumentBuilder.standardGravity
                for sample in acceleration {
                    let offset = Int(((sample.time - fix.time) * 1_000).rounded())
                    out += "<gpxacc:accel offset=\"\(offset)\" x=\"\(number(sample.x / gravity))\" "
                        + "y=\"\(number(sample.y / gravity))\" z=\"\(number(sample.z / gravity))\"/>"
                }
                out += "</gpxacc:AccelerationExtension>"
            }
            out += "</extensions>"
        }
        out += "</trkpt>\n"
    }

    /// Shortest text that reads back as the same `Double` (Swift's `description`), never in exponent form for GPS
    /// magnitudes; non-finite values are never passed here.
    private static func number(_ value: Double) -> String {
        let text = "\(value)"
        guard text.contains("e") else { return text.hasSuffix(".0") ? String(text.dropLast(2)) : text }
        return String(format: "%.12f", value)
    }

    private static func escaped(_ text: String) -> String {
        var out = ""
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case _ where character.value < 0x20 && character != "\n" && character != "\t": continue
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }
}

/// Walks the time-sorted accelerometer samples alongside the points.
private struct AccelerationCursor {
    let samples: [AccelerationSample]
    var index = 0

    init(_ samples: [AccelerationSample]) {
        self.samples = samples.filter(\.time.isFinite).sorted { $0.time < $1.time }
    }

    /// The samples at `time` or later, before `next`, and within 65.535 s of `time`; earlier ones are skipped.
    mutating func take(from time: Double, before next: Double) -> ArraySlice<AccelerationSample> {
        guard time.isFinite else { return [] }
        while index < samples.count, samples[index].time < time - 0.0005 { index += 1 }
        let start = index
        while index < samples.count, samples[index].time < next - 0.0005, samples[index].time - time <= 65.535 { index += 1 }
        return samples[start..<index]
    }
}
