import RoadNetwork

/// Turns the events of a GPX file into a ``GPXDocument``: the reading state of ``GPXReader``.
struct GPXDocumentBuilder {
    private var scanner: XMLEventScanner
    private let limits: GPXLimits
    private var document = GPXDocument(fixes: [], segmentStarts: [])
    /// Local names of the open elements, the root first.
    private var open: [String] = []
    private var sawRoot = false
    private var segmentPending = false
    private var point: GPSFix?
    /// The `accel` samples of the point being read: offset in ms and x, y, z in g (times resolve at `</trkpt>`).
    private var pointAcceleration: [(offset: Double, x: Double, y: Double, z: Double)] = []
    /// Whether the character data of the leaf element being read is kept, and that data (one buffer, reused).
    private var capturing = false
    private var text: [UInt8] = []
    private var firstTime = Double.infinity, lastTime = -Double.infinity

    /// Gravity in m/s²: Garmin writes accelerations in g, ``AccelerationSample`` holds m/s².
    static let standardGravity = 9.80665

    init(bytes: [UInt8], limits: GPXLimits) {
        scanner = XMLEventScanner(bytes: bytes)
        self.limits = limits
    }

    mutating func build() throws(GPXError) -> GPXDocument {
        while let event = try scanner.next() {
            switch event {
            case .start(let name, let attributes, let selfClosing):
                try start(name, attributes: attributes)
                if selfClosing { try end(name) }
            case .end(let name):
                try end(name)
            case .text(let bytes, let isCDATA):
                try characters(bytes, isCDATA: isCDATA)
            }
        }
        guard sawRoot else { throw GPXError("no <gpx> element: the file is empty or not XML", kind: .notGPX, offset: 0) }
        if let innermost = open.last {
            throw scanner.error("the file ends inside <\(innermost)>", kind: .truncated, at: scanner.bytes.count)
        }
        if document.fixes.isEmpty { document.segmentStarts = [] }
        return document
    }

    private mutating func start(_ name: String, attributes: [(name: String, value: ArraySlice<UInt8>)]) throws(GPXError) {
        if open.isEmpty {
            guard !sawRoot else { throw scanner.error("a second root element <\(name)> after </gpx>") }
            guard name == "gpx" else { throw scanner.error("the root element is <\(name)>, not <gpx>", kind: .notGPX) }
            sawRoot = true
        }
        guard open.count < limits.maxDepth else {
            throw scanner.error("elements nested deeper than \(limits.maxDepth)", kind: .tooLarge)
        }
        let parent = open.last
        open.append(name)
        switch name {
        case "trkseg" where parent == "trk":
            segmentPending = true
        case "trkpt" where parent == "trkseg":
            try startPoint(attributes)
        case "accel" where point != nil && parent == "AccelerationExtension":
            try readAcceleration(attributes)
        case "ele", "time", "speed", "course":
            capture(point != nil)
        case "name" where parent == "trk" || parent == "metadata":
            capture(document.name == nil)
        default:
            capture(false)
        }
    }

    private mutating func capture(_ wanted: Bool) {
        capturing = wanted
        text.removeAll(keepingCapacity: true)
    }

    private mutating func startPoint(_ attributes: [(name: String, value: ArraySlice<UInt8>)]) throws(GPXError) {
        guard document.fixes.count < limits.maxFixes else {
            throw scanner.error("more than \(limits.maxFixes) track points", kind: .tooLarge)
        }
        let latitude = try coordinate(attributes, "lat", range: -90...90)
        let longitude = try coordinate(attributes, "lon", range: -180...180)
        if segmentPending || document.segmentStarts.isEmpty {
            document.segmentStarts.append(document.fixes.count)
            segmentPending = false
        }
        point = GPSFix(time: .nan, latitude: latitude, longitude: longitude)
        pointAcceleration.removeAll(keepingCapacity: true)
    }

    private func coordinate(_ attributes: [(name: String, value: ArraySlice<UInt8>)], _ key: String,
                            range: ClosedRange<Double>) throws(GPXError) -> Double {
        guard let raw = attributes.first(where: { $0.name == key })?.value else {
            throw scanner.error("<trkpt> without \(key)", kind: .invalidValue)
        }
        guard let value = OSMNumbers.double(raw), range.contains(value) else {
            throw scanner.error("<trkpt> \(key)=\"\(String(decoding: raw.prefix(40), as: UTF8.self))\" is not a \(key) in \(range)",
                                kind: .invalidValue)
        }
        return value
    }

    private mutating func readAcceleration(_ attributes: [(name: String, value: ArraySlice<UInt8>)]) throws(GPXError) {
        guard document.acceleration.count + pointAcceleration.count < limits.maxAccelerationSamples else {
            throw scanner.error("more than \(limits.maxAccelerationSamples) accelerometer samples", kind: .tooLarge)
        }
        var offset = Double.nan, x = Double.nan, y = Double.nan, z = Double.nan
        for attribute in attributes {
            let value = OSMNumbers.double(attribute.value) ?? .nan
            switch attribute.name {
            case "offset": offset = value
            case "x": x = value
            case "y": y = value
            case "z": z = value
            default: continue
            }
        }
        guard offset.isFinite, x.isFinite, y.isFinite, z.isFinite else {
            throw scanner.error("<accel> needs numeric offset, x, y and z", kind: .invalidValue)
        }
        guard offset >= 0, offset <= 65_535 else {
            throw scanner.error("<accel> offset \(offset) is not 0…65535 ms", kind: .invalidValue)
        }
        pointAcceleration.append((offset, x, y, z))
    }

    private mutating func characters(_ bytes: ArraySlice<UInt8>, isCDATA: Bool) throws(GPXError) {
        if open.isEmpty {
            guard bytes.allSatisfy(OSMXMLText.isSpace) else {
                throw scanner.error(sawRoot ? "text after </gpx>" : "text before the root element: not an XML document")
            }
            return
        }
        guard capturing else { return }
        guard text.count + bytes.count <= 4_096 else { throw scanner.error("a value longer than 4096 bytes", kind: .invalidValue) }
        if isCDATA || !bytes.contains(UInt8(ascii: "&")) {
            text.append(contentsOf: bytes)
        } else {
            guard let decoded = OSMXMLText.decode(bytes) else {
                throw scanner.error("an undefined entity or bad character reference", kind: .forbiddenMarkup)
            }
            text.append(contentsOf: decoded.utf8)
        }
    }

    private mutating func end(_ name: String) throws(GPXError) {
        guard let innermost = open.popLast() else { throw scanner.error("</\(name)> without a start tag") }
        guard innermost == name else { throw scanner.error("</\(name)> closes <\(innermost)>") }
        if capturing {
            capturing = false
            try keep(of: name)
        }
        if name == "trkpt", let fix = point {
            try finishPoint(fix)
        }
    }

    private mutating func keep(of name: String) throws(GPXError) {
        var bytes = text[...]
        while let first = bytes.first, OSMXMLText.isSpace(first) { bytes.removeFirst() }
        while let last = bytes.last, OSMXMLText.isSpace(last) { bytes.removeLast() }
        if name == "name" {
            document.name = String(decoding: bytes, as: UTF8.self)
            return
        }
        if name == "time" {
            guard let time = GPXTime.parse(bytes) else {
                throw scanner.error("<time>\(String(decoding: bytes.prefix(40), as: UTF8.self))</time> is not an RFC 3339 time",
                                    kind: .invalidValue)
            }
            point?.time = time
            return
        }
        guard let number = OSMNumbers.double(bytes), number.isFinite else {
            throw scanner.error("<\(name)>\(String(decoding: bytes.prefix(40), as: UTF8.self))</\(name)> is not a number",
                                kind: .invalidValue)
        }
        switch name {
        case "ele": point?.altitude = number
        case "speed": point?.speed = number
        default: point?.course = number
        }
    }

    private mutating func finishPoint(_ fix: GPSFix) throws(GPXError) {
        point = nil
        document.fixes.append(fix)
        guard fix.time.isFinite else { return }  // a point without a time: the cleaner counts it invalid
        firstTime = min(firstTime, fix.time)
        lastTime = max(lastTime, fix.time)
        guard lastTime - firstTime <= limits.maxDurationS else {
            throw scanner.error("the track spans \(Int(lastTime - firstTime)) s, more than \(Int(limits.maxDurationS)) s",
                                kind: .tooLarge)
        }
        for sample in pointAcceleration {
            document.acceleration.append(AccelerationSample(
                time: fix.time + sample.offset / 1_000, x: sample.x * Self.standardGravity,
                y: sample.y * Self.standardGravity, z: sample.z * Self.standardGravity))
        }
    }
}
