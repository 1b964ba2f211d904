import Foundation

/// Where a keyset page ends: the sort key (microseconds) and the id that breaks ties. Opaque to clients (base64url of
/// `key:id`). Every list with cursor pages uses it (tour-management's reviews and favourites, record-trip's trips).
public struct PageCursor: Sendable, Hashable, Codable {
    public var key: Int64
    public var id: UUID

    /// A cursor after the row `id` sorted at `key`.
    public init(key: Int64, id: UUID) {
        self.key = key
        self.id = id
    }

    /// The opaque text a response's `nextCursor` carries.
    public var encoded: String { Base64URL.encode(Data("\(key):\(id.uuidString.lowercased())".utf8)) }

    /// The cursor `encoded` spells, `nil` for anything else.
    public init?(encoded: String) {
        guard let data = Base64URL.decode(encoded), let text = String(data: data, encoding: .utf8) else { return nil }
        let parts = text.split(separator: ":")
        guard parts.count == 2, let key = Int64(parts[0]), let id = UUID(uuidString: String(parts[1])) else { return nil }
        self.init(key: key, id: id)
    }
}
