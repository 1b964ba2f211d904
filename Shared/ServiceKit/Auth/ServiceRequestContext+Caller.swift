#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The caller as a user id, for handlers that record who acted.
extension ServiceRequestContext {
    /// The verified caller's user id (the token's `sub` as a UUID).
    ///
    /// 401 `unauthenticated` without a verified caller; 403 `forbidden` ("unknown caller") when the subject is not a
    /// user id — a token for something other than a user.
    public func requireCallerID() throws -> UUID {
        guard let user = UUID(uuidString: try requireIdentity().subject) else { throw Problem.forbidden("unknown caller") }
        return user
    }
}
