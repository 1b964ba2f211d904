/// All upcasters of a store, applied repeatedly until no upcaster matches an event's (type, version).
public struct UpcasterChain: Sendable {
    private var byKey: [Key: Upcaster] = [:]

    private struct Key: Hashable, Sendable {
        var eventType: String
        var version: Int
    }

    /// An empty chain: events are read as stored.
    public init() {}

    /// A chain of the given upcasters; at most one per (type, from-version).
    public init(_ upcasters: [Upcaster]) {
        for upcaster in upcasters {
            precondition(byKey[Key(eventType: upcaster.eventType, version: upcaster.fromVersion)] == nil,
                         "two upcasters for \(upcaster.eventType) v\(upcaster.fromVersion)")
            byKey[Key(eventType: upcaster.eventType, version: upcaster.fromVersion)] = upcaster
        }
    }

    /// Whether the chain has no upcasters (the read path then skips it).
    public var isEmpty: Bool { byKey.isEmpty }

    /// Returns the event in its newest known shape.
    public func upcast(_ event: EventEnvelope) throws -> EventEnvelope {
        var event = event
        while let upcaster = byKey[Key(eventType: event.eventType, version: event.schemaVersion)] {
            event.payload = try upcaster.transform(event.payload)
            event.eventType = upcaster.toEventType
            event.schemaVersion += 1
        }
        return event
    }

    /// The stored event types that may read as one of `types`: those types and every type an upcaster renames into
    /// one of them, directly or through other renames (a filter on the stored type must ask for all of them, and keep
    /// the events that read as one of `types` after upcasting).
    public func storedTypes(readingAs types: Set<String>) -> Set<String> {
        var stored = types
        var grew = true
        while grew {
            grew = false
            for upcaster in byKey.values where stored.contains(upcaster.toEventType) && !stored.contains(upcaster.eventType) {
                stored.insert(upcaster.eventType)
                grew = true
            }
        }
        return stored
    }

    /// Upcasts every event of a batch.
    public func upcast(_ events: [EventEnvelope]) throws -> [EventEnvelope] {
        isEmpty ? events : try events.map(upcast)
    }
}
