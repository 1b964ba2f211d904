import Logging
import ServiceLifecycle

/// ServiceKit's start-up and graceful-shutdown order for an HTTP server: ``ServiceApplication/run()`` uses it, and so
/// does the gateway, which builds its own server (a client idle timeout, no internal-route guard).
///
/// The group is `clients + background + [http, readiness gate]`, stopped in
/// reverse — readiness turns 503 for ``ServiceConfiguration/drainDelay``, HTTP drains, background work stops, clients
/// close last; the whole shutdown is bounded by ``ServiceConfiguration/drainTimeout``. SIGTERM and SIGINT trigger it.
public enum OrderedShutdown {
    /// Runs `http` with its `clients` and `background` services until graceful shutdown.
    public static func run(
        http: any Service,
        clients: [any Service] = [],
        background: [any Service] = [],
        readiness: Readiness,
        configuration: ServiceConfiguration,
        logger: Logger
    ) async throws {
        let orderly = ServiceGroupConfiguration.ServiceConfiguration.TerminationBehavior.gracefullyShutdownGroup
        var services = (clients + background).map { ServiceGroupConfiguration.ServiceConfiguration.named($0, success: orderly, failure: orderly) }
        services.append(.named(http, success: orderly, failure: orderly))
        let gate = ReadinessDrainGate(readiness: readiness, delay: configuration.drainDelay, logger: logger)
        services.append(.named(gate, success: .ignore, failure: orderly))
        var groupConfiguration = ServiceGroupConfiguration(services: services, logger: logger)
        groupConfiguration.gracefulShutdownSignals = [.sigterm, .sigint]
        groupConfiguration.maximumGracefulShutdownDuration = configuration.drainTimeout
        // No bound on the cancellation that follows: ServiceLifecycle ends a cancellation that overruns its bound with a
        // `fatalError`, a crash of the process for being slow (seen under a starved test run, where it took the whole
        // test process down). Whoever runs the service bounds the stop from outside — the launcher's SIGKILL after its
        // grace period, compose's `stop_grace_period`, Kubernetes' `terminationGracePeriodSeconds` — with the same
        // outcome for a hung process and none for a slow one.
        groupConfiguration.maximumCancellationDuration = nil
        try await ServiceGroup(configuration: groupConfiguration).run()
    }
}

extension ServiceGroupConfiguration.ServiceConfiguration {
    /// An entry of a service group named by the service's type. ServiceLifecycle's default name is `"\(service)"`,
    /// made eagerly when the entry is: a reflection dump of the whole value — an HTTP application's router and
    /// configuration, a service's stores — at every start, though only log lines use it.
    public static func named(_ service: any Service, success: TerminationBehavior = .cancelGroup,
                             failure: TerminationBehavior = .cancelGroup) -> Self {
        .init(service: service, successTerminationBehavior: success, failureTerminationBehavior: failure,
              serviceName: String(describing: type(of: service)))
    }
}
