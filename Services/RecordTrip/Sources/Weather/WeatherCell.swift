/// The unit of weather caching: a cell of 0.1° × 0.1° (about 11 km × 7 km in central Europe, near the resolution of the
/// weather models behind Open-Meteo) and one UTC hour. Every lookup inside a cell and hour gets the same observation,
/// asked for at the cell's centre, so the answer does not depend on which rider asked first.
public struct WeatherCell: Hashable, Sendable, CustomStringConvertible {
    /// Cells per degree: a cell's edge is 0.1°. (Dividing by 10 rather than multiplying by 0.1 keeps centres such
    /// as 48.55 exact to the last bit.)
    public static let cellsPerDegree = 10.0
    /// Earliest time asked about: 1940-01-01T00:00Z, where Open-Meteo's archive (ERA5) begins. Seconds since the epoch.
    public static let earliestTime = -946_771_200.0
    /// Latest time asked about: 2200-01-01T00:00Z. Seconds since the epoch.
    public static let latestTime = 7_258_118_400.0

    /// ⌊latitude / 0.1°⌋.
    public let latitudeIndex: Int
    /// ⌊longitude / 0.1°⌋.
    public let longitudeIndex: Int
    /// ⌊time / 3600 s⌋: the UTC hour since the epoch.
    public let hour: Int

    /// The cell and hour holding `latitude`, `longitude` (WGS 84 degrees) at `time` (seconds since the epoch, UTC);
    /// throws ``WeatherError/invalidQuery(latitude:longitude:time:)`` for NaN, out-of-range values or times outside
    /// 1940–2200.
    public init(latitude: Double, longitude: Double, time: Double) throws(WeatherError) {
        guard (-90.0...90.0).contains(latitude), (-180.0...180.0).contains(longitude),
              (Self.earliestTime...Self.latestTime).contains(time)
        else { throw .invalidQuery(latitude: latitude, longitude: longitude, time: time) }
        latitudeIndex = Int((latitude * Self.cellsPerDegree).rounded(.down))
        longitudeIndex = Int((longitude * Self.cellsPerDegree).rounded(.down))
        hour = Int((time / 3600).rounded(.down))
    }

    /// Latitude of the cell's centre, degrees (at most 90).
    public var centreLatitude: Double { min(90, (Double(latitudeIndex) + 0.5) / Self.cellsPerDegree) }
    /// Longitude of the cell's centre, degrees (at most 180).
    public var centreLongitude: Double { min(180, (Double(longitudeIndex) + 0.5) / Self.cellsPerDegree) }
    /// Start of the hour, seconds since the epoch.
    public var hourStart: Double { Double(hour) * 3600 }

    public var description: String { "cell(\(latitudeIndex), \(longitudeIndex)) hour \(hour)" }
}
