import AsyncHTTPClient
import NIOCore

/// The readiness of every service behind the gateway, asked from their `/health/ready`.
struct UpstreamHealth: Sendable {
    /// One service's line in the gateway's `/health/ready`.
    struct ServiceStatus: Codable, Sendable, Equatable {
        /// The service's name.
        var name: String
        /// Whether the gateway's readiness depends on it.
        var required: Bool
        /// `ready`, `not-ready` (answered, but not 200), `down` (required and unreachable), `absent` (not required and
        /// unreachable: a service that does not exist yet) or `unconfigured` (no URL).
        var status: String
    }

    let upstreams: UpstreamPool
    let services: [String]
    let required: Set<String>
    /// How long one service may take to answer.
    var timeout: Duration = .seconds(2)

    /// Every service's status, asked concurrently.
    func check() async -> [ServiceStatus] {
        await withTaskGroup(of: ServiceStatus.self) { group in
            for name in services {
                group.addTask { await status(of: name) }
            }
            var statuses: [ServiceStatus] = []
            for await status in group { statuses.append(status) }
            return statuses.sorted { $0.name < $1.name }
        }
    }

    /// A service with several instances is as ready as its best instance: one ready instance serves.
    private func status(of name: String) async -> ServiceStatus {
        let isRequired = required.contains(name)
        guard let instances = upstreams.instances[name], !instances.isEmpty else {
            return ServiceStatus(name: name, required: isRequired, status: "unconfigured")
        }
        var answers: [String] = []
        for upstream in instances { answers.append(await answer(upstream)) }
        let status = answers.contains("ready") ? "ready" : answers.contains("not-ready") ? "not-ready" : (isRequired ? "down" : "absent")
        return ServiceStatus(name: name, required: isRequired, status: status)
    }

    /// `ready`, `not-ready` or `unreachable` for one instance.
    private func answer(_ upstream: Upstream) async -> String {
        let request = HTTPClientRequest(url: upstream.baseURL + "/health/ready")
        do {
            let milliseconds = timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
            let response = try await upstream.client.execute(request, deadline: .now() + .milliseconds(milliseconds))
            _ = try? await response.body.collect(upTo: 64 << 10)
            return response.status == .ok ? "ready" : "not-ready"
        } catch {
            return "unreachable"
        }
    }
}
