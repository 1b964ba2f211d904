import Foundation

/// The backend-independent decision of a group commit: which appends succeed, and the rows to insert.
///
/// Both stores call this inside their write transaction after locking position assignment, so the inputs
/// (head, stream versions, already stored ids) cannot change underneath it.
enum AppendPlanner {
    /// An event already in the store, as needed to recognise an idempotent retry.
    struct StoredEvent: Sendable {
        var eventID: UUID
        var streamID: String
        var streamVersion: Int64
        var position: Int64
        var eventType: String
        var schemaVersion: Int
        var payload: Data
    }

    /// The outcome of planning one batch.
    struct Plan: Sendable {
        /// Rows to insert, in position order.
        var rows: [EventEnvelope] = []
        /// One result per request, in request order.
        var results: [Result<AppendResult, EventStoreError>] = []
        /// The head position after the insert.
        var newHead: Int64
        /// The version of every stream the plan was given or wrote, after the insert (a stream not listed is at 0).
        var streamVersions: [String: Int64] = [:]
    }

    /// Decides every request in order, as if they had been appended one after the other.
    static func plan(
        _ requests: [AppendRequest], head: Int64, streamVersions: [String: Int64],
        storedEvents: [UUID: StoredEvent], recordedAt: Date
    ) -> Plan {
        var plan = Plan(newHead: head)
        var versions = streamVersions
        var known = storedEvents
        for request in requests {
            let outcome = decide(request, head: plan.newHead, versions: versions, known: known)
            switch outcome {
            case .failure(let error):
                plan.results.append(.failure(error))
            case .success(.retry(let result)):
                plan.results.append(.success(result))
            case .success(.append(let current)):
                var position = plan.newHead
                var version = current
                for event in request.events {
                    position += 1
                    version += 1
                    let row = EventEnvelope(
                        eventID: event.eventID, streamID: request.streamID, streamVersion: version, position: position,
                        eventType: event.eventType, schemaVersion: event.schemaVersion, payload: event.payload,
                        metadata: event.metadata.normalized, recordedAt: recordedAt)
                    plan.rows.append(row)
                    known[event.eventID] = StoredEvent(row)
                }
                plan.results.append(.success(AppendResult(
                    streamID: request.streamID, firstPosition: plan.newHead + 1, lastPosition: position, streamVersion: version)))
                plan.newHead = position
                versions[request.streamID] = version
            }
        }
        plan.streamVersions = versions
        return plan
    }

    private enum Decision {
        case append(currentVersion: Int64)
        case retry(AppendResult)
    }

    private static func decide(
        _ request: AppendRequest, head: Int64, versions: [String: Int64], known: [UUID: StoredEvent]
    ) -> Result<Decision, EventStoreError> {
        let found = request.events.compactMap { known[$0.eventID] }
        guard found.isEmpty else { return recognizeRetry(request, found: found) }
        let current = versions[request.streamID] ?? 0
        guard request.expectedVersion.isSatisfied(byCurrent: current) else {
            return .failure(.wrongExpectedVersion(streamID: request.streamID, expected: request.expectedVersion, actual: current))
        }
        return .success(.append(currentVersion: current))
    }

    /// A retry is the same events, in the same stream, at the same versions, with the same content.
    private static func recognizeRetry(_ request: AppendRequest, found: [StoredEvent]) -> Result<Decision, EventStoreError> {
        let firstVersion = found[0].streamVersion
        for (offset, event) in request.events.enumerated() {
            guard offset < found.count, found[offset].eventID == event.eventID,
                  found[offset].streamID == request.streamID,
                  found[offset].streamVersion == firstVersion + Int64(offset),
                  found[offset].eventType == event.eventType,
                  found[offset].schemaVersion == event.schemaVersion,
                  found[offset].payload == event.payload
            else {
                return .failure(.duplicateEventID(event.eventID, streamID: request.streamID))
            }
        }
        guard request.expectedVersion.isSatisfied(byCurrent: firstVersion - 1) else {
            return .failure(.duplicateEventID(request.events[0].eventID, streamID: request.streamID))
        }
        let last = found[found.count - 1]
        return .success(.retry(AppendResult(
            streamID: request.streamID, firstPosition: found[0].position, lastPosition: last.position, streamVersion: last.streamVersion)))
    }
}

extension AppendPlanner.StoredEvent {
    init(_ row: EventEnvelope) {
        self.init(
            eventID: row.eventID, streamID: row.streamID, streamVersion: row.streamVersion, position: row.position,
            eventType: row.eventType, schemaVersion: row.schemaVersion, payload: row.payload)
    }
}
