import Hummingbird
import Metrics

/// Records `http_server_request_duration_seconds{method,route,status}`, a histogram in seconds.
///
/// `route` is the matched route pattern (`/v1/tours/{id}`), or `unmatched` for unknown paths, so the
/// number of series stays bounded whatever clients request.
public struct HTTPMetricsMiddleware: RouterMiddleware {
    /// The request context of Waypoint services.
    public typealias Context = ServiceRequestContext

    /// The metric's name.
    public static let metricName = "http_server_request_duration_seconds"

    private let factory: any MetricsFactory

    /// Creates the middleware writing through `factory` (usually ``ServiceMetrics/factory``).
    public init(factory: any MetricsFactory) {
        self.factory = factory
    }

    /// Times `next` and records the outcome.
    public func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            record(request, context, status: Int(response.status.code), since: start)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            record(request, context, status: Int(status), since: start)
            throw error
        }
    }

    private func record(_ request: Request, _ context: Context, status: Int, since start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        let nanoseconds = elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
        let timer = Timer(
            label: Self.metricName,
            dimensions: [
                ("method", request.method.rawValue),
                ("route", Self.routeLabel(context.endpointPath)),
                ("status", String(status)),
            ],
            factory: factory
        )
        timer.recordNanoseconds(nanoseconds)
    }

    /// The matched route pattern, or `unmatched` (Hummingbird marks unrouted requests `NotFound`).
    static func routeLabel(_ endpointPath: String?) -> String {
        guard let endpointPath, endpointPath.hasPrefix("/") else { return "unmatched" }
        return endpointPath
    }
}
