import Foundation
import Hummingbird
import ServiceKit

/// One stored upload, named by the SHA-256 of its bytes.
public struct MediaObject: Codable, Sendable, Hashable {
    /// Lowercase hex SHA-256 of the content: its address.
    public var sha256: String
    public var kind: MediaKind
    /// `image/jpeg`, `image/png`, `audio/mpeg`, `audio/mp4`, `audio/ogg` or `video/mp4`, from the magic bytes.
    public var contentType: String
    /// Bytes.
    public var size: Int
    /// When it was (last) uploaded; an identical re-upload moves it forward, restarting the garbage-collection clock.
    public var uploadedAt: Date
    /// Subject of the first uploader's access token.
    public var uploadedBy: String

    public init(sha256: String, kind: MediaKind, contentType: String, size: Int, uploadedAt: Date, uploadedBy: String) {
        self.sha256 = sha256
        self.kind = kind
        self.contentType = contentType
        self.size = size
        self.uploadedAt = uploadedAt
        self.uploadedBy = uploadedBy
    }

    /// Where it is downloaded: `/v1/media/<sha256>`.
    public var url: String { "/v1/media/\(sha256)" }

    /// Whether `text` is a content address: 64 lowercase hex digits (anything else is never looked up, let alone
    /// turned into a path).
    public static func isValidDigest(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}

/// A catalog row: the object and whether (since when) a tour references it.
public struct MediaCatalogEntry: Sendable, Hashable {
    public var object: MediaObject
    /// When it was first referenced by a tour; `nil` while no tour references it (garbage-collectable once old).
    public var referencedAt: Date?

    public init(object: MediaObject, referencedAt: Date?) {
        self.object = object
        self.referencedAt = referencedAt
    }
}

/// Why the media store refused: each maps to the problem the HTTP API answers with.
public enum MediaError: Error, Sendable, Hashable, ProblemConvertible {
    /// The bytes are none of the accepted formats (415 `unsupported-media-type`).
    case unsupportedMediaType
    /// The upload passed its kind's limit (413 `payload-too-large`).
    case tooLarge(kind: MediaKind, limitBytes: Int)
    /// No such object (404 `unknown-media`).
    case notFound
    /// The requested range lies outside the object (416 `range-not-satisfiable`, `Content-Range: bytes */size`).
    case rangeNotSatisfiable(size: Int)

    /// The RFC 9457 problem of this error.
    public var problem: Problem {
        switch self {
        case .unsupportedMediaType:
            return .unsupportedMediaType(
                "Only JPEG or PNG images (at most 5 MiB), MP3, M4A or Ogg audio and MP4 video (at most 100 MiB) are accepted; "
                    + "the type is decided by the file's content, not by its declared Content-Type.")
        case .tooLarge(_, let limit):
            return .payloadTooLarge(limitBytes: limit)
        case .notFound:
            return .notFound("No media with this address.", code: "unknown-media")
        case .rangeNotSatisfiable(let size):
            var headers = HTTPFields()
            headers[.contentRange] = "bytes */\(size)"
            return Problem(status: .rangeNotSatisfiable, code: "range-not-satisfiable", title: "Range not satisfiable",
                           detail: "The requested range lies outside the \(size) bytes of this media.", headers: headers)
        }
    }
}
