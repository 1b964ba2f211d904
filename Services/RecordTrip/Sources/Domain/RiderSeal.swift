import Contracts
import EventSourcing
import Foundation

/// Seals values with the rider's own key (AES-256-GCM through `PersonalDataCipher`) and opens them again: a ride's
/// samples, track, route and candidates rest only in this form, so destroying the key (``erase(_:)``) erases the ride
/// in every copy of the log.
public struct RiderSeal: Sendable {
    private let sealing: @Sendable (Data, String) async throws -> SealedPersonalData
    private let opening: @Sendable (SealedPersonalData) async throws -> Data?
    private let eraseSubject: @Sendable (String) async throws -> Void

    /// Over the service's key store.
    public init(keys: any PersonalDataKeyStore) {
        self = Self.over(keys)
    }

    private static func over<Keys: PersonalDataKeyStore>(_ keys: Keys) -> RiderSeal {
        let cipher = PersonalDataCipher(keys: keys)
        return RiderSeal(sealing: { try await cipher.seal(bytes: $0, for: $1) }, opening: { try await cipher.openBytes($0) },
                         eraseSubject: { try await cipher.erase($0) })
    }

    private init(sealing: @escaping @Sendable (Data, String) async throws -> SealedPersonalData,
                 opening: @escaping @Sendable (SealedPersonalData) async throws -> Data?,
                 eraseSubject: @escaping @Sendable (String) async throws -> Void) {
        self.sealing = sealing
        self.opening = opening
        self.eraseSubject = eraseSubject
    }

    /// The key subject of a rider: their user id, lower case (as everywhere in Waypoint).
    public static func subject(_ rider: UUID) -> String { rider.uuidString.lowercased() }

    /// `value` as JSON sealed for `rider`; 403 `account-erased` once their key was destroyed.
    public func seal(_ value: some Encodable, for rider: UUID) async throws -> SealedPersonalData {
        try await seal(json: try JSONEncoder().encode(value), for: rider)
    }

    /// JSON bytes sealed for `rider`.
    public func seal(json: Data, for rider: UUID) async throws -> SealedPersonalData {
        try await seal(bytes: json, for: rider)
    }

    /// Bytes (JSON or a binary payload) sealed for `rider`; 403 `account-erased` once their key was destroyed.
    public func seal(bytes: Data, for rider: UUID) async throws -> SealedPersonalData {
        do {
            return try await sealing(bytes, Self.subject(rider))
        } catch PersonalDataError.subjectErased {
            throw TripError.riderErased
        }
    }

    /// The sealed value, `nil` when its rider was erased.
    public func open<Value: Decodable>(_ type: Value.Type, _ sealed: SealedPersonalData) async throws -> Value? {
        guard let bytes = try await opening(sealed) else { return nil }
        return try JSONDecoder().decode(type, from: bytes)
    }

    /// The sealed bytes, `nil` when their rider was erased.
    public func openBytes(_ sealed: SealedPersonalData) async throws -> Data? {
        try await opening(sealed)
    }

    /// Proves a rider may record (their key was not destroyed): 403 `account-erased` otherwise.
    public func requireRecordable(_ rider: UUID) async throws {
        _ = try await seal(json: Data("{}".utf8), for: rider)
    }

    /// Destroys the rider's key: every sealed sample, track and route of theirs becomes unreadable at once.
    public func erase(_ rider: UUID) async throws {
        try await eraseSubject(Self.subject(rider))
    }
}
