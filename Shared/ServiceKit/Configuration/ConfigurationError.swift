/// A configuration value read from the environment that the service cannot start with.
///
/// The description names the exact environment variable, so an operator can fix it without reading code.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The environment variable that holds the invalid value, e.g. `WAYPOINT_PORT`.
    public let key: String
    /// The value as it was found in the environment.
    public let value: String
    /// What the value must look like instead.
    public let expected: String

    /// Creates an error for `key` whose `value` does not match `expected`.
    public init(key: String, value: String, expected: String) {
        self.key = key
        self.value = value
        self.expected = expected
    }

    /// A one-line message naming the key, the rejected value and what is expected.
    public var description: String {
        "invalid configuration: \(key)=\"\(value)\" — expected \(expected)"
    }
}
