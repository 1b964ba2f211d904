import Contracts
import Foundation
import Messaging

/// One event of `waypoint.paths` as a change to the community tables — decoded once, applied by the SQLite and the
/// PostgreSQL handler alike. Types navigation does not use are `nil` (left alone, as every consumer does).
enum CommunityChange: Sendable, Hashable {
    case approve(CommunityRecords.Path)
    case condition(path: UUID, condition: String)
    case retire(path: UUID)
    case confirm(CommunityRecords.Obstacle)
    case resolve(obstacle: UUID)
    case mark(CommunityRecords.MarkedStreet)
    case lift(street: Int64)

    /// The change `event` makes; throws when a known type does not decode (the consumer stops on it).
    static func of(_ event: PublishedEvent) throws -> CommunityChange? {
        switch event.eventType {
        case PathApproved.eventType:
            let approved = try event.decode(PathApproved.self)
            return .approve(.init(id: approved.pathId, name: approved.name, nodes: approved.osmNodes, condition: approved.condition))
        case PathStatusChanged.eventType:
            let changed = try event.decode(PathStatusChanged.self)
            return .condition(path: changed.pathId, condition: changed.condition)
        case PathRetired.eventType:
            return .retire(path: try event.decode(PathRetired.self).pathId)
        case PathObstacleConfirmed.eventType:
            let confirmed = try event.decode(PathObstacleConfirmed.self)
            return .confirm(.init(id: confirmed.obstacleId, pathId: confirmed.pathId, nodes: confirmed.osmNodes, latitude: confirmed.latitude,
                                  longitude: confirmed.longitude, type: confirmed.type, confidence: confirmed.confidence))
        case PathObstacleResolved.eventType:
            return .resolve(obstacle: try event.decode(PathObstacleResolved.self).obstacleId)
        case StreetCompatibilityChanged.eventType:
            let changed = try event.decode(StreetCompatibilityChanged.self)
            return changed.compatible ? .lift(street: changed.streetId) : .mark(.init(id: changed.streetId, nodes: changed.osmNodes))
        default:
            return nil
        }
    }

    /// Node lists as stored (JSON text).
    static func text(_ nodes: some Encodable) -> String {
        String(decoding: (try? JSONEncoder().encode(nodes)) ?? Data("[]".utf8), as: UTF8.self)
    }

    /// Node lists as read back.
    static func nodes<Value: Decodable>(_ text: String, as type: Value.Type) throws -> Value {
        try JSONDecoder().decode(Value.self, from: Data(text.utf8))
    }
}

/// Reads of what the consumer stored: the change counter an instance polls, and the whole layer when it moved.
public protocol CommunityStore: Sendable {
    /// How many changes the consumer applied so far (0 before the first; the tables may not exist yet).
    func version() async throws -> Int64
    /// Everything held now.
    func records() async throws -> CommunityRecords
}

/// The consumer's name and tables (one name for both backends).
enum CommunityTables {
    static let consumer = "community"
}
