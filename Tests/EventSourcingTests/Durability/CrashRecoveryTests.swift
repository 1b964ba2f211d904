@testable import EventStoreCrashWriter
import EventSourcing
import Foundation
import GRDB
import ServiceTesting
import Testing

@Suite("Durability: kill -9 mid-write")
struct CrashRecoveryTests {
    @Test("SIGKILL at a random moment loses no acknowledged append, and the projection resumes from its checkpoint",
          arguments: TestBackend.enabled)
    func killNineLosesNothing(backend: TestBackend) async throws {
        let database = TestDatabase(backend)
        var arguments: [String]
        switch backend {
        case .sqlite:
            try FileManager.default.createDirectory(at: URL(fileURLWithPath: database.name).deletingLastPathComponent(),
                                                    withIntermediateDirectories: true)
            arguments = ["sqlite", database.name]
        case .postgres:
            arguments = ["postgres", try TestBackend.postgresURL, database.name]
        }
        var acknowledged: [UUID: Int64] = [:]
        for round in 0..<3 {
            let acks = try await runAndKill(arguments, after: 150 + Int.random(in: 0..<300))
            #expect(acks.count >= 100, "round \(round): the writer acknowledged too little before the kill")
            acknowledged.merge(acks) { $1 }
        }
        let acked = acknowledged
        try await database.withStore { store, connection in
            let log = try await store.readAll(after: 0, limit: 1_000_000)
            #expect(log.map(\.position) == Array(1...Int64(log.count)), "positions are gapless after crashes")
            let stored = Dictionary(log.map { ($0.eventID, $0.position) }, uniquingKeysWith: { first, _ in first })
            let lost = acked.filter { stored[$0.key] != $0.value }
            #expect(lost.isEmpty, "acknowledged appends missing or moved after SIGKILL: \(lost.count)")

            try await catchUpCounts(store, connection)
            let counted = try await countedEvents(connection)
            #expect(counted == Int64(log.count), "projection applied every event exactly once across the crashes")
        }
        await database.drop()
    }

    /// Starts the writer, waits for `count` acknowledgements, sends SIGKILL, and returns every acknowledgement it printed.
    private func runAndKill(_ arguments: [String], after count: Int) async throws -> [UUID: Int64] {
        let process = Process()
        process.executableURL = try writerExecutable()
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var acks: [UUID: Int64] = [:]
        var buffer = Data()
        let handle = output.fileHandleForReading
        let deadline = Date().addingTimeInterval(60)
        while acks.count < count, Date() < deadline {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
            parse(&buffer, into: &acks)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        buffer.append(handle.readDataToEndOfFile())
        parse(&buffer, into: &acks)
        return acks
    }

    private func parse(_ buffer: inout Data, into acks: inout [UUID: Int64]) {
        while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
            let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
            buffer.removeSubrange(buffer.startIndex...newline)
            let fields = line.split(separator: " ")
            if fields.count == 3, fields[0] == "ACK", let id = UUID(uuidString: String(fields[1])), let position = Int64(fields[2]) {
                acks[id] = position
            }
        }
    }

    private func writerExecutable() throws -> URL {
        try BuiltExecutable.url(named: "EventStoreCrashWriter")
    }

    private func catchUpCounts<Store: EventStore>(_ store: Store, _ connection: TestDatabase.Connection) async throws {
        switch connection {
        case .sqlite(let db):
            try await ProjectionRunner(store: store, target: SQLiteProjectionTarget(database: db, projection: CrashCountProjection())).catchUp()
        case .postgres(let db):
            try await ProjectionRunner(store: store, target: PostgresProjectionTarget(database: db, projection: CrashCountProjection())).catchUp()
        }
    }

    private func countedEvents(_ connection: TestDatabase.Connection) async throws -> Int64 {
        switch connection {
        case .sqlite(let database):
            try await database.read { db in try Int64.fetchOne(db, sql: "SELECT COALESCE(SUM(events), 0) FROM crash_counts") ?? 0 }
        case .postgres(let database):
            try await database.client.query("SELECT COALESCE(SUM(events), 0)::int8 FROM crash_counts")
                .decode(Int64.self).reduce(0) { $0 + $1 }
        }
    }
}
