import EventSourcing
import Foundation
import Hummingbird
import Messaging
import NIOCore
import ServiceLifecycle
import ServiceKit

/// The example consumer, a second service: applies `NoteAdded` from the writer into its own SQLite read model and
/// answers `GET /v1/seen` with how many notes it has seen.
enum NotesReader {
    struct Seen: ResponseEncodable {
        var notes: Int
        var maxApplied: Int
    }

    static func application<Source: EventSource>(
        configuration: ServiceConfiguration, database: SQLiteServiceDatabase, source: Source,
        onServerRunning: @escaping @Sendable (any Channel) async -> Void
    ) throws -> (ServiceApplication, ConsumerRunner<Source, SQLiteConsumerTarget<SeenHandler>>) {
        let consumer = ConsumerRunner(source: source, target: SQLiteConsumerTarget(database: database, handler: SeenHandler()),
                                      batchSize: 200, pollTimeout: .milliseconds(500))
        let readiness = Readiness()
        readiness.register("consumer") {
            switch consumer.status {
            case .running(_, nil): .ready
            case .running(_, let error?): .notReady("event source unavailable: \(error)")
            case .starting: .notReady("starting")
            case .failed(let reason): .notReady(reason)
            }
        }
        let app = try ServiceApplication(configuration: configuration, readiness: readiness, metrics: ServiceMetrics(),
                                         keySource: StaticKeySource(keys: [:]), background: [consumer],
                                         onServerRunning: onServerRunning) { routes in
            routes.group("/v1/seen").get { _, _ -> Seen in
                let tally = try await SeenHandler.tally(database)
                return Seen(notes: tally.events, maxApplied: tally.maxApplied)
            }
        }
        return (app, consumer)
    }
}
