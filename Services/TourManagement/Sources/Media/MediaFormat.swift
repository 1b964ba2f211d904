/// What a stored medium is, as far as tours care: a picture, a sound or a film.
public enum MediaKind: String, Codable, Sendable, CaseIterable {
    case image
    case audio
    case video

    /// Largest accepted upload of this kind, in bytes: 5 MiB for images, 100 MiB for audio and video.
    public var maximumBytes: Int {
        switch self {
        case .image: 5 * 1_048_576
        case .audio, .video: 100 * 1_048_576
        }
    }

    /// The largest limit of any kind (100 MiB): what the upload route's body limit must allow.
    public static let largestMaximumBytes = allCases.map(\.maximumBytes).max()!
}

/// The file formats the media store accepts, recognised by their magic bytes only (a declared `Content-Type` or a
/// file name is never trusted).
public enum MediaFormat: String, Sendable, CaseIterable {
    case jpeg
    case png
    case mp3
    case m4a
    case ogg
    case mp4

    /// How many leading bytes ``detect(_:)`` needs to decide (the ISO BMFF major brand ends at offset 12); fewer are
    /// enough only when the whole file is shorter.
    public static let sniffLength = 12

    public var kind: MediaKind {
        switch self {
        case .jpeg, .png: .image
        case .mp3, .m4a, .ogg: .audio
        case .mp4: .video
        }
    }

    /// The `Content-Type` downloads are served with.
    public var contentType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .mp3: "audio/mpeg"
        case .m4a: "audio/mp4"
        case .ogg: "audio/ogg"
        case .mp4: "video/mp4"
        }
    }

    /// The format whose `contentType` this is, for reading the catalog back.
    public init?(contentType: String) {
        guard let format = Self.allCases.first(where: { $0.contentType == contentType }) else { return nil }
        self = format
    }

    /// ISO BMFF major brands (`ftyp` at offset 4, brand at 8…11) of audio-only MPEG-4 files.
    static let audioBrands: Set<String> = ["M4A ", "M4B "]
    /// ISO BMFF major brands served as `video/mp4`. QuickTime (`qt  `), 3GPP and HEIF brands are not among them.
    static let videoBrands: Set<String> = ["isom", "iso2", "iso3", "iso4", "iso5", "iso6", "mp41", "mp42", "avc1", "dash",
                                           "M4V ", "mmp4", "MSNV"]

    /// The format of a file starting with `prefix` (at least ``sniffLength`` bytes unless the file is shorter), or
    /// `nil` when it is none of the accepted ones.
    public static func detect(_ prefix: some Collection<UInt8>) -> MediaFormat? {
        let bytes = Array(prefix.prefix(sniffLength))
        func starts(with magic: [UInt8]) -> Bool { bytes.count >= magic.count && Array(bytes.prefix(magic.count)) == magic }

        if starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(with: Array("OggS".utf8)) { return .ogg }
        // ID3v2 tag: "ID3", major version 2…4, a revision byte that is never 0xFF.
        if bytes.count >= 5, starts(with: Array("ID3".utf8)), (2...4).contains(bytes[3]), bytes[4] != 0xFF { return .mp3 }
        if bytes.count >= 12, bytes[4..<8].elementsEqual("ftyp".utf8) {
            // The box size (big-endian, offset 0) of a real `ftyp` box covers at least its header and the major brand.
            let boxSize = bytes[0..<4].reduce(0) { $0 << 8 | Int($1) }
            guard boxSize >= 12 || boxSize == 1 else { return nil }
            let brand = String(decoding: bytes[8..<12], as: UTF8.self)
            if audioBrands.contains(brand) { return .m4a }
            if videoBrands.contains(brand) { return .mp4 }
            return nil
        }
        if isMPEGAudioFrameHeader(bytes) { return .mp3 }
        return nil
    }

    /// An MPEG audio frame header: 11-bit (MPEG 1/2) or 12-bit sync, a version that is not the reserved `01`, a layer
    /// that is not the reserved `00` (which also keeps out AAC's ADTS headers), a bitrate index that is not `1111` and
    /// a sample-rate index that is not `11`.
    static func isMPEGAudioFrameHeader(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 3, bytes[0] == 0xFF, bytes[1] & 0xE0 == 0xE0 else { return false }
        let version = (bytes[1] >> 3) & 0b11
        let layer = (bytes[1] >> 1) & 0b11
        let bitrate = bytes[2] >> 4
        let sampleRate = (bytes[2] >> 2) & 0b11
        return version != 0b01 && layer != 0b00 && bitrate != 0b1111 && sampleRate != 0b11
    }
}
