import Contracts
import Foundation
import HTTPTypes
import Hummingbird
import ServiceKit
import _NIOFileSystem

/// `GET /v1/bundles/public-key` (public), `GET /v1/tours/{id}/bundle` and `GET /v1/tours/{id}/bundle/manifest` (travellers
/// who own the tour, its guide, administrators).
public struct BundleRoutes: Sendable {
    public static let contentType = "application/vnd.sqlite3"

    let bundles: OfflineBundles
    let catalog: TourCatalog
    let access: TourAccess

    public init(bundles: OfflineBundles, catalog: TourCatalog, access: TourAccess) {
        self.bundles = bundles
        self.catalog = catalog
        self.access = access
    }

    /// Mounts the public key (public) and a tour's bundle and manifest (for those who may use the tour).
    public func addRoutes(to routes: ServiceRoutes) {
        routes.group("/v1/bundles").get("public-key", use: publicKey)
        let group = routes.authenticated("/v1/tours/:id/bundle")
        group.get(use: download)
        group.get("manifest", use: manifest)
    }

    /// `GET /v1/bundles/public-key`: the key bundles are signed with.
    @Sendable func publicKey(_ request: Request, context: ServiceRequestContext) async throws -> BundlePublicKey {
        bundles.signingKey.publicKey
    }

    /// `GET /v1/tours/{id}/bundle`: the bundle file of the current revision, immutable and with byte ranges.
    @Sendable func download(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let bundle = try await current(context)
        let url = bundles.file(bundle)
        var response = try await RangedFile.response(
            to: request, etag: "\"\(bundle.sha256)\"", contentType: Self.contentType, cacheControl: "private, max-age=31536000, immutable",
            exists: { FileManager.default.fileExists(atPath: url.path) },
            open: { range in
                guard let file = try await RangedFile.open(FilePath(url.path), range: range) else {
                    throw Problem.serviceUnavailable("the bundle file is missing; retry shortly")
                }
                return file
            })
        response.headers[HTTPField.Name("Bundle-Version")!] = String(bundle.version)
        response.headers[.contentDisposition] = "attachment; filename=\"tour-\(bundle.tourId.uuidString.lowercased())-v\(bundle.version).sqlite\""
        return response
    }

    /// `GET /v1/tours/{id}/bundle/manifest`: what the bundle holds, never cached.
    @Sendable func manifest(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let bundle = try await current(context)
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(data: try bundles.manifest(bundle).encoded())))
    }

    /// The bundle of the tour's current revision, for a caller who may use it (built now if the publisher has not yet).
    func current(_ context: ServiceRequestContext) async throws -> BundlePublished {
        let identity = try context.requireIdentity()
        let tour = try await DiscoveryRoutes.published(context, catalog, access: access)
        try await access.requireUse(tour, identity)
        return try await bundles.ensure(tour)
    }
}

extension BundlePublicKey: ResponseEncodable {}
