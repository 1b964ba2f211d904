/// Where the Ed25519 key signing offline bundles is kept: table `bundle_signing_keys`, so every instance and every
/// restart signs with the same key (``BundleSigningKey/load(_:)``).
public protocol BundleSigningKeyStore: Sendable {
    /// The stored key (the oldest, should several instances have raced on first start), base64url-encoded; stores
    /// `encoded` under `keyId` and returns it when there is none.
    func oldestKey(insertingIfNone encoded: String, keyId: String) async throws -> String
}
