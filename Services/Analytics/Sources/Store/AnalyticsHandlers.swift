import Contracts
import EventSourcing
import Foundation
import GRDB
import Messaging
import PostgresNIO

/// The consumer names of the analytics handlers: one consumer per topic, all writing the same tables. A rebuild's
/// consumers carry the `__rebuild` suffix until the swap renames their dedupe records and positions.
public enum AnalyticsConsumerName {
    /// `analytics_auth`, `analytics_tours`, `analytics_paths`, `analytics_navigation`, `analytics_trips`.
    public static func live(_ topic: Topic) -> String {
        "analytics_\(topic.name.replacingOccurrences(of: "waypoint.", with: ""))"
    }

    /// The consumer name of a rebuild in progress.
    public static func rebuild(_ topic: Topic) -> String {
        live(topic) + "__rebuild"
    }
}

extension SQLArg {
    var sqliteValue: (any DatabaseValueConvertible)? {
        switch self {
        case .int(let value): value
        case .text(let value): value
        }
    }
}

/// Binding and reading analytics statements.
enum AnalyticsSQL {
    static func postgres(_ text: String, _ arguments: [SQLArg]) -> PostgresQuery {
        var query = PostgresQuery(unsafeSQL: text)
        for argument in arguments {
            switch argument {
            case .int(let value): query.binds.append(value)
            case .text(let value): query.binds.append(value)
            }
        }
        return query
    }
}
