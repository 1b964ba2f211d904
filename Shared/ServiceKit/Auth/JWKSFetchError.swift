/// The JWKS endpoint answered with a status other than 200.
struct JWKSFetchError: Error, CustomStringConvertible {
    /// The HTTP status received.
    let status: Int

    var description: String { "JWKS endpoint answered HTTP \(status)" }
}
