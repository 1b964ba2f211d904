/// Who an ID token proves the caller to be at an identity provider.
public struct OIDCIdentity: Sendable, Hashable {
    /// The provider's name (``OIDCProvider/name``).
    public var provider: String
    /// The provider's stable user id (`sub`); with ``provider``, the key to link an account.
    public var subject: String
    /// The e-mail address (`email`), when the provider shares it.
    public var email: String?
    /// Whether the provider vouches for ``email`` (`email_verified`, a bool or the string `"true"`).
    public var emailVerified: Bool
    /// The display name (`name`), when present.
    public var name: String?

    /// Creates an identity.
    public init(provider: String, subject: String, email: String?, emailVerified: Bool, name: String?) {
        self.provider = provider
        self.subject = subject
        self.email = email
        self.emailVerified = emailVerified
        self.name = name
    }
}
