/// Why an OpenStreetMap extract could not be read: always naming the file and where in it the reader stopped, so an
/// operator can tell a truncated download from a corrupt block or an unsupported file.
///
/// A reader that throws has delivered some elements already; callers build nothing from a file that did not read to
/// its end (``OSMExtract/read(into:)`` documents this), so a damaged extract never becomes a graph that looks complete.
public struct OSMReadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: Sendable, Hashable {
        /// The file cannot be opened or read (missing, a directory, no permission).
        case unreadable(String)
        /// The file is empty.
        case empty
        /// Neither OSM XML, gzip-compressed OSM XML nor OSM PBF.
        case unknownFormat
        /// The data ends before the format says it does (a cut-off download).
        case truncated(String)
        /// The gzip or zlib stream is damaged (checksum or format error).
        case compression(String)
        /// The bytes do not follow the format (XML syntax, protobuf structure, PBF block rules).
        case malformed(String)
        /// A value is missing or out of range (an id, a coordinate, a reference).
        case invalidValue(String)
        /// A PBF feature this reader does not implement (e.g. LZMA blobs, history files).
        case unsupported(String)
    }

    /// The file's path.
    public var file: String
    /// Byte offset where the reader stopped: in the file for PBF, in the decompressed stream for `.osm.gz`.
    public var offset: Int64?
    /// The element being read, e.g. `way 4236349`, when known.
    public var element: String?
    /// What went wrong.
    public var reason: Reason

    /// An error at `offset` of `file`.
    public init(file: String, offset: Int64? = nil, element: String? = nil, reason: Reason) {
        self.file = file
        self.offset = offset
        self.element = element
        self.reason = reason
    }

    public var description: String {
        var text = "\(file)"
        if let offset { text += " at byte \(offset)" }
        if let element { text += " (\(element))" }
        switch reason {
        case .unreadable(let why): text += ": cannot be read: \(why)"
        case .empty: text += ": the file is empty"
        case .unknownFormat: text += ": not an OpenStreetMap extract (expected .osm, .osm.gz or .osm.pbf)"
        case .truncated(let what): text += ": truncated: \(what)"
        case .compression(let what): text += ": damaged compressed data: \(what)"
        case .malformed(let what): text += ": malformed: \(what)"
        case .invalidValue(let what): text += ": invalid value: \(what)"
        case .unsupported(let what): text += ": unsupported: \(what)"
        }
        return text
    }
}
