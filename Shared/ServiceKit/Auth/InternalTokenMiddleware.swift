import Hummingbird

/// Guards `/v1/internal/*`: such routes need `Authorization: Bearer <internal token>` (401 otherwise).
///
/// ServiceKit installs it on the whole router, so an internal route cannot be added unprotected. It
/// recognises internal routes both by the matched route pattern and by the request path, and compares
/// tokens in constant time. Without a configured token every internal request is refused.
public struct InternalTokenMiddleware: RouterMiddleware {
    /// The request context of Waypoint services.
    public typealias Context = ServiceRequestContext

    /// Path prefix of internal routes.
    public static let pathPrefix = "/v1/internal"

    private let token: [UInt8]?

    /// Creates the guard; `token == nil` refuses every internal request.
    public init(token: String?) {
        self.token = token.map { Array($0.utf8) }
    }

    /// Checks the internal token on internal routes and runs `next`.
    public func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard Self.isInternal(routePattern: context.endpointPath) || Self.isInternal(path: request.uri.path) else {
            return try await next(request, context)
        }
        guard let token,
            let header = request.headers[.authorization],
            let presented = AuthenticationMiddleware.bearerToken(in: header),
            ConstantTime.equals(Array(presented.utf8), token)
        else {
            throw Problem.unauthorized("Internal endpoints require the internal service token.")
        }
        return try await next(request, context)
    }

    /// Whether a route pattern such as `/v1/internal/events` is internal.
    static func isInternal(routePattern: String?) -> Bool {
        guard let routePattern else { return false }
        return isInternal(path: routePattern)
    }

    /// Whether a request path is internal, ignoring repeated slashes and letter case.
    static func isInternal(path: String) -> Bool {
        let components = path.split(separator: "/").prefix(2).map { $0.lowercased() }
        return components == ["v1", "internal"]
    }
}
