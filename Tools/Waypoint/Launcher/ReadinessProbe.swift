import AsyncHTTPClient
import Foundation

/// Asks a service whether it is ready: `GET /health/ready` answering 200. A refused connection is simply "not yet" —
/// tour-management, for instance, imports the 209,579-city gazetteer into an empty database before it listens.
public struct ReadinessProbe: Sendable {
    /// How long one probe may take.
    public var timeout: Duration = .seconds(2)
    /// Pause between probes while waiting.
    public var interval: Duration = .milliseconds(250)

    public init() {}

    /// Whether `baseURL/health/ready` answers 200 now.
    public func isReady(_ baseURL: String) async -> Bool {
        let request = HTTPClientRequest(url: "\(baseURL)/health/ready")
        do {
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(Int64(timeout.components.seconds)))
            _ = try await response.body.collect(upTo: 1 << 20)
            return response.status == .ok
        } catch {
            return false
        }
    }

    /// Probes until ready (true) or until the task is cancelled (false).
    public func waitUntilReady(_ baseURL: String) async -> Bool {
        while !Task.isCancelled {
            if await isReady(baseURL) { return true }
            try? await Task.sleep(for: interval)
        }
        return false
    }
}
