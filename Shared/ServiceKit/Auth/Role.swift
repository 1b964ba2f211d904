import Contracts

/// What a Waypoint user may do, carried in the access token's `role` claim: the published `UserRole` of `Contracts`,
/// so tokens, role events and route guards share one type.
///
/// There is no implicit hierarchy: a route that admins may also use lists `.admin` explicitly.
public typealias Role = UserRole
