/// What a Waypoint user may do, carried in the access token's `role` claim.
///
/// There is no implicit hierarchy: a route that admins may also use lists `.admin` explicitly.
public enum Role: String, Codable, Sendable, CaseIterable {
    /// Buys, downloads and walks tours; records rides and submits bike paths.
    case traveller
    /// Authors, prices and publishes tours; sees their statistics.
    case guide
    /// Reviews submitted bike paths and reported content.
    case moderator
    /// Operates the platform.
    case admin
}
