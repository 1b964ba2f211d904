import AsyncHTTPClient
import Contracts
import Foundation
import NIOCore

/// The weather at a ride's start from an Open-Meteo-compatible HTTP API (no key): `api.open-meteo.com` and
/// `archive-api.open-meteo.com`, or a self-hosted Open-Meteo, or the loopback stand-in of the tests.
///
/// A ride that started within ``archiveAfter`` (60 days) is asked of the forecast API (`/v1/forecast`, which keeps
/// 92 days of past data and has today's hours at once); an older one of the archive API (`/v1/archive`, from 1940 to
/// about 5 days ago). See ``OpenMeteoRequest`` for the exact request. The answer's hour containing the start is taken.
///
/// The whole exchange — connecting, the answer's head and its body — is bounded by ``timeout``; every failure throws a
/// ``WeatherError``.
public struct OpenMeteoWeatherProvider: WeatherProvider {
    /// The ``WeatherObservation/source`` of every observation: Open-Meteo's data is CC BY 4.0 and must be attributed.
    public static let sourceName = "open-meteo"
    /// Largest answer read, bytes (a day of five hourly variables is about 1.5 kB).
    public static let maximumAnswerBytes = 1 << 20

    /// Base URL of the forecast API, e.g. `https://api.open-meteo.com`.
    public let baseURL: String
    /// Base URL of the archive API: by default `https://archive-api.open-meteo.com` for Open-Meteo's public
    /// `https://api.open-meteo.com` (`customer-archive-api…` for `customer-api…`), else ``baseURL`` itself (a
    /// self-hosted Open-Meteo, or the stand-in, serves both paths on one host).
    public let archiveURL: String
    /// Upper bound on one lookup, from connecting to the last byte of the answer.
    public let timeout: Duration
    /// Rides that started longer ago than this are asked of the archive API.
    public let archiveAfter: Duration

    private let httpClient: HTTPClient
    private let now: @Sendable () -> Date

    /// An adapter for the API at `baseURL` (and `archiveURL`, see ``archiveURL`` for its default), each lookup bounded
    /// by `timeout` (default 3 s), sending through `httpClient`. `now` decides which API a ride's start belongs to.
    public init(baseURL: String, archiveURL: String? = nil, timeout: Duration = .seconds(3),
                archiveAfter: Duration = .seconds(60 * 86_400), httpClient: HTTPClient = .shared,
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.baseURL = baseURL
        self.archiveURL = archiveURL ?? Self.archiveURL(besides: baseURL)
        self.timeout = timeout
        self.archiveAfter = archiveAfter
        self.httpClient = httpClient
        self.now = now
    }

    /// The weather of the hour containing `time` at `latitude`, `longitude`.
    public func observation(latitude: Double, longitude: Double, time: Double) async throws -> WeatherObservation {
        let request = try request(latitude: latitude, longitude: longitude, time: time)
        let url = request.url(base: request.api == .archive ? archiveURL : baseURL)
        let body = try await fetch(url)
        return try OpenMeteoHourlyAnswer.decode(body).observation(at: time, source: Self.sourceName)
    }

    /// The archive API that goes with the forecast API at `baseURL`: Open-Meteo's own hosts differ, a self-hosted
    /// server's do not.
    public static func archiveURL(besides baseURL: String) -> String {
        for (forecast, archive) in [("://api.open-meteo.com", "://archive-api.open-meteo.com"),
                                    ("://customer-api.open-meteo.com", "://customer-archive-api.open-meteo.com")]
        where baseURL.lowercased().contains(forecast) {
            return baseURL.replacingOccurrences(of: forecast, with: archive, options: .caseInsensitive)
        }
        return baseURL
    }

    /// The request a lookup for `time` sends: the archive API for rides older than ``archiveAfter``.
    public func request(latitude: Double, longitude: Double, time: Double) throws(WeatherError) -> OpenMeteoRequest {
        let age = now().timeIntervalSince1970 - time
        return try OpenMeteoRequest(api: age > archiveAfter.timeInterval ? .archive : .forecast,
                                latitude: latitude, longitude: longitude, time: time)
    }

    /// GETs `url` within ``timeout`` and returns the body of a 200 answer.
    private func fetch(_ url: String) async throws(WeatherError) -> Data {
        let client = httpClient
        let limit = timeout
        do {
            return try await Self.within(limit) {
                var request = HTTPClientRequest(url: url)
                request.headers.add(name: "Accept", value: "application/json")
                let response = try await client.execute(request, timeout: .nanoseconds(Int64(limit / .nanoseconds(1))))
                let body = Data(try await response.body.collect(upTo: Self.maximumAnswerBytes).readableBytesView)
                guard response.status == .ok else {
                    let reason = try? JSONDecoder().decode(OpenMeteoErrorAnswer.self, from: body).reason
                    throw WeatherError.upstreamStatus(Int(response.status.code), reason: reason)
                }
                return body
            }
        } catch let error as WeatherError {
            throw error
        } catch let error as HTTPClientError where [.deadlineExceeded, .connectTimeout, .readTimeout].contains(error) {
            throw .timedOut(limit)
        } catch let error as NIOTooManyBytesError {
            throw .malformedResponse("answer longer than \(error.maxBytes.map(String.init) ?? "the limit") bytes")
        } catch {
            throw .unreachable(String(describing: error))
        }
    }

    /// Runs `work`, throwing ``WeatherError/timedOut(_:)`` if it has not finished after `limit` (then cancelling it):
    /// AsyncHTTPClient's own deadline covers the answer's head only, not a body that trickles in.
    static func within<T: Sendable>(_ limit: Duration, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        try await TimeLimit.run(limit, onTimeout: { WeatherError.timedOut(limit) }, work)
    }
}

/// Open-Meteo's error answer: `{"error": true, "reason": "…"}` with HTTP 400.
struct OpenMeteoErrorAnswer: Decodable {
    var reason: String
}
