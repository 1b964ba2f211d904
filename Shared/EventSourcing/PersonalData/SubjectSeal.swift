import Contracts
import Foundation

/// Seals values with a user's own key (AES-256-GCM through ``PersonalDataCipher``) and opens them again: the one way a
/// service keeps a person's data in its log so that destroying the key (``erase(_:)``) erases it in every copy — the log,
/// snapshots, read models that keep it sealed (crypto-shredding, DESIGN rule 7).
///
/// The key subject is the user id in lower case (as everywhere in Waypoint). Sealing for a user whose key was destroyed
/// throws the error the service chose (`whenErased`, usually its 403 `account-erased` problem); opening a value of an
/// erased user gives `nil`.
public struct SubjectSeal: Sendable {
    private let sealing: @Sendable (Data, String) async throws -> SealedPersonalData
    private let opening: @Sendable ([SealedPersonalData]) async throws -> [Data?]
    private let eraseSubject: @Sendable (String) async throws -> Void
    private let erased: @Sendable (UUID) -> any Error

    /// Over the service's key store. `whenErased` is what sealing for an erased user throws (by default
    /// ``PersonalDataError/subjectErased(_:)``).
    public init(keys: any PersonalDataKeyStore,
                whenErased erased: @escaping @Sendable (UUID) -> any Error = { PersonalDataError.subjectErased(SubjectSeal.subject($0)) }) {
        self = Self.over(keys, erased: erased)
    }

    private static func over<Keys: PersonalDataKeyStore>(_ keys: Keys, erased: @escaping @Sendable (UUID) -> any Error) -> SubjectSeal {
        let cipher = PersonalDataCipher(keys: keys)
        return SubjectSeal(sealing: { try await cipher.seal(bytes: $0, for: $1) }, opening: { try await cipher.openBytes($0) },
                           eraseSubject: { try await cipher.erase($0) }, erased: erased)
    }

    private init(sealing: @escaping @Sendable (Data, String) async throws -> SealedPersonalData,
                 opening: @escaping @Sendable ([SealedPersonalData]) async throws -> [Data?],
                 eraseSubject: @escaping @Sendable (String) async throws -> Void,
                 erased: @escaping @Sendable (UUID) -> any Error) {
        self.sealing = sealing
        self.opening = opening
        self.eraseSubject = eraseSubject
        self.erased = erased
    }

    /// The key subject of a user: their id, lower case.
    public static func subject(_ user: UUID) -> String { user.uuidString.lowercased() }

    /// `value` as JSON sealed for `user`.
    public func seal(_ value: some Encodable, for user: UUID) async throws -> SealedPersonalData {
        try await seal(json: try JSONEncoder().encode(value), for: user)
    }

    /// JSON bytes sealed for `user`.
    public func seal(json: Data, for user: UUID) async throws -> SealedPersonalData {
        try await seal(bytes: json, for: user)
    }

    /// Bytes (JSON or a binary payload) sealed for `user`; `whenErased` once their key was destroyed.
    public func seal(bytes: Data, for user: UUID) async throws -> SealedPersonalData {
        do {
            return try await sealing(bytes, Self.subject(user))
        } catch PersonalDataError.subjectErased {
            throw erased(user)
        }
    }

    /// The sealed value, `nil` when its user was erased.
    public func open<Value: Decodable>(_ type: Value.Type, _ sealed: SealedPersonalData) async throws -> Value? {
        guard let bytes = try await openBytes(sealed) else { return nil }
        return try JSONDecoder().decode(type, from: bytes)
    }

    /// Many sealed values in order, each `nil` when its user was erased; each subject's key is read once.
    public func open<Value: Decodable>(_ type: Value.Type, _ sealed: [SealedPersonalData]) async throws -> [Value?] {
        let decoder = JSONDecoder()
        return try await opening(sealed).map { bytes in try bytes.map { try decoder.decode(type, from: $0) } }
    }

    /// The sealed bytes, `nil` when their user was erased.
    public func openBytes(_ sealed: SealedPersonalData) async throws -> Data? {
        try await opening([sealed]).first ?? nil
    }

    /// Proves something may still be sealed for `user` (their key was not destroyed): `whenErased` otherwise.
    public func requireSealable(_ user: UUID) async throws {
        _ = try await seal(json: Data("{}".utf8), for: user)
    }

    /// Destroys the user's key: everything sealed for them becomes unreadable at once, and nothing new can be sealed.
    public func erase(_ user: UUID) async throws {
        try await eraseSubject(Self.subject(user))
    }
}
