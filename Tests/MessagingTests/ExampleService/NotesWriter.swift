import EventSourcing
import Foundation
import Hummingbird
import Messaging
import NIOCore
import ServiceLifecycle
import ServiceKit

/// The example producer: `POST /v1/notes {text}` appends `NoteAdded`; its log is served on the embedded feed and, in
/// Kafka mode, relayed to `waypoint.notes`.
enum NotesWriter {
    struct AddNote: Decodable, ValidatableRequest {
        var text: String

        func validate(into validator: inout Validator) {
            validator.length(text, field: "text", min: 1, max: 500)
        }
    }

    struct NoteCreated: ResponseEncodable {
        var id: String
        var position: Int64
    }

    static func application(
        configuration: ServiceConfiguration, store: SQLiteEventStore, background: [any Service],
        onServerRunning: @escaping @Sendable (any Channel) async -> Void
    ) throws -> ServiceApplication {
        try ServiceApplication(configuration: configuration, metrics: ServiceMetrics(), keySource: StaticKeySource(keys: [:]),
                               background: background, onServerRunning: onServerRunning) { routes in
            routes.group("/v1/notes").post { request, context -> EditedResponse<NoteCreated> in
                let body = try await request.decode(as: AddNote.self, context: context)
                let id = UUID()
                let event = try NewEvent(eventType: "NoteAdded", encoding: ["text": body.text],
                                         metadata: EventMetadata(correlationID: id, traceparent: context.traceparent))
                let result = try await store.append([event], to: "note-\(id.uuidString)", expectedVersion: .noStream)
                return EditedResponse(status: .created, response: NoteCreated(id: id.uuidString, position: result.lastPosition))
            }
            EventFeedController(store: store, source: "notes").addRoutes(to: routes.internalGroup())
        }
    }
}
