import Foundation
import Hummingbird
import NIOCore
import Synchronization

/// A loopback stand-in for Open-Meteo's forecast (`/v1/forecast`) and archive (`/v1/archive`) APIs that answers in
/// Open-Meteo's real JSON (the shape of `Tests/Fixtures/OpenMeteo/forecast-krems.json`), validates the parameters as
/// Open-Meteo does (400 with `{"error":true,"reason":…}`), can be told to misbehave, and counts requests.
///
/// Weather comes from ``weather`` (default ``OpenMeteoStandIn/Hour/synthetic(hourStart:)``, values known to tests);
/// a `nil` hour is served as `null`s, as Open-Meteo does for hours it has no data for yet.
public final class OpenMeteoStandIn: Sendable {
    /// How the stand-in answers.
    public enum Behaviour: Sendable, Equatable {
        /// As Open-Meteo does.
        case normal
        /// 503 with a plain-text body, as a proxy in front of a dead Open-Meteo answers. (A refused connection is
        /// `ServiceTesting.closedPort()`.)
        case down
        /// As Open-Meteo does, after waiting this long.
        case slow(Duration)
        /// This HTTP status with Open-Meteo's error body.
        case status(Int)
        /// 200 and the first bytes of the body at once, the rest after waiting this long (a connection that stalls
        /// mid-answer).
        case stallingBody(Duration)
        /// 200 with a body that is not JSON.
        case garbage
        /// 200 with this body, whatever was asked (e.g. a saved real answer).
        case replay(String)
    }

    /// One hour of weather in Open-Meteo's base units (°C, mm, WMO code, m/s, degrees).
    public struct Hour: Sendable, Equatable {
        /// `temperature_2m`, °C.
        public var temperatureC: Double
        /// `precipitation`, mm in the hour.
        public var precipitationMm: Double
        /// `weather_code`, WMO code 0–99.
        public var weatherCode: Int
        /// `wind_speed_10m`, m/s (served in the unit asked for).
        public var windSpeedMps: Double
        /// `wind_direction_10m`, degrees the wind comes from.
        public var windDirectionDeg: Double

        /// An hour with these values.
        public init(temperatureC: Double, precipitationMm: Double, weatherCode: Int, windSpeedMps: Double, windDirectionDeg: Double) {
            self.temperatureC = temperatureC
            self.precipitationMm = precipitationMm
            self.weatherCode = weatherCode
            self.windSpeedMps = windSpeedMps
            self.windDirectionDeg = windDirectionDeg
        }

        /// The default weather: every value a function of the UTC hour of day `h` only, different for each hour —
        /// temperature −2 + 0.7·h °C, precipitation 0.4 mm when h is a multiple of 5 (else 0), WMO code
        /// [0, 1, 2, 3, 45, 61, 63, 80, 95][h mod 9], wind 1 + 0.25·h m/s from (15·h) mod 360 degrees.
        public static func synthetic(hourStart: Int) -> Hour {
            let h = ((hourStart / 3600) % 24 + 24) % 24
            return Hour(temperatureC: ((-2 + 0.7 * Double(h)) * 10).rounded() / 10, precipitationMm: h % 5 == 0 ? 0.4 : 0,
                        weatherCode: [0, 1, 2, 3, 45, 61, 63, 80, 95][h % 9], windSpeedMps: 1 + 0.25 * Double(h),
                        windDirectionDeg: Double((15 * h) % 360))
        }
    }

    /// The weather of the hour starting at `hourStart` (seconds since the epoch) at a latitude and longitude.
    public typealias Weather = @Sendable (_ hourStart: Int, _ latitude: Double, _ longitude: Double) -> Hour?

    private struct State {
        var behaviour: Behaviour = .normal
        var queries: [(path: String, query: [String: String])] = []
        var weather: Weather
    }

    private let state: Mutex<State>

    /// A stand-in serving `weather` (default: ``Hour/synthetic(hourStart:)`` everywhere).
    public init(weather: @escaping Weather = { hour, _, _ in Hour.synthetic(hourStart: hour) }) {
        state = Mutex(State(weather: weather))
    }

    /// Answers as `behaviour` says from now on.
    public func behave(_ behaviour: Behaviour) {
        state.withLock { $0.behaviour = behaviour }
    }

    /// Serves `weather` from now on.
    public func serve(_ weather: @escaping Weather) {
        state.withLock { $0.weather = weather }
    }

    /// Requests received so far, whatever was answered.
    public var requests: Int { state.withLock { $0.queries.count } }

    /// Path and query parameters of the last request.
    public var lastRequest: (path: String, query: [String: String])? { state.withLock { $0.queries.last } }

    /// Runs the stand-in on loopback for the duration of `body`, which gets its base URL (`http://127.0.0.1:<port>`).
    public func run<T: Sendable>(_ body: @Sendable (String) async throws -> T) async throws -> T {
        try await LoopbackServer.run(router: router()) { port in try await body("http://127.0.0.1:\(port)") }
    }

    /// A router answering `GET /v1/forecast` and `GET /v1/archive`.
    public func router() -> Router<BasicRequestContext> {
        let router = Router()
        for path in ["/v1/forecast", "/v1/archive"] {
            router.get(RouterPath(path)) { request, _ in try await self.answer(request, path: path) }
        }
        return router
    }

    private func answer(_ request: Request, path: String) async throws -> Response {
        var query: [String: String] = [:]
        for (key, value) in request.uri.queryParameters { query[String(key)] = String(value) }
        let (behaviour, weather) = state.withLock { state in
            state.queries.append((path, query))
            return (state.behaviour, state.weather)
        }
        switch behaviour {
        case .normal: break
        case .down: return Self.response(.serviceUnavailable, "503 Service Unavailable\n", type: "text/plain")
        case .slow(let delay): try await Task.sleep(for: delay)
        case .status(let code): return Self.error(HTTPResponse.Status(code: code), reason: "stand-in told to answer \(code)")
        case .stallingBody(let delay): return Self.stalling(after: "{\"latitude\":48.4,", for: delay)
        case .garbage: return Self.response(.ok, "<html><body>Bad gateway", type: "application/json")
        case .replay(let body): return Self.response(.ok, body, type: "application/json")
        }
        do {
            let parsed = try OpenMeteoStandInQuery(query, archive: path == "/v1/archive")
            return Self.response(.ok, parsed.answer(weather: weather), type: "application/json")
        } catch {
            return Self.error(.badRequest, reason: (error as? OpenMeteoStandInQuery.Invalid)?.reason ?? "\(error)")
        }
    }

    private static func error(_ status: HTTPResponse.Status, reason: String) -> Response {
        response(status, "{\"error\":true,\"reason\":\(OpenMeteoStandInQuery.jsonString(reason))}", type: "application/json")
    }

    private static func stalling(after start: String, for delay: Duration) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody { writer in
            try await writer.write(ByteBuffer(string: start))
            try await Task.sleep(for: delay)
            try await writer.write(ByteBuffer(string: "\"longitude\":15.6}"))
            try await writer.finish(nil)
        })
    }

    private static func response(_ status: HTTPResponse.Status, _ body: String, type: String) -> Response {
        Response(status: status, headers: [.contentType: type], body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}
