import Foundation
import ServiceTesting

extension TestSigningKey {
    /// The identity provider's ID-token signing key, published by the test JWKS endpoint.
    static let ssoProvider = try! TestSigningKey(kid: "provider-key-1")
    /// A key the provider never published.
    static let ssoStranger = try! TestSigningKey(kid: "not-published")
}
