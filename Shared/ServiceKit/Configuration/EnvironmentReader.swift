#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads `WAYPOINT_*` keys, preferring the service-specific spelling over the generic one.
///
/// `WAYPOINT_TOUR_MANAGEMENT_PORT` wins over `WAYPOINT_PORT` for the service `tour-management`, so one
/// environment (a launcher, a compose file) can configure several services at once. Empty values count
/// as unset, because compose files and shells produce `KEY=` for "nothing".
public struct EnvironmentReader: Sendable {
    /// The raw process environment.
    public let environment: [String: String]
    /// The service segment of specific keys: `tour-management` becomes `TOUR_MANAGEMENT`.
    public let serviceSegment: String

    /// A reader for `serviceName` over `environment` (the process environment by default).
    public init(serviceName: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
        self.serviceSegment = Self.segment(for: serviceName)
    }

    /// Upper-cases the service name and turns every other character than A–Z and 0–9 into `_`.
    public static func segment(for serviceName: String) -> String {
        String(serviceName.uppercased().map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" })
    }

    /// The service-specific key for `suffix`, e.g. `WAYPOINT_TOUR_MANAGEMENT_PORT`.
    public func specificKey(_ suffix: String) -> String { "WAYPOINT_\(serviceSegment)_\(suffix)" }

    /// The generic key for `suffix`, e.g. `WAYPOINT_PORT`.
    public func genericKey(_ suffix: String) -> String { "WAYPOINT_\(suffix)" }

    /// The value for `suffix` and the key it came from, or `nil` when neither spelling is set.
    public func value(_ suffix: String) -> (key: String, value: String)? {
        for key in [specificKey(suffix), genericKey(suffix)] {
            if let value = environment[key]?.trimmingCharacters(in: .whitespaces), !value.isEmpty {
                return (key, value)
            }
        }
        return nil
    }

    /// The string for `suffix`, or `defaultValue` when unset.
    public func string(_ suffix: String, default defaultValue: String) -> String {
        value(suffix)?.value ?? defaultValue
    }

    /// An integer for `suffix` inside `range`, or `defaultValue` when unset.
    public func integer(_ suffix: String, default defaultValue: Int, in range: ClosedRange<Int>) throws -> Int {
        guard let (key, raw) = value(suffix) else { return defaultValue }
        guard let parsed = Int(raw), range.contains(parsed) else {
            throw ConfigurationError(key: key, value: raw, expected: "an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return parsed
    }

    /// A duration given in (possibly fractional) seconds, at least `minimum` seconds.
    public func seconds(_ suffix: String, default defaultValue: Duration, minimum: Double) throws -> Duration {
        guard let (key, raw) = value(suffix) else { return defaultValue }
        guard let parsed = Double(raw), parsed.isFinite, parsed >= minimum, parsed <= 86_400 else {
            throw ConfigurationError(key: key, value: raw, expected: "a number of seconds between \(minimum) and 86400")
        }
        return .milliseconds(Int64((parsed * 1000).rounded()))
    }

    /// A value of a `RawRepresentable` enumeration, matched case-insensitively.
    public func choice<Choice: RawRepresentable & CaseIterable>(
        _ suffix: String,
        default defaultValue: Choice
    ) throws -> Choice where Choice.RawValue == String {
        guard let (key, raw) = value(suffix) else { return defaultValue }
        guard let parsed = Choice(rawValue: raw.lowercased()) else {
            let allowed = Choice.allCases.map(\.rawValue).joined(separator: "|")
            throw ConfigurationError(key: key, value: raw, expected: "one of \(allowed)")
        }
        return parsed
    }
}
