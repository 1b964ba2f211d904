/// The gateway: the single public entry point of the platform (routing, edge auth, rate limits, caching, push).
public enum GatewayService {
    /// The service's name in configuration keys, logs and metrics.
    public static let name = "gateway"
}
