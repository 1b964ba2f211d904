/// The attribution OpenStreetMap's licence (ODbL 1.0) asks for wherever map data derived from it is shown: every API
/// response and tool output that carries streets, routes or geometry from the road network includes it.
public enum MapDataAttribution {
    /// `Map data © OpenStreetMap contributors, ODbL 1.0`.
    public static let openStreetMap = "Map data © OpenStreetMap contributors, ODbL 1.0"
}
