import Hummingbird
import NIOCore
import ServiceKit
import Synchronization

/// The key set a test JWKS server publishes, changeable while it runs, counting requests.
public final class JWKSEndpoint: Sendable {
    private let state: Mutex<(keys: [JSONWebKey], requests: Int)>

    public init(keys: [TestSigningKey]) {
        self.state = Mutex((keys.map(\.jwk), 0))
    }

    /// Publishes `keys` from now on (a key rotation at `auth`).
    public func publish(_ keys: [TestSigningKey]) {
        state.withLock { $0.keys = keys.map(\.jwk) }
    }

    /// How many times the key set was fetched.
    public var requests: Int { state.withLock { $0.requests } }

    /// A router serving the key set at `/.well-known/jwks.json`.
    public func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/.well-known/jwks.json") { _, _ in
            let keys = self.state.withLock { state in
                state.requests += 1
                return state.keys
            }
            let json = try JSONWebKeySet(keys: keys).jsonString()
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: json)))
        }
        return router
    }
}
