import Contracts
import Crypto
import EventSourcing
import Foundation
import Logging
import ServiceKit
import Synchronization

/// Records `TourViewed` for detail views, once per viewer per tour per clock hour (UTC), on stream `views-<tourId>`.
///
/// The event id is derived from (tour, viewer, hour), so a second view in the same hour — from this process or, after a
/// restart, from the log — is refused by the store as a duplicate id and records nothing. A small in-memory set spares
/// the store those attempts. Anonymous viewers are keyed by an HMAC of their address and user agent under a key that
/// never leaves the process and changes at every start: nothing that identifies a person is stored, and unique-viewer
/// counts stay exact within an hour.
public final class TourViewRecorder: Sendable {
    let store: AnyEventStore
    let logger: Logger
    private let clientKey = SymmetricKey(size: .bits256)
    private let recent = Mutex<(hour: Int64, keys: Set<String>)>((0, []))

    public init(store: AnyEventStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    /// The viewer key of a request: `user:<id>` for a signed-in user, else `client:<hmac>` of what identifies the client.
    public func viewer(user: UUID?, clientAddress: String?, userAgent: String?) -> String {
        if let user { return "user:\(user.uuidString.lowercased())" }
        let material = Data("\(clientAddress ?? "-")\n\(userAgent ?? "-")".utf8)
        let mac = HMAC<SHA256>.authenticationCode(for: material, using: clientKey)
        return "client:" + Data(mac).prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    /// Records a view unless this viewer already viewed this tour in this hour. Never throws: a view that cannot be
    /// recorded is logged, the page is still served.
    public func record(tour: UUID, guide: UUID, viewer: String, user: UUID?, at date: Date) async {
        let hour = Int64((date.timeIntervalSince1970 / 3_600).rounded(.down))
        let key = "\(tour.uuidString.lowercased())|\(viewer)|\(hour)"
        let fresh = recent.withLock { state in
            if state.hour != hour { state = (hour, []) }
            return state.keys.insert(key).inserted
        }
        guard fresh else { return }
        do {
            let id = Self.eventID(key)
            let event = try TourViewed(tourId: tour, guideId: guide, viewer: viewer, userId: user, viewedAt: date).newEvent(id: id)
            _ = try await store.append([event], to: "views-\(tour.uuidString.lowercased())", expectedVersion: .any)
        } catch EventStoreError.duplicateEventID {
            // Recorded before (an earlier process in the same hour).
        } catch {
            logger.warning("tour view not recorded", metadata: ["tour": "\(tour)", "error": "\(error)"])
        }
    }

    /// A UUID (version 8, RFC 9562 custom) from the SHA-256 of `key`.
    static func eventID(_ key: String) -> UUID {
        var bytes = Array(SHA256.hash(data: Data(key.utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}
