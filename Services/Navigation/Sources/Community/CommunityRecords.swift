import Foundation
import RoadNetwork

/// What the `waypoint.paths` consumer keeps of the community's knowledge (the `community_*` tables), as plain values:
/// the input of a ``CommunityIndex``.
public struct CommunityRecords: Sendable, Hashable {
    /// An approved path.
    public struct Path: Sendable, Hashable {
        public var id: UUID
        public var name: String
        public var nodes: [Int64]
        /// path-review's condition word (`optimal`, `medium`, `sufficient`, `requires-maintenance`).
        public var condition: String

        public init(id: UUID, name: String, nodes: [Int64], condition: String) {
            (self.id, self.name, self.nodes, self.condition) = (id, name, nodes, condition)
        }
    }

    /// An open obstacle on an approved path.
    public struct Obstacle: Sendable, Hashable {
        public var id: UUID
        public var pathId: UUID
        /// The directed node pair it lies on.
        public var nodes: [Int64]
        public var latitude: Double
        public var longitude: Double
        public var type: String
        public var confidence: Double

        public init(id: UUID, pathId: UUID, nodes: [Int64], latitude: Double, longitude: Double, type: String, confidence: Double) {
            (self.id, self.pathId, self.nodes, self.latitude, self.longitude, self.type, self.confidence) =
                (id, pathId, nodes, latitude, longitude, type, confidence)
        }
    }

    /// A street moderators marked incompatible with bicycles.
    public struct MarkedStreet: Sendable, Hashable {
        public var id: Int64
        public var nodes: [[Int64]]

        public init(id: Int64, nodes: [[Int64]]) {
            (self.id, self.nodes) = (id, nodes)
        }
    }

    public var paths: [Path]
    public var obstacles: [Obstacle]
    public var streets: [MarkedStreet]

    public init(paths: [Path] = [], obstacles: [Obstacle] = [], streets: [MarkedStreet] = []) {
        (self.paths, self.obstacles, self.streets) = (paths, obstacles, streets)
    }
}
