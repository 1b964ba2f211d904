import AsyncHTTPClient
import Foundation
import Gateway
import Logging
import Messaging
import ServiceKit
import ServiceLifecycle
import ServiceTesting
import Synchronization
import Testing

@Suite("Graceful shutdown: readiness turns 503 before the listener closes")
struct ShutdownTests {
    @Test("on shutdown /health/ready answers 503 draining for the drain delay, then the gateway stops")
    func drainsInOrder() async throws {
        let ports = AsyncStream.makeStream(of: Int.self)
        let configuration = GatewayConfiguration(
            service: ServiceConfiguration(serviceName: GatewayService.name, port: 0, drainTimeout: .seconds(30), drainDelay: .seconds(10)),
            endpoints: ServiceEndpoints(baseURLs: [:]), requiredServices: [])
        let app = try buildGateway(configuration: configuration, metrics: ServiceMetrics(), keySource: StaticKeySource(keys: [:]),
                                   logger: LoopbackServer.quietLogger, onServerRunning: { ports.continuation.yield($0.localAddress!.port!) })
        let group = ServiceGroup(configuration: .init(services: [app], logger: LoopbackServer.quietLogger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var iterator = ports.stream.makeAsyncIterator()
            let port = try #require(await iterator.next())
            let url = "http://127.0.0.1:\(port)/health/ready"
            #expect(try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(5)).status == .ok)
            await group.triggerGracefulShutdown()
            let draining = try await eventually(timeout: .seconds(10)) {  // the whole drain delay: a starved test process may poll seconds late
                let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(5))
                let body = String(buffer: try await response.body.collect(upTo: 1 << 16))
                return response.status == .serviceUnavailable && body.contains("draining")
            }
            #expect(draining)
            try await tasks.waitForAll()
        }
    }
}
