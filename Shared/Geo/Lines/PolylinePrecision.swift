/// Decimal places of degrees kept by an encoded polyline.
public enum PolylinePrecision: Int, Sendable, Hashable, CaseIterable {
    /// 1e-5 degrees (about 1.1 m): Google Maps and most map SDKs.
    case five = 5
    /// 1e-6 degrees (about 11 cm): OSRM's and Valhalla's `polyline6`, for routes that must snap to lanes.
    case six = 6

    /// Integer units per degree.
    var unitsPerDegree: Double {
        switch self {
        case .five: 1e5
        case .six: 1e6
        }
    }
}
