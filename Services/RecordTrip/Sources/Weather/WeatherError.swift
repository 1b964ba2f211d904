/// Why a weather lookup failed. Every failure of a ``WeatherProvider`` is one of these, so the caller can leave the
/// trip's weather absent and try again later without knowing which HTTP library sits underneath.
public enum WeatherError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The place or time cannot be asked about: a coordinate outside WGS 84's range, NaN, or a time outside 1940–2200.
    case invalidQuery(latitude: Double, longitude: Double, time: Double)
    /// The provider could not be reached (connection refused or reset, name not resolved, TLS failure).
    case unreachable(String)
    /// The provider did not answer completely within the timeout.
    case timedOut(Duration)
    /// The provider answered with an HTTP status other than 200; `reason` is Open-Meteo's `reason` field when given.
    case upstreamStatus(Int, reason: String?)
    /// The answer is not the JSON the provider documents (not JSON, missing arrays, arrays of unequal length, an unknown
    /// unit).
    case malformedResponse(String)
    /// The answer has no complete hour containing the time (seconds since the Unix epoch): outside the returned window, or
    /// the values of that hour are `null` (not yet available).
    case hourMissing(Double)

    /// Whether asking again later may succeed; an invalid query never will.
    public var isTransient: Bool {
        if case .invalidQuery = self { return false }
        return true
    }

    public var description: String {
        switch self {
        case let .invalidQuery(latitude, longitude, time):
            "no weather can be asked for latitude \(latitude), longitude \(longitude) at \(time)"
        case let .unreachable(detail): "weather provider unreachable: \(detail)"
        case let .timedOut(limit): "weather provider did not answer within \(limit)"
        case let .upstreamStatus(status, reason): "weather provider answered HTTP \(status)\(reason.map { ": \($0)" } ?? "")"
        case let .malformedResponse(detail): "weather provider's answer is malformed: \(detail)"
        case let .hourMissing(time): "weather provider's answer has no complete hour containing \(time)"
        }
    }
}
