import HTTPTypes
import Hummingbird
import ServiceKit

/// Cross-origin access for browsers, limited to an allow-list of origins; preflights are answered at the edge.
///
/// Every answer carries `Vary: Origin` (it depends on the caller's origin). An allowed origin is echoed in
/// `Access-Control-Allow-Origin` and may read the fields clients need (`ETag`, `Location`, `Retry-After`, rate-limit and
/// trace fields); a preflight from another origin is 403 `origin-not-allowed`. No cookies are involved (tokens travel in
/// `Authorization`), so credentials mode is not enabled.
struct CORSMiddleware: RouterMiddleware {
    typealias Context = ServiceRequestContext

    let allowedOrigins: Set<String>
    let allowsAnyOrigin: Bool

    static let allowedMethods = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS"
    static let exposedHeaders = "ETag, Location, Retry-After, RateLimit, RateLimit-Policy, X-Request-Id, traceparent, X-Cache, Age, Content-Range, Bundle-Version"
    static let requestMethod = HTTPField.Name("Access-Control-Request-Method")!
    static let requestHeaders = HTTPField.Name("Access-Control-Request-Headers")!

    init(origins: [String]) {
        allowsAnyOrigin = origins.contains("*")
        allowedOrigins = Set(origins.filter { $0 != "*" }.map { $0.lowercased() })
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let origin = request.headers[.origin] else {
            var response = try await next(request, context)
            stamp(&response.headers, origin: nil)
            return response
        }
        let allowed = allowsAnyOrigin || allowedOrigins.contains(origin.lowercased())
        if request.method == .options, request.headers[Self.requestMethod] != nil {
            guard allowed else { throw Problem.forbidden("Origin \(origin) may not call this API.", code: "origin-not-allowed") }
            var headers = HTTPFields()
            headers[.accessControlAllowOrigin] = origin
            headers[.accessControlAllowMethods] = Self.allowedMethods
            headers[.accessControlAllowHeaders] = request.headers[Self.requestHeaders] ?? "Authorization, Content-Type"
            headers[.accessControlMaxAge] = "600"
            headers[.vary] = "Origin, Access-Control-Request-Method, Access-Control-Request-Headers"
            return Response(status: .noContent, headers: headers)
        }
        var response = try await next(request, context)
        stamp(&response.headers, origin: origin)
        return response
    }

    /// What an answer (not a preflight's) to a request from `origin` (`nil`: no `Origin`) carries: `Vary: Origin`, and
    /// for an allowed origin the origin and the fields it may read.
    func stamp(_ headers: inout HTTPFields, origin: String?) {
        headers.append(HTTPField(name: .vary, value: "Origin"))
        guard let origin, allowsAnyOrigin || allowedOrigins.contains(origin.lowercased()) else { return }
        headers[.accessControlAllowOrigin] = origin
        headers[.accessControlExposeHeaders] = Self.exposedHeaders
    }
}
