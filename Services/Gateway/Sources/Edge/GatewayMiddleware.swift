import HTTPTypes
import Hummingbird
import ServiceKit

/// The edge pipeline of a proxied request: route → body limit → token check → rate limit → cache → upstream.
///
/// Paths the route table does not own fall through to the router (the gateway's own routes, else 404); hidden paths
/// (`/v1/internal/*`) are 404 whatever the request carries.
struct GatewayMiddleware: RouterMiddleware {
    typealias Context = ServiceRequestContext

    let table: RouteTable
    let authentication: AuthenticationMiddleware
    let rateLimits: EdgeRateLimits
    let cache: EdgeCache?
    let forwarder: ProxyForwarder
    let maxBodyBytes: Int
    let mediaMaxBodyBytes: Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let route: GatewayRoute
        switch table.resolve(request.uri.path) {
        case .local: return try await next(request, context)
        case .hidden: throw Problem.notFound("No route for \(request.method) \(request.uri.path).")
        case .proxied(let proxied): route = proxied
        }
        let upstream = route.upstream ?? ""
        let limit = RoutePolicies.bodyLimit(method: request.method, path: request.uri.path, standard: maxBodyBytes,
                                            large: mediaMaxBodyBytes)
        return try await BodyLimitMiddleware(limit: limit).handle(request, context: context) { request, context in
            try await authentication.handle(request, context: context) { request, context in
                try await rateLimits.apply(request, context: context) { request, context in
                    try await serve(request, context: context, upstream: upstream)
                }
            }
        }
    }

    private func serve(_ request: Request, context: Context, upstream: String) async throws -> Response {
        if let cache {
            if EdgeCache.unsafeMethods.contains(request.method) {
                return cache.relayWrite(try await forwarder.forward(request, context: context, upstream: upstream), upstream: upstream)
            }
            if RoutePolicies.isCacheable(method: request.method, path: request.uri.path) {
                return try await cache.serve(request, upstream: upstream) {
                    try await forwarder.forward(request, context: context, upstream: upstream)
                }
            }
        }
        var response = try await forwarder.forward(request, context: context, upstream: upstream).response
        EdgeCache.removeInternalFields(&response.headers)
        return response
    }
}
