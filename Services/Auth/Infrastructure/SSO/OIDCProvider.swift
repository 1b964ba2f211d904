/// An OpenID Connect identity provider whose ID tokens `auth` accepts for single sign-on.
public struct OIDCProvider: Sendable, Hashable {
    /// The name clients use in `POST /v1/auth/sso/{provider}` (`google`, `apple`).
    public var name: String
    /// Accepted values of the `iss` claim.
    public var issuers: [String]
    /// URL of the provider's JWK Set (its RS256 signing keys).
    public var jwksURL: String
    /// Our client ids at this provider; the token's `aud` must contain one of them.
    public var audiences: [String]

    /// Creates a provider.
    public init(name: String, issuers: [String], jwksURL: String, audiences: [String]) {
        self.name = name
        self.issuers = issuers
        self.jwksURL = jwksURL
        self.audiences = audiences
    }

    /// Sign in with Google: `clientIDs` are the OAuth client ids of our apps (iOS, Android, web).
    public static func google(
        clientIDs: [String],
        jwksURL: String = "https://www.googleapis.com/oauth2/v3/certs"
    ) -> OIDCProvider {
        OIDCProvider(
            name: "google",
            issuers: ["https://accounts.google.com", "accounts.google.com"],
            jwksURL: jwksURL,
            audiences: clientIDs
        )
    }

    /// Sign in with Apple: `clientIDs` are our app bundle ids and Services ids.
    public static func apple(
        clientIDs: [String],
        jwksURL: String = "https://appleid.apple.com/auth/keys"
    ) -> OIDCProvider {
        OIDCProvider(
            name: "apple",
            issuers: ["https://appleid.apple.com"],
            jwksURL: jwksURL,
            audiences: clientIDs
        )
    }
}
