import Contracts
import EventSourcing
import Foundation
import Hummingbird
import ServiceKit

/// One step of a path's life as its author and moderators read it (`GET /v1/paths/drafts/{id}/history`): every event
/// of the draft's stream, oldest first — drafting, review, approval and the approved path's upkeep.
public struct PathHistoryEntry: Codable, Sendable, Hashable {
    /// The event's version in the draft's stream (what `after=` pages by).
    public var version: Int64
    /// `created`, `revised`, `deleted`, `published`, `claimed`, `decided`, `approved`, `obstacle-confirmed`,
    /// `obstacle-resolved`, `condition-reported`, `obstacle-reported`, `obstacle-sighted`, `obstacle-gone-reported`,
    /// `status-overridden`, `status-changed`, `retired`, `author-erased`.
    public var type: String
    public var at: Date
    /// Who did it: `author`, `moderator`, `cyclist` (a report on the approved path), `ride` (an obstacle a ride
    /// detected, from record-trip, naming no one) or `system` (the rules, the fading sweep, an erasure).
    public var actor: String
    /// The moderator's or reporting cyclist's id — shown to moderators and admins only (an author sees roles).
    public var actorId: String?
    /// `decided`: approve, reject, send-back.
    public var outcome: String?
    /// `decided`: the reason or the changes asked for.
    public var note: String?
    /// `claimed`: until when the claim held.
    public var claimExpiresAt: Date?
    /// `condition-reported`, `status-changed`, `status-overridden` (absent: the override was lifted), `approved`.
    public var condition: String?
    /// The obstacle of `obstacle-*` steps, with its type; `resolution` for `obstacle-resolved`.
    public var obstacleId: String?
    public var obstacleType: String?
    public var resolution: String?
    /// `obstacle-confirmed`: how sure the service is now, and how many sightings made it.
    public var confidence: Double?
    public var sightings: Int?
    /// `created`, `revised`: the draft's name then.
    public var name: String?

    init(version: Int64, type: String, at: Date, actor: String) {
        (self.version, self.type, self.at, self.actor) = (version, type, at, actor)
    }

    /// The entry of one stored event of a draft's stream; `showIDs` for moderators and admins. `nil` for the published
    /// twins of the review steps (`PathReviewOpened`, `PathReviewClosed`: the `published`, `decided` and
    /// `author-erased` entries already tell them).
    static func make(_ event: PathDraftEvent, version: Int64, at: Date, showIDs: Bool) -> PathHistoryEntry? {
        func entry(_ type: String, _ actor: String, id: UUID? = nil) -> PathHistoryEntry {
            var entry = PathHistoryEntry(version: version, type: type, at: at, actor: actor)
            if showIDs { entry.actorId = id.map { $0.uuidString.lowercased() } }
            return entry
        }
        switch event {
        case .created(let e):
            var made = entry("created", "author")
            made.name = e.content.name
            return made
        case .revised(let e):
            var made = entry("revised", "author")
            made.name = e.content.name
            return made
        case .deleted: return entry("deleted", "author")
        case .submitted: return entry("published", "author")
        case .claimed(let e):
            var made = entry("claimed", "moderator", id: e.moderatorId)
            made.claimExpiresAt = e.expiresAt
            return made
        case .decided(let e):
            var made = entry("decided", "moderator", id: e.moderatorId)
            (made.outcome, made.note) = (e.outcome.rawValue, e.note)
            return made
        case .pathApproved(let e):
            var made = entry("approved", "system")
            made.condition = e.condition
            return made
        case .obstacleConfirmed(let e):
            var made = entry("obstacle-confirmed", "system")
            (made.obstacleId, made.obstacleType, made.confidence, made.sightings) = (e.obstacleId.uuidString.lowercased(), e.type, e.confidence, e.sightings)
            return made
        case .obstacleResolved(let e):
            var made = entry("obstacle-resolved", e.resolution == .resolved ? "moderator" : "system")
            (made.obstacleId, made.resolution) = (e.obstacleId.uuidString.lowercased(), e.resolution.rawValue)
            return made
        case .conditionReported(let e):
            var made = entry("condition-reported", "cyclist", id: e.reporterId)
            made.condition = e.condition.rawValue
            return made
        case .obstacleReported(let e):
            var made = entry("obstacle-reported", "cyclist", id: e.reporterId)
            (made.obstacleId, made.obstacleType, made.note) = (e.obstacleId.uuidString.lowercased(), e.type.rawValue, e.note)
            return made
        case .statusOverridden(let e):
            var made = entry("status-overridden", "moderator", id: e.moderatorId)
            made.condition = e.condition?.rawValue
            return made
        case .statusChanged(let e):
            var made = entry("status-changed", e.source == .moderator ? "moderator" : "system")
            made.condition = e.condition
            return made
        case .retired: return entry("retired", "moderator")
        case .authorErased: return entry("author-erased", "system")
        case .obstacleSighted(let e):
            var made = entry("obstacle-sighted", "ride")
            (made.obstacleId, made.obstacleType) = (e.obstacleId.uuidString.lowercased(), e.type.rawValue)
            return made
        case .obstacleGoneReported(let e):
            var made = entry("obstacle-gone-reported", "cyclist", id: e.reporterId)
            made.obstacleId = e.obstacleId.uuidString.lowercased()
            return made
        case .reviewOpened, .reviewClosed:
            return nil
        }
    }
}

/// `GET /v1/paths/drafts/{id}/history`.
public struct PathHistoryResponse: ResponseEncodable, Sendable {
    public var draftId: String
    public var entries: [PathHistoryEntry]
    /// The `after=` of the next page; absent on the last.
    public var nextAfter: Int64?
}

extension PathDrafts {
    /// A page of draft `id`'s history after stream version `after`: for its author (while the draft exists) and for
    /// moderators and admins (`moderating`) once it was published; ``PathDraftError/notFound`` for anyone else.
    public func history(_ id: UUID, caller: UUID, moderating: Bool, after: Int64, limit: Int) async throws -> PathHistoryResponse {
        let stream = PathDraftAggregate.streamID(id)
        let state = try await repository.load(stream).state
        let mayRead = state.isOwned(by: caller) || (moderating && state.draftId != nil && (state.submittedAt != nil || state.currentStage != .draft
                                                                                                 || state.decision != nil))
        guard mayRead else { throw PathDraftError.notFound }
        // Events without an entry (the published twins of review steps) take no place on a page: read on until the page
        // is full and one more entry shows there is a next page.
        var entries: [PathHistoryEntry] = []
        var from = after + 1
        var next: Int64?
        reading: while true {
            let events = try await repository.store.readStream(stream, fromVersion: from, limit: limit + 1)
            for envelope in events {
                guard let event = try PathDraftAggregate.eventTypes.decode(envelope),
                      var entry = PathHistoryEntry.make(event, version: envelope.streamVersion, at: envelope.recordedAt, showIDs: moderating)
                else { continue }
                if entries.count == limit {
                    next = entries.last?.version
                    break reading
                }
                // Resolved right after a cyclist's "gone" report: the cyclists resolved it, not a moderator.
                if entry.type == "obstacle-resolved", let previous = entries.last, previous.type == "obstacle-gone-reported",
                   previous.obstacleId == entry.obstacleId {
                    entry.actor = "cyclist"
                }
                entries.append(entry)
            }
            guard events.count == limit + 1, let last = events.last else { break }
            from = last.streamVersion + 1
        }
        return PathHistoryResponse(draftId: id.uuidString.lowercased(), entries: entries, nextAfter: next)
    }
}
