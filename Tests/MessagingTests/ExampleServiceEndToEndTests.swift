import AsyncHTTPClient
import EventSourcing
import Foundation
import Kafka
import Logging
import Messaging
import NIOCore
import ServiceKit
import ServiceTesting
import Testing

/// The whole path, through real HTTP on loopback: command → event appended → transport → consumer projection in a
/// second service → HTTP read. Once on the embedded transport and once on Kafka (mock cluster over TCP).
@Suite("Example service end to end", .serialized)
struct ExampleServiceEndToEndTests {
    static let token = "internal-token-for-tests-0123456789"

    static func configuration(_ name: String, port: Int = 0) -> ServiceConfiguration {
        ServiceConfiguration(serviceName: name, host: "127.0.0.1", port: port, internalToken: token, logLevel: .warning)
    }

    static func post(_ url: String, body: String) async throws -> (status: Int, contentType: String?, body: String) {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), response.headers.first(name: "Content-Type"), String(buffer: bytes))
    }

    static func get(_ url: String, token: String? = nil) async throws -> (status: Int, body: String) {
        var request = HTTPClientRequest(url: url)
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        return (Int(response.status.code), String(buffer: try await response.body.collect(upTo: 1 << 20)))
    }

    static func seen(_ port: Int) async throws -> NotesReader.Seen? {
        let response = try await get("http://127.0.0.1:\(port)/v1/seen")
        return try? JSONDecoder().decode(SeenBody.self, from: Data(response.body.utf8)).seen
    }

    struct SeenBody: Decodable {
        var notes: Int
        var maxApplied: Int
        var seen: NotesReader.Seen { NotesReader.Seen(notes: notes, maxApplied: maxApplied) }
    }

    @Test("embedded transport: notes posted to the writer reach the reader once, bad input gets problems, both sides survive restarts")
    func embeddedTransport() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await SQLiteEventStore(database: try directory.database("notes"))
        let readerDatabase = try directory.database("reader")
        try await withThrowingTaskGroup(of: Void.self) { group in
            let writerPort = BoundPort()
            let writer = try NotesWriter.application(configuration: Self.configuration("notes"), store: store, background: [],
                                                     onServerRunning: writerPort.onServerRunning)
            group.addTask { try await writer.run() }
            let writerURL = "http://127.0.0.1:\(try await writerPort.wait())"
            let feed = EmbeddedFeedSource(feeds: [EmbeddedFeed(source: "notes", baseURL: writerURL, internalToken: Self.token)])
            let readerPort = BoundPort()
            let (reader, _) = try NotesReader.application(configuration: Self.configuration("reader"), database: readerDatabase,
                                                          source: feed, onServerRunning: readerPort.onServerRunning)
            group.addTask { try await reader.run() }
            let readerURL = try await readerPort.wait()

            for index in 0..<20 {
                let created = try await Self.post("\(writerURL)/v1/notes", body: #"{"text":"note \#(index)"}"#)
                #expect(created.status == 201)
            }
            let invalid = try await Self.post("\(writerURL)/v1/notes", body: #"{"text":""}"#)
            #expect(invalid.status == 422 && invalid.contentType == "application/problem+json" && invalid.body.contains("text"))
            let malformed = try await Self.post("\(writerURL)/v1/notes", body: #"{"text":"#)
            #expect(malformed.status == 400 && malformed.contentType == "application/problem+json")
            #expect(try await Self.get("\(writerURL)/v1/internal/events?after=0").status == 401)
            #expect(try await Self.get("\(writerURL)/v1/internal/events?after=0", token: "wrong-token-wrong-token").status == 401)
            #expect(try await Self.get("\(writerURL)/v1/internal/events?limit=5000", token: Self.token).status == 422)

            #expect(try await eventually(timeout: .seconds(30)) { try await Self.seen(readerURL)?.notes == 20 })
            let page = try EventJSON.decode(EventFeedPage.self, from: Data(
                try await Self.get("\(writerURL)/v1/internal/events?after=0&limit=1", token: Self.token).body.utf8))
            let stored = try await store.readAll(after: 0, limit: 1)
            #expect(page.events.map(\.recordedAt.microsecondsSince1970) == stored.map(\.recordedAt.microsecondsSince1970),
                    "timestamps cross the feed at full (microsecond) precision")
            #expect(page.events.map(\.payload) == stored.map(\.payload))
            #expect(try await Self.seen(readerURL)?.maxApplied == 1)
            #expect(try await Self.get("http://127.0.0.1:\(readerURL)/health/ready").status == 200)
            group.cancelAll()
        }

        // Restart both sides (same databases); appends made while the reader is down arrive once it is back.
        try await appendNotes(store, count: 5, from: 100)
        try await withThrowingTaskGroup(of: Void.self) { group in
            let writerPort = BoundPort()
            let writer = try NotesWriter.application(configuration: Self.configuration("notes"), store: store, background: [],
                                                     onServerRunning: writerPort.onServerRunning)
            group.addTask { try await writer.run() }
            let port = try await writerPort.wait()
            let readerPort = BoundPort()
            let feed = EmbeddedFeedSource(feeds: [EmbeddedFeed(source: "notes", baseURL: "http://127.0.0.1:\(port)", internalToken: Self.token)])
            let (reader, _) = try NotesReader.application(configuration: Self.configuration("reader"), database: readerDatabase,
                                                          source: feed, onServerRunning: readerPort.onServerRunning)
            group.addTask { try await reader.run() }
            let readerURL = try await readerPort.wait()
            #expect(try await eventually(timeout: .seconds(30)) { try await Self.seen(readerURL)?.notes == 25 })
            #expect(try await Self.seen(readerURL)?.maxApplied == 1)
            group.cancelAll()
        }
    }

    @Test("embedded transport: a consumer whose producer is down retries with back-off and reports it in readiness")
    func producerDown() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let feed = EmbeddedFeedSource(feeds: [EmbeddedFeed(source: "notes", baseURL: "http://127.0.0.1:9", internalToken: Self.token)])
        try await withThrowingTaskGroup(of: Void.self) { group in
            let readerPort = BoundPort()
            let (reader, consumer) = try NotesReader.application(configuration: Self.configuration("reader"),
                                                                 database: try directory.database("reader"), source: feed,
                                                                 onServerRunning: readerPort.onServerRunning)
            group.addTask { try await reader.run() }
            let port = try await readerPort.wait()
            #expect(try await eventually(timeout: .seconds(30)) {
                if case .running(_, .some) = consumer.status { return true }
                return false
            })
            let ready = try await Self.get("http://127.0.0.1:\(port)/health/ready")
            #expect(ready.status == 503 && ready.body.contains("consumer"))
            group.cancelAll()
        }
    }

    @Test("a poison message (undecodable payload of a known type) stops the consumer loudly: readiness 503, nothing after it applied")
    func poisonMessageStopsConsumer() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await SQLiteEventStore(database: try directory.database("notes"))
        try await appendNotes(store, count: 3)
        try await store.append(NewEvent(eventType: "NoteAdded", payload: Data("[1,2]".utf8)), to: "note-bad", expectedVersion: .any)
        try await appendNotes(store, count: 3, from: 3)
        try await withThrowingTaskGroup(of: Void.self) { group in
            let writerPort = BoundPort()
            let writer = try NotesWriter.application(configuration: Self.configuration("notes"), store: store, background: [],
                                                     onServerRunning: writerPort.onServerRunning)
            group.addTask { try await writer.run() }
            let feed = EmbeddedFeedSource(feeds: [EmbeddedFeed(source: "notes", baseURL: "http://127.0.0.1:\(try await writerPort.wait())",
                                                               internalToken: Self.token)])
            let readerPort = BoundPort()
            let (reader, consumer) = try NotesReader.application(configuration: Self.configuration("reader"),
                                                                 database: try directory.database("reader"), source: feed,
                                                                 onServerRunning: readerPort.onServerRunning)
            group.addTask { try await reader.run() }
            let port = try await readerPort.wait()
            #expect(try await eventually(timeout: .seconds(30)) {
                if case .failed = consumer.status { return true }
                return false
            })
            let ready = try await Self.get("http://127.0.0.1:\(port)/health/ready")
            #expect(ready.status == 503 && ready.body.contains("note-bad"))
            #expect(try await Self.seen(port)?.notes == 0, "the batch holding the poison event was not committed")
            group.cancelAll()
        }
    }

    @Test("Kafka transport: notes posted to the writer are relayed through the mock cluster to the reader, once each")
    func kafkaTransport() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let cluster = try KafkaMockCluster()
        defer { cluster.shutdown() }
        let logger = Logger(label: "test.e2e")
        let database = try directory.database("notes")
        let store = try await SQLiteEventStore(database: database)
        let producer = try KafkaProducer(configuration: KafkaConfiguration(bootstrapServers: cluster.bootstrapServers, clientID: "notes"),
                                         logger: logger)
        let relay = Relay(store: store, publisher: KafkaEventPublisher(producer: producer),
                          checkpoints: try await SQLiteCheckpointStore(database: database), source: "notes", topic: "waypoint.notes")
        let consumer = try KafkaConsumer(
            configuration: KafkaConfiguration(bootstrapServers: cluster.bootstrapServers, clientID: "reader",
                                              properties: ["session.timeout.ms": "6000", "heartbeat.interval.ms": "500"]),
            groupID: "reader", topics: ["waypoint.notes"], logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            let writerPort = BoundPort()
            let writer = try NotesWriter.application(configuration: Self.configuration("notes"), store: store, background: [relay],
                                                     onServerRunning: writerPort.onServerRunning)
            group.addTask { try await writer.run() }
            let writerURL = "http://127.0.0.1:\(try await writerPort.wait())"
            let readerPort = BoundPort()
            let (reader, _) = try NotesReader.application(configuration: Self.configuration("reader"),
                                                          database: try directory.database("reader"),
                                                          source: KafkaEventSource(consumer: consumer), onServerRunning: readerPort.onServerRunning)
            group.addTask { try await reader.run() }
            let readerURL = try await readerPort.wait()
            for index in 0..<30 {
                #expect(try await Self.post("\(writerURL)/v1/notes", body: #"{"text":"kafka \#(index)"}"#).status == 201)
            }
            #expect(try await eventually(timeout: .seconds(30)) { try await Self.seen(readerURL)?.notes == 30 })
            #expect(try await Self.seen(readerURL)?.maxApplied == 1)
            group.cancelAll()
        }
        await producer.shutdown()
    }
}
