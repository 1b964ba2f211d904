import EventSourcing
import Foundation

/// Test fixture: appends single events as fast as it can and prints `ACK <event-id> <position>` after each append
/// returned, while a projection follows in the same process. The crash test kills it with SIGKILL at a random moment
/// and checks that every acknowledged event survived and that the projection resumes from its checkpoint.
///
/// Usage: `EventStoreCrashWriter sqlite <path>` or `EventStoreCrashWriter postgres <url> <schema>`.
@main
struct CrashWriter {
    static func main() async throws {
        let arguments = CommandLine.arguments
        guard arguments.count >= 3 else {
            FileHandle.standardError.write(Data("usage: EventStoreCrashWriter sqlite PATH | postgres URL SCHEMA\n".utf8))
            exit(2)
        }
        switch arguments[1] {
        case "sqlite":
            let database = try SQLiteServiceDatabase(path: arguments[2])
            let store = try await SQLiteEventStore(database: database)
            let runner = ProjectionRunner(store: store, target: SQLiteProjectionTarget(database: database, projection: CrashCountProjection()))
            try await writeForever(store, alongside: runner)
        case "postgres":
            let database = try PostgresServiceDatabase(url: arguments[2], schema: arguments[3], maximumConnections: 8)
            try await database.withRunning {
                let store = try await PostgresEventStore(database: database)
                try await writeForever(store, alongside: ProjectionRunner(store: store, target: PostgresProjectionTarget(
                    database: database, projection: CrashCountProjection())))
            }
        default:
            exit(2)
        }
    }

    static func writeForever<Store: EventStore, Target: ProjectionTarget>(
        _ store: Store, alongside runner: ProjectionRunner<Store, Target>
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await runner.run() }
            for writer in 0..<4 {
                group.addTask {
                    var index = 0
                    while true {
                        let event = try NewEvent(eventType: "Counted", encoding: ["writer": writer, "index": index])
                        let result = try await store.append([event], to: "counter-\(writer)", expectedVersion: .any)
                        // Unbuffered write: the line leaves the process before the next append starts.
                        FileHandle.standardOutput.write(Data("ACK \(event.eventID) \(result.lastPosition)\n".utf8))
                        index += 1
                    }
                }
            }
            try await group.next()
        }
    }
}
