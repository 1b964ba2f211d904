/// Why a compiled cache was not used, so the graph was built from the extracts (and the cache written anew).
public enum RoadGraphCacheMiss: Error, Sendable, Hashable, CustomStringConvertible {
    /// There was no cache file.
    case missing
    /// The file has another layout version.
    case staleFormat(found: Int)
    /// The file was built with another profile version.
    case staleProfile(found: Int)
    /// The file was built from other extracts (or other contents of them).
    case staleExtracts
    /// The file is damaged: cut short, a flipped bit (checksum), inconsistent arrays, unreadable.
    case corrupt(String)

    public var description: String {
        switch self {
        case .missing: "no cache file"
        case .staleFormat(let found): "stale: cache format \(found), this build reads \(RoadGraphCacheFile.formatVersion)"
        case .staleProfile(let found): "stale: built with bike profile version \(found)"
        case .staleExtracts: "stale: built from other extracts"
        case .corrupt(let why): "corrupt: \(why)"
        }
    }
}
