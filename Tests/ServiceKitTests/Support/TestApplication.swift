import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceKit
import ServiceTesting
import ServiceLifecycle

extension ServiceConfiguration {
    /// A configuration for tests: loopback, an ephemeral port, a known internal token.
    static func test(
        maxBodyBytes: Int = 64 * 1024,
        internalToken: String? = "internal-token-for-tests-0123456789",
        drainDelay: Duration = .zero
    ) -> ServiceConfiguration {
        ServiceConfiguration(
            serviceName: "servicekit-tests",
            host: "127.0.0.1",
            port: 0,
            maxBodyBytes: maxBodyBytes,
            internalToken: internalToken,
            logLevel: .critical,
            drainTimeout: .seconds(30),
            drainDelay: drainDelay
        )
    }
}

/// Builds the application the tests exercise: ServiceKit plus a handful of sample routes.
enum TestApplication {
    static let quietLogger = Logger(label: "servicekit-tests") { _ in SwiftLogNoOpLogHandler() }

    static func make(
        configuration: ServiceConfiguration = .test(),
        keySource: any AccessTokenKeySource = StaticKeySource(keys: [TestSigningKey.primary.kid: TestSigningKey.primary.publicKey]),
        readiness: Readiness = Readiness(),
        metrics: ServiceMetrics = ServiceMetrics(),
        openAPI: OpenAPIDocument? = OpenAPIDocument(yaml: "openapi: 3.1.0\ninfo:\n  title: tests\n  version: 1.0.0\n"),
        clients: [any Service] = [],
        background: [any Service] = [],
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) throws -> ServiceApplication {
        try ServiceApplication(
            configuration: configuration,
            readiness: readiness,
            metrics: metrics,
            keySource: keySource,
            openAPI: openAPI,
            clients: clients,
            background: background,
            logger: quietLogger,
            onServerRunning: onServerRunning,
            routes: addSampleRoutes
        )
    }

    static func addSampleRoutes(_ routes: ServiceRoutes) {
        routes.group("/v1").post("/tours") { request, context -> Response in
            let tour = try await request.decode(as: CreateTourRequest.self, context: context)
            var response = try context.responseEncoder.encode(tour, from: request, context: context)
            response.status = .created
            return response
        }
        routes.group("/v1").post("/uploads") { request, _ -> String in
            var received = 0
            for try await chunk in request.body { received += chunk.readableBytes }
            return String(received)
        }
        routes.group("/v1").get("/trace") { _, context in
            TraceEcho(requestId: context.requestId, traceparent: context.traceparent, parentSpanId: context.trace.parentSpanId)
        }
        routes.group("/v1").get("/failure") { _, _ -> String in throw DatabaseExploded() }
        routes.group("/v1").get("/http-error") { _, _ -> String in throw HTTPError(.conflict, message: "Tour version 3 is stale.") }
        routes.authenticated("/v1/me").get { _, context in
            let identity = try context.requireIdentity()
            return IdentityEcho(subject: identity.subject, role: identity.role)
        }
        routes.authenticated("/v1/guide", requiring: .guide, .admin).get("/tours") { _, context in
            IdentityEcho(subject: try context.requireIdentity().subject, role: try context.requireIdentity().role)
        }
        routes.internalGroup("/ping").get { _, _ in "pong" }
    }
}

extension TraceEcho: ResponseEncodable {}
extension IdentityEcho: ResponseEncodable {}
extension CreateTourRequest: ResponseEncodable {}
