/// Identity checks inside handlers.
extension ServiceRequestContext {
    /// The caller, or 401 `unauthenticated` when the request carries no verified token.
    public func requireIdentity() throws -> AuthenticatedIdentity {
        guard let identity else { throw Problem.unauthenticated() }
        return identity
    }

    /// The caller when their role is one of `roles`; 401 without a caller, 403 with another role.
    @discardableResult
    public func requireRole(_ roles: Role...) throws -> AuthenticatedIdentity {
        try requireRole(in: Set(roles))
    }

    /// The caller when their role is in `roles`; 401 without a caller, 403 with another role.
    @discardableResult
    public func requireRole(in roles: Set<Role>) throws -> AuthenticatedIdentity {
        let identity = try requireIdentity()
        guard roles.contains(identity.role) else {
            let names = roles.map(\.rawValue).sorted().joined(separator: ", ")
            let requirement = roles.count == 1 ? "the role \(names)" : "one of the roles \(names)"
            throw Problem.forbidden("This action requires \(requirement).", code: "insufficient-role")
        }
        return identity
    }
}
