import Contracts
import EventSourcing
import Foundation
import HTTPTypes
import Hummingbird
import ServiceKit

/// Tells the gateway's cache what tour-management's public catalogue answers depend on (docs/gateway.md, "Cache of
/// public reads"):
///
/// - a 200 to `GET /v1/tours` and `GET /v1/tours/map` carries `Cache-Tag: tours`, to `GET /v1/tours/{id}`
///   `Cache-Tag: tour:<id>`, to `GET /v1/destinations…` `Cache-Tag: destinations` (``CatalogueCacheTags``), and each
///   `Waypoint-Position`: the log position its read model had applied *before* the answer was read (the discovery
///   projection; for destinations, the position the index's counts include) — a lower bound of what it shows;
/// - a successful (2xx) `POST`, `PUT`, `PATCH` or `DELETE` carries `Waypoint-Position`: the log's head after the
///   write, so the gateway stores no answer that does not include it yet.
///
/// The gateway strips both fields; they are for it only.
struct CatalogueCacheHeaders: RouterMiddleware {
    typealias Context = ServiceRequestContext

    static let tagField = HTTPField.Name(CatalogueCacheTags.tagField)!
    static let positionField = HTTPField.Name(CatalogueCacheTags.positionField)!

    let discovery: any ProjectionRunning
    let destinations: DestinationIndex
    let store: AnyEventStore

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        switch request.method {
        case .get:
            guard let (tag, position) = catalogueRead(request.uri.path) else { return try await next(request, context) }
            var response = try await next(request, context)
            guard response.status == .ok else { return response }
            response.headers[Self.tagField] = tag
            response.headers[Self.positionField] = String(position)
            return response
        case .post, .put, .patch, .delete:
            var response = try await next(request, context)
            guard (200..<300).contains(response.status.code), let head = try? await store.headPosition() else { return response }
            response.headers[Self.positionField] = String(head)
            return response
        default:
            return try await next(request, context)
        }
    }

    /// The tag of a cacheable catalogue read of `path` and the position its read model has applied now; `nil` for
    /// other paths.
    func catalogueRead(_ path: String) -> (tag: String, position: Int64)? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        guard segments.count >= 2, segments[0] == "v1" else { return nil }
        switch segments[1] {
        case "tours" where segments.count == 2 || (segments.count == 3 && segments[2] == "map"):
            return (CatalogueCacheTags.tours, discovery.status.position)
        case "tours" where segments.count == 3:
            guard let id = UUID(uuidString: String(segments[2])) else { return nil }
            return (CatalogueCacheTags.tour(id), discovery.status.position)
        case "destinations":
            return (CatalogueCacheTags.destinations, destinations.countsPosition)
        default:
            return nil
        }
    }
}
