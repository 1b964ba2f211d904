import Contracts
import EventSourcing
import ContractTesting
import Foundation
import NIOCore
@testable import GatewayNotifications
import AsyncHTTPClient
import ServiceTesting
import Testing
import TourManagement

/// The push stream end to end on the embedded transport: tour-management's real log, notifier and feed on loopback →
/// the gateway's hub → `GET /v1/notifications/stream` over a real HTTP connection.
@Suite("gateway: the notification stream (Server-Sent Events)")
struct NotificationStreamTests {
    @Test("a purchase confirmed in tour-management reaches its buyer's open stream, and no one else's")
    func deliversToTheRightUserOnly() async throws {
        try await NotificationProducer.run { producer, url in
            let hub = NotificationGateway.embeddedHub(producerURL: url, keepAlive: .milliseconds(200))
            try await NotificationGateway.run(hub: hub) { port in
                let buyer = UUID.v4(), other = UUID.v4()
                #expect(try await eventually { hub.status == .live })
                let buyerStream = try await SSEClient.open(port: port, user: buyer)
                let otherStream = try await SSEClient.open(port: port, user: other)
                defer { buyerStream.close(); otherStream.close() }
                #expect(buyerStream.status == 200)
                #expect(buyerStream.contentType?.hasPrefix("text/event-stream") == true)
                #expect(buyerStream.cacheControl == "no-store")
                #expect(try await eventually { hub.subscriberCount == 2 })

                try await producer.unrelatedEvent()
                let id = try await producer.completePurchase(buyer: buyer, amountMinor: 990)
                #expect(try await eventually { buyerStream.notifications.count == 1 })
                let message = try #require(buyerStream.notifications.first)
                #expect(message.id == id.uuidString.lowercased())
                #expect(message.event == "purchase.confirmed")
                let notification = try ContractJSON.decode(UserNotified.self, from: Data(try #require(message.data).utf8))
                #expect(notification.userId == buyer)
                #expect(notification.notificationId == id)
                #expect(notification.body.contains("9.90 EUR"))
                // The other user's stream stays open and idle: keep-alive comments, no notification.
                #expect(try await eventually { otherStream.received.contains { $0.comment == "keep-alive" } })
                #expect(otherStream.notifications.isEmpty)
                #expect(buyerStream.notifications.count == 1)
            }
        }
    }

    @Test("Last-Event-ID resumes after the last seen notification; an unknown id replays every buffered one")
    func resume() async throws {
        try await NotificationProducer.run { producer, url in
            let hub = NotificationGateway.embeddedHub(producerURL: url)
            let buyer = UUID.v4()
            // Notified while no stream was open: the hub buffers them.
            var collected: [UUID] = []
            for amount in [100, 200, 300] as [Int64] { collected.append(try await producer.completePurchase(buyer: buyer, amountMinor: amount)) }
            let ids = collected
            try await NotificationGateway.run(hub: hub) { port in
                #expect(try await eventually { hub.bufferedCounts.notifications == 3 })
                let resumed = try await SSEClient.open(port: port, user: buyer, lastEventID: ids[0].uuidString.lowercased())
                defer { resumed.close() }
                #expect(try await eventually { resumed.notifications.count == 2 })
                #expect(resumed.notifications.map(\.id) == ids[1...].map { $0.uuidString.lowercased() })
                #expect(resumed.received.first?.retry == "5000", "the stream opens with the reconnection delay")

                let unknown = try await SSEClient.open(port: port, user: buyer, lastEventID: UUID.v4().uuidString)
                defer { unknown.close() }
                #expect(try await eventually { unknown.notifications.count == 3 })
                #expect(unknown.notifications.map(\.id) == ids.map { $0.uuidString.lowercased() })

                let fresh = try await SSEClient.open(port: port, user: buyer)
                defer { fresh.close() }
                #expect(try await eventually { fresh.notifications.count == 3 })

                // And the resumed stream goes on live after its backlog.
                let next = try await producer.completePurchase(buyer: buyer)
                #expect(try await eventually { resumed.notifications.count == 3 })
                #expect(resumed.notifications.last?.id == next.uuidString.lowercased())
            }
        }
    }

    @Test("an idle stream gets a keep-alive comment at the configured interval")
    func keepAlive() async throws {
        try await NotificationProducer.run { _, url in
            let hub = NotificationGateway.embeddedHub(producerURL: url, keepAlive: .milliseconds(100))
            try await NotificationGateway.run(hub: hub) { port in
                let stream = try await SSEClient.open(port: port, user: .v4())
                defer { stream.close() }
                #expect(try await eventually(timeout: .seconds(20)) { stream.received.filter { $0.comment == "keep-alive" }.count >= 3 })
                #expect(stream.notifications.isEmpty)
            }
        }
    }

    @Test("a client that disconnects is removed from the hub at once, without waiting for a keep-alive")
    func disconnectFreesTheSubscriber() async throws {
        try await NotificationProducer.run { _, url in
            let hub = NotificationGateway.embeddedHub(producerURL: url, keepAlive: .seconds(60))
            try await NotificationGateway.run(hub: hub) { port in
                let stream = try await SSEClient.open(port: port, user: .v4())
                #expect(try await eventually { hub.subscriberCount == 1 })
                stream.close()
                #expect(try await eventually(timeout: .seconds(20)) { hub.subscriberCount == 0 })
            }
        }
    }

    @Test("the server's graceful shutdown ends open streams cleanly")
    func shutdownEndsStreams() async throws {
        try await NotificationProducer.run { _, url in
            let hub = NotificationGateway.embeddedHub(producerURL: url, keepAlive: .seconds(60))
            let stream = try await NotificationGateway.run(hub: hub) { port in
                let stream = try await SSEClient.open(port: port, user: .v4())
                #expect(try await eventually { hub.subscriberCount == 1 })
                return stream  // still open when the gateway shuts down
            }
            // NotificationGateway.run returned: the shutdown did not wait on the stream, and the client saw it end.
            #expect(try await eventually(timeout: .seconds(20)) { stream.ended })
            #expect(hub.subscriberCount == 0)
        }
    }

    @Test("without a user there is no stream; a user id that is not a UUID is 401; a request with a body is 400")
    func refusals() async throws {
        try await NotificationProducer.run { _, url in
            let hub = NotificationGateway.embeddedHub(producerURL: url)
            try await NotificationGateway.run(hub: hub) { port in
                let anonymous = try await SSEClient.open(port: port, user: nil)
                #expect(anonymous.status == 401)
                var notAUser = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/notifications/stream")
                notAUser.headers.add(name: "X-Test-User", value: "alice")
                #expect(try await HTTPClient.shared.execute(notAUser, timeout: .seconds(5)).status.code == 401)
                var withBody = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/notifications/stream")
                withBody.headers.add(name: "X-Test-User", value: UUID.v4().uuidString)
                withBody.body = .bytes(ByteBuffer(string: "hello"))
                #expect(try await HTTPClient.shared.execute(withBody, timeout: .seconds(5)).status.code == 400)
                #expect(hub.subscriberCount == 0)
            }
        }
    }

    @Test("a user erased in auth loses their buffer and open streams; later notifications for them are not kept")
    func erasureFromAuth() async throws {
        try await NotificationProducer.run { producer, url in
            try await NotificationProducer.run(serviceName: "auth", serves: { _ in true }) { auth, authURL in
                let hub = NotificationGateway.embeddedHub(producerURL: url, authURL: authURL)
                try await NotificationGateway.run(hub: hub) { port in
                    let user = UUID.v4(), other = UUID.v4()
                    try await producer.completePurchase(buyer: user)
                    let stream = try await SSEClient.open(port: port, user: user)
                    defer { stream.close() }
                    #expect(try await eventually { stream.notifications.count == 1 })
                    #expect(try await eventually { hub.state.withLock { $0.followsErasures } })

                    let erased = try NewEvent(eventType: UserErased.eventType, encoding: UserErased(userId: user, erasedAt: Date()))
                    try await auth.store.append(erased, to: "user-\(user.uuidString.lowercased())", expectedVersion: .any)
                    #expect(try await eventually { stream.ended })
                    #expect(hub.bufferedCounts.users == 0)

                    try await producer.completePurchase(buyer: user)
                    try await producer.completePurchase(buyer: other)  // read after the one above
                    #expect(try await eventually { hub.bufferedCounts.users == 1 })
                    #expect(hub.subscribe(userID: user, after: nil).backlog.isEmpty)
                }
            }
        }
    }

    @Test("the hub reads the golden UserNotified as published, and writes it as one SSE message")
    func goldenMessage() throws {
        let notification = try GoldenFile.decode(UserNotified.self)
        let client = SSEClient.parse(try ServerSentEvent.message(for: notification))
        #expect(client.id == notification.notificationId.uuidString.lowercased())
        #expect(client.event == notification.kind.rawValue)
        #expect(try ContractJSON.decode(UserNotified.self, from: Data(try #require(client.data).utf8)) == notification)
    }
}
