import HTTPTypes

/// Per-path rules that are not about ownership: which answers may be cached and which bodies may be large.
public enum RoutePolicies {
    /// Whether a `GET` of `path` is a public catalogue read the gateway may cache: tour lists (`/v1/tours`), tour details
    /// (`/v1/tours/{id}`), the map (`/v1/tours/map`) and destinations (`/v1/destinations…`).
    public static func isCacheable(method: HTTPRequest.Method, path: String) -> Bool {
        guard method == .get, let segments = RouteTable.normalizedSegments(path), segments.count >= 2, segments[0] == "v1" else {
            return false
        }
        switch segments[1] {
        case "tours": return segments.count <= 3
        case "destinations": return true
        default: return false
        }
    }

    /// Whether `method path` uploads media and gets the media body limit: `POST /v1/media` and
    /// `POST /v1/tours/{id}/stops/{stopId}/media`.
    public static func isMediaUpload(method: HTTPRequest.Method, path: String) -> Bool {
        guard method == .post, let segments = RouteTable.normalizedSegments(path) else { return false }
        if segments == ["v1", "media"] { return true }
        return segments.count == 6 && segments[0] == "v1" && segments[1] == "tours" && segments[3] == "stops" && segments[5] == "media"
    }

    /// Whether `method path` uploads a ride and gets the ride body limit: `POST /v1/trips/import`,
    /// `POST /v1/trips/preview` and `POST /v1/trips/{id}/samples` (record-trip enforces its own, smaller per-kind
    /// limits behind it: 16 MiB per chunk, 64 MiB per GPX file).
    public static func isRideUpload(method: HTTPRequest.Method, path: String) -> Bool {
        guard method == .post, let segments = RouteTable.normalizedSegments(path), segments.count >= 3,
              segments[0] == "v1", segments[1] == "trips" else { return false }
        return (segments.count == 3 && ["import", "preview"].contains(segments[2])) || (segments.count == 4 && segments[3] == "samples")
    }

    /// The body limit of `method path`: `large` for media and ride uploads, `standard` for everything else.
    public static func bodyLimit(method: HTTPRequest.Method, path: String, standard: Int, large: Int) -> Int {
        isMediaUpload(method: method, path: path) || isRideUpload(method: method, path: path) ? large : standard
    }

    /// Whether `path` is under `/v1/auth`, where the stricter per-IP limit applies.
    public static func isAuthentication(path: String) -> Bool {
        guard let segments = RouteTable.normalizedSegments(path) else { return false }
        return segments.count >= 2 && segments[0] == "v1" && segments[1] == "auth"
    }
}
