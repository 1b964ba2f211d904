/// Adapters of the `auth` service that hold no domain rules: password hashing (bcrypt through libxcrypt), signing keys
/// and access-token issuing, OpenID Connect ID-token verification for SSO, and outgoing mail.
public enum AuthInfrastructure {}
