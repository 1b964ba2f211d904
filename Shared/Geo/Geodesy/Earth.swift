/// The spherical Earth model behind every distance, bearing and projection in `Geo`.
///
/// Waypoint measures on a sphere rather than the WGS 84 ellipsoid: haversine on the mean radius is
/// within 0.5 % of the ellipsoidal (Vincenty/Karney) distance anywhere on Earth, far below GPS noise
/// for walking tours and bike rides, it is cheap enough for every row of an R*Tree prefilter, and it
/// has closed forms for bearing, destination and cross-track distance that an ellipsoid lacks.
public enum Earth {
    /// Mean Earth radius in metres: the IUGG mean radius R₁ = (2a + b) / 3 of the WGS 84 ellipsoid,
    /// 6,371,008.8 m — the radius PostGIS uses for its spherical `geography` calculations.
    public static let meanRadius: Double = 6_371_008.8
}
