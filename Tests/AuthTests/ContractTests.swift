import Contracts
import ContractTesting
import Foundation
import Testing

/// Producer side of `waypoint.auth`: every published event keeps its pinned JSON shape (`Tests/Golden/waypoint.auth/`),
/// and the golden files carry no secret and no readable personal data.
@Suite("auth: published contracts on waypoint.auth")
struct ContractTests {
    static let user = UUID(uuidString: "0b8f3a52-4a7e-4c55-9d55-6f1f2f6b1a01")!
    static let admin = UUID(uuidString: "7d3c1e90-2f4b-4f0e-8a61-0c9b2b7e4c02")!
    static let session = UUID(uuidString: "5e2a9c41-8d3b-4b6a-b1f0-3c7d9e8a6b03")!
    static let at = Date(timeIntervalSince1970: 1_795_341_600)

    static func sealed(_ tag: String) -> SealedPersonalData {
        SealedPersonalData(subject: user.uuidString.lowercased(), sealed: "AAECAwQFBgcICQoL\(tag)c2VhbGVk")
    }

    static let examples: [any IntegrationEvent] = [
        UserRegistered(userId: user, username: sealed("dXNlcm5hbWU"), email: sealed("ZW1haWw"), role: .guide,
                       licenceNumber: sealed("bGljZW5jZQ"), method: .password, registeredAt: at),
        UserProfileUpdated(userId: user, displayName: sealed("bmFtZQ"), avatarUrl: nil, homeCurrency: .eur, language: "de-AT",
                           updatedAt: at),
        RoleGranted(userId: user, role: .moderator, grantedBy: admin, grantedAt: at),
        RoleRevoked(userId: user, role: .moderator, revokedBy: admin, revokedAt: at),
        UserSuspended(userId: user, suspendedBy: admin, suspendedAt: at),
        UserReactivated(userId: user, reactivatedBy: admin, reactivatedAt: at),
        UserErased(userId: user, erasedAt: at),
        PasswordChanged(userId: user, reason: .reset, changedAt: at),
        SessionStarted(sessionId: session, userId: user, method: .google, startedAt: at, expiresAt: at.addingTimeInterval(7 * 86_400)),
        SessionRevoked(sessionId: session, userId: user, reason: .refreshTokenReuse, revokedAt: at),
    ]

    @Test("every auth event matches its golden file", arguments: 0..<examples.count)
    func golden(index: Int) throws {
        try Self.verify(Self.examples[index])
    }

    private static func verify<Event: IntegrationEvent>(_ event: Event) throws {
        try GoldenFile.verify(event)
        #expect(Event.topic == .auth)
    }

    @Test("golden files hold no plaintext personal data and no secret-looking field")
    func noPersonalData() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Golden/waypoint.auth")
        for example in Self.examples {
            let name = "\(type(of: example).eventType).v\(type(of: example).schemaVersion).json"
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8).lowercased()
            for forbidden in ["\"password\" :", "hash", "token\" :", "@", "deviceid"] {
                #expect(!text.contains(forbidden), "\(name) contains \(forbidden)")
            }
        }
    }
}
