import Auth
import Contracts
import Foundation
import Kafka
import Logging
import Messaging
import ServiceTesting
import Testing

@Suite("auth: operator commands and the Kafka topic")
struct OperationsTests {
    /// Runs the built `auth` executable with `arguments` against the harness's data directory.
    static func runAuth(_ arguments: [String], harness: AuthHarness, environment extra: [String: String] = [:], stdin: String? = nil) throws
        -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = try BuiltExecutable.url(named: "auth")
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("WAYPOINT_") }
        environment["WAYPOINT_DATA_DIR"] = harness.directory.url.path
        environment["WAYPOINT_AUTH_BCRYPT_COST"] = "10"
        environment["WAYPOINT_LOG_LEVEL"] = "warning"
        environment.merge(extra) { _, new in new }
        process.environment = environment
        let output = Pipe(), input = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data((stdin + "\n").utf8)) }
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test("`auth create-admin` creates the first administrator (password from stdin); `auth rotate-signing-key` adds a signing key")
    func operatorCommands() async throws {
        let harness = AuthHarness()
        defer { harness.remove() }
        let created = try Self.runAuth(["create-admin", "--username", "operator1", "--email", "ops@example.com"], harness: harness,
                                       stdin: "Operator123")
        #expect(created.status == 0, "\(created.output)")
        #expect(created.output.contains("administrator operator1"))
        let weak = try Self.runAuth(["create-admin", "--username", "operator2", "--email", "ops2@example.com"], harness: harness,
                                    environment: ["WAYPOINT_ADMIN_PASSWORD": "weak"])
        #expect(weak.status != 0)
        #expect(weak.output.contains("password"))
        let kidBefore = try await harness.run { server, _ in await server.keyRing.currentKid }
        let rotated = try Self.runAuth(["rotate-signing-key"], harness: harness)
        #expect(rotated.status == 0, "\(rotated.output)")
        try await harness.run { server, client in
            let login = try await client.login("ops@example.com", password: "Operator123")
            #expect(login.status == 200)
            #expect((login.json["user"] as? [String: Any])?["role"] as? String == "admin")
            let kid = await server.keyRing.currentKid
            #expect(kid != kidBefore && rotated.output.contains(kid ?? "?"))
            let keys = try #require(try await client.send(.get, "/.well-known/jwks.json").json["keys"] as? [[String: Any]])
            #expect(Set(keys.compactMap { $0["kid"] as? String }) == Set([kid, kidBefore].compactMap { $0 }),
                    "the old key stays published while its tokens may still be valid")
        }
    }

    @Test("on Kafka, auth relays its published events to waypoint.auth, keyed by stream, and nothing internal")
    func relaysToKafka() async throws {
        let cluster = try KafkaMockCluster()
        defer { cluster.shutdown() }
        let harness = AuthHarness()
        defer { harness.remove() }
        let brokers = cluster.bootstrapServers
        let received = try await harness.run({ configuration in
            configuration.runtime.kafkaBrokers = brokers
        }) { _, client in
            _ = try await client.register("kafka1", "kafka1@example.com")
            let login = try await client.login("kafka1@example.com")
            _ = try await client.refresh(try #require(login["refreshToken"]))
            _ = try await client.send(.post, "/v1/auth/logout", token: login["accessToken"])
            var logger = Logger(label: "test.auth.kafka")
            logger.logLevel = .warning
            let consumer = try KafkaConsumer(
                configuration: KafkaConfiguration(bootstrapServers: brokers, clientID: "auth-test",
                                                  properties: KafkaMockCluster.clientProperties.merging(["session.timeout.ms": "6000"]) { $1 }),
                groupID: "auth-test", topics: [Topic.auth.name], logger: logger)
            var received: [PublishedEvent] = []
            let deadline = ContinuousClock.now + .seconds(30)
            while received.count < 3, ContinuousClock.now < deadline {
                for message in try await consumer.poll(maxMessages: 100, timeout: .milliseconds(500)) {
                    if let event = PublishedEvent(kafkaMessage: message) { received.append(event) }
                }
            }
            await consumer.close()
            return received
        }
        #expect(received.map(\.eventType).sorted() == ["SessionRevoked", "SessionStarted", "UserRegistered"])
        #expect(received.allSatisfy { $0.source == "auth" })
        let registered = try #require(received.first { $0.eventType == "UserRegistered" })
        let payload = try registered.decode(UserRegistered.self)
        #expect(registered.streamID == "user-\(payload.userId.uuidString.lowercased())")
        #expect(!String(decoding: registered.payload, as: UTF8.self).contains("kafka1"))
    }
}
