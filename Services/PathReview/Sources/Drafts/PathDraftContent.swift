import Foundation

/// The condition a cyclist gives a path (issue 20): from best to worst.
public enum PathCondition: String, Codable, Sendable, Hashable, CaseIterable {
    case optimal
    case medium
    case sufficient
    case requiresMaintenance = "requires-maintenance"
}

/// What kind of obstacle lies on a path.
public enum PathObstacleType: String, Codable, Sendable, Hashable, CaseIterable {
    case pothole, bump, gravel, glass, roadworks, barrier, other
}

/// The details a cyclist may give of a path; `nil`: not said.
public struct PathDetails: Codable, Sendable, Hashable {
    /// Separated from motor traffic (a kerb, a barrier, its own way).
    public var segregatedFromCars: Bool?
    public var pedestriansAllowed: Bool?
    /// OSM `surface` words (`asphalt`, `gravel`, …), free text up to 40 characters.
    public var surface: String?
    public var lit: Bool?

    /// Details with every value given or left unsaid.
    public init(segregatedFromCars: Bool? = nil, pedestriansAllowed: Bool? = nil, surface: String? = nil, lit: Bool? = nil) {
        self.segregatedFromCars = segregatedFromCars
        self.pedestriansAllowed = pedestriansAllowed
        self.surface = surface
        self.lit = lit
    }
}

/// One obstacle of a draft: its type, where it lies on the path, and the author's note.
public struct DraftObstacle: Codable, Sendable, Hashable {
    public var type: PathObstacleType
    /// WGS 84 degrees of the point on the path (the author's point projected onto the route).
    public var latitude: Double
    public var longitude: Double
    /// Metres from the path's start along its route.
    public var offsetMetres: Double
    public var note: String?

    /// An obstacle at a point of the route.
    public init(type: PathObstacleType, latitude: Double, longitude: Double, offsetMetres: Double, note: String? = nil) {
        self.type = type
        self.latitude = latitude
        self.longitude = longitude
        self.offsetMetres = offsetMetres
        self.note = note
    }
}

/// The route a draft's pieces resolve to on the network: the OSM node sequence it lies on (DESIGN: a path names its
/// nodes, so every service maps it onto its own graph) and its geometry for display.
public struct DraftRoute: Codable, Sendable, Hashable {
    /// OSM node ids in travel order, consecutive duplicates removed.
    public var nodeIDs: [Int64]
    /// `[latitude, longitude]` pairs in degrees, in travel order.
    public var coordinates: [[Double]]
    /// Great-circle metres along the coordinates.
    public var lengthMetres: Double

    /// A route of `nodeIDs` drawn by `coordinates`.
    public init(nodeIDs: [Int64], coordinates: [[Double]], lengthMetres: Double) {
        self.nodeIDs = nodeIDs
        self.coordinates = coordinates
        self.lengthMetres = lengthMetres
    }
}

/// Everything a draft says: what its author wrote and the route it resolved to when it was written.
public struct PathDraftContent: Codable, Sendable, Hashable {
    public var name: String
    public var condition: PathCondition
    public var details: PathDetails
    public var route: DraftRoute
    public var obstacles: [DraftObstacle]

    /// A draft's content.
    public init(name: String, condition: PathCondition, details: PathDetails, route: DraftRoute, obstacles: [DraftObstacle]) {
        self.name = name
        self.condition = condition
        self.details = details
        self.route = route
        self.obstacles = obstacles
    }
}
