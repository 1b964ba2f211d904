import ContractTesting
import Contracts
import Foundation
import Testing

/// The published shape of `waypoint.notifications` (`Tests/Golden/waypoint.notifications/`). Producers (tour-management
/// today) and the gateway's notification hub read and write this one file.
@Suite("Contracts: UserNotified on waypoint.notifications")
struct NotificationContractTests {
    static let example = UserNotified(
        notificationId: UUID(uuidString: "0d5c2a8e-6a4b-5c1d-9e2f-3a4b5c6d7e8f")!,
        userId: UUID(uuidString: "5d6e7f80-9a1b-4c2d-8e3f-4a5b6c7d8e01")!,
        kind: .purchaseConfirmed,
        title: "Purchase confirmed",
        body: "Your payment of 12.99 EUR went through: the tour is yours to download and walk.",
        data: ["purchaseId": "c0ffee00-1234-4abc-8def-0123456789ab", "tourId": "3f7b8a10-5c2e-4d91-9a6b-1e2f3a4b5c01"],
        occurredAt: Date(timeIntervalSince1970: 1_795_341_600))

    @Test("UserNotified keeps its published shape")
    func golden() throws {
        try GoldenFile.verify(Self.example)
        #expect(UserNotified.topic == .notifications)
        #expect(UserNotified.schemaVersion == 1)
    }

    @Test("a kind this reader does not know still decodes, as itself")
    func unknownKind() throws {
        var json = String(decoding: try ContractJSON.encode(Self.example), as: UTF8.self)
        json = json.replacingOccurrences(of: "purchase.confirmed", with: "navigation.instruction")
        let decoded = try ContractJSON.decode(UserNotified.self, from: Data(json.utf8))
        #expect(decoded.kind == NotificationKind(rawValue: "navigation.instruction"))
        #expect(decoded.kind.description == "navigation.instruction")
    }

    @Test("the kinds are stable strings")
    func kinds() {
        #expect([NotificationKind.purchaseConfirmed, .purchaseRefunded, .reviewHidden, .reviewReplied].map(\.rawValue)
            == ["purchase.confirmed", "purchase.refunded", "review.hidden", "review.replied"])
    }
}
