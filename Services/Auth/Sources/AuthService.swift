/// The `auth` service: users, credentials, roles, sessions and signing keys.
public enum AuthService {}
