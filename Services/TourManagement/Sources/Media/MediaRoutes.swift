import Foundation
import HTTPTypes
import Hummingbird
import ServiceKit

/// An upload as answered: `{"sha256","kind","contentType","size","uploadedAt","url"}`.
public struct MediaObjectResponse: ResponseEncodable, Equatable {
    public var sha256: String
    public var kind: MediaKind
    public var contentType: String
    public var size: Int
    public var uploadedAt: Date
    public var url: String

    public init(_ object: MediaObject) {
        sha256 = object.sha256
        kind = object.kind
        contentType = object.contentType
        size = object.size
        uploadedAt = object.uploadedAt
        url = object.url
    }
}

/// `/v1/media`: uploads (guides and admins) and public, cacheable downloads with byte ranges.
///
/// ```swift
/// let media = MediaRoutes(store: mediaStore)
/// media.addPublic(to: routes.group("/v1/media"))
/// media.addUploads(to: routes.authenticated("/v1/media", requiring: .guide, .admin))
/// ```
/// The upload route needs a body limit of at least ``MediaKind/largestMaximumBytes`` (100 MiB): the store enforces
/// each kind's own limit while streaming.
public struct MediaRoutes: Sendable {
    public let store: MediaStore

    /// `Cache-Control` of downloads: content-addressed bytes never change.
    public static let cacheControl = "public, max-age=31536000, immutable"

    public init(store: MediaStore) {
        self.store = store
    }

    /// `GET /{sha256}` on `group` (mounted at `/v1/media`).
    ///
    /// 200 with `Content-Type`, `Content-Length`, `Accept-Ranges: bytes`, `ETag: "<sha256>"` and a year-long immutable
    /// `Cache-Control`; `If-None-Match` naming the ETag (or `*`) → 304. `Range: bytes=a-b | a- | -n` → 206 with
    /// `Content-Range`; a range outside the object → 416 with `Content-Range: bytes */size`; several ranges, another
    /// unit or bad syntax → the whole object (200), as RFC 9110 allows. `If-Range` with another validator also gets the
    /// whole object. Unknown or malformed address → 404 `unknown-media`.
    public func addPublic(to group: RouterGroup<ServiceRequestContext>) {
        group.get(":sha256", use: serve)
    }

    /// `POST /` on `group` (mounted at `/v1/media` behind authentication): the raw file is the body; its declared
    /// `Content-Type` is ignored. 201 with ``MediaObjectResponse`` and `Location`; an identical file answers the same
    /// object. 415 `unsupported-media-type`, 413 `payload-too-large` (nothing stored either way), 401 without identity.
    public func addUploads(to group: RouterGroup<ServiceRequestContext>) {
        group.post(use: upload)
    }

    /// `GET /v1/media/{sha256}`: the object's bytes (see ``addPublic(to:)``).
    @Sendable func serve(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        try await Self.download(request: request, sha256: try context.parameters.require("sha256"), store: store)
    }

    /// `POST /v1/media`: stores the body, 201 with the object (see ``addUploads(to:)``).
    @Sendable func upload(_ request: Request, context: ServiceRequestContext) async throws -> EditedResponse<MediaObjectResponse> {
        let identity = try context.requireIdentity()
        let declared = request.headers[.contentLength].flatMap { Int($0) }
        let object = try await store.store(request.body, uploadedBy: identity.subject, now: Date(), declaredLength: declared)
        var headers = HTTPFields()
        headers[.location] = object.url
        return EditedResponse(status: .created, headers: headers, response: MediaObjectResponse(object))
    }

    /// The object at `sha256` as a (ranged) response; ``MediaError`` when there is none or the range lies outside it.
    static func download(request: Request, sha256: String, store: MediaStore) async throws -> Response {
        guard let object = try await store.object(sha256: sha256) else { throw MediaError.notFound }
        var response = try await RangedFile.response(to: request, etag: "\"\(sha256)\"", contentType: object.contentType, cacheControl: cacheControl,
                                                     exists: { true }, open: { try await store.open(sha256: sha256, range: $0).file })
        for (name, value) in userContentHeaders(sha256: sha256, contentType: object.contentType) { response.headers[name] = value }
        return response
    }

    /// Headers that keep a user's upload from ever running in a browser, whatever its bytes also are (a PNG that is
    /// also valid HTML, an SVG with script): `X-Content-Type-Options: nosniff` (only the stored type is used — the
    /// type is sniffed from the content at upload and the client's is ignored), `Content-Security-Policy: sandbox;
    /// default-src 'none'` (opened on its own, the file gets a unique origin and may load and run nothing) and
    /// `Content-Disposition` — `inline` with a file name for images, audio and video, `attachment` for anything else.
    static func userContentHeaders(sha256: String, contentType: String) -> [(HTTPField.Name, String)] {
        let mediaType = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        let family = mediaType.split(separator: "/").first.map(String.init) ?? ""
        let `extension` = mediaType.split(separator: "/").last.map { $0.split(separator: "+").first.map(String.init) ?? "" } ?? "bin"
        let disposition = ["image", "audio", "video"].contains(family) && mediaType != "image/svg+xml" ? "inline" : "attachment"
        return [
            (ServiceHeaders.contentTypeOptions, "nosniff"),
            (.contentSecurityPolicy, "sandbox; default-src 'none'"),
            (HTTPField.Name("Content-Disposition")!, "\(disposition); filename=\"\(sha256).\(`extension`)\""),
        ]
    }
}

