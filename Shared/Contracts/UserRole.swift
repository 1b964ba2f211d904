/// What a user may do on the platform, as issued by `auth` in tokens and role events.
///
/// Encoded as its lowercase raw value, e.g. `"guide"`.
public enum UserRole: String, CaseIterable, Codable, Hashable, Sendable {
    /// Chooses, buys and follows tours; records rides and asks for routes.
    case traveller
    /// Authors, prices and publishes tours, and watches their statistics.
    case guide
    /// Reviews submitted bike paths and reported content.
    case moderator
    /// Operates the platform: manages users and roles.
    case admin
}
