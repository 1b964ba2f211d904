import Foundation
import Gateway
import Hummingbird
import NIOCore
import ServiceKit
import ServiceTesting
import Testing

@Suite("Extensions: routes the gateway serves itself, for verified users (the push stream's mount point)")
struct ExtensionTests {
    static let mountStream: @Sendable (GatewayRoutes) throws -> Void = { routes in
        routes.authenticated("/v1/notifications").get("/stream") { _, context in
            let user = try context.requireIdentity()
            return Response(status: .ok, headers: [.contentType: "text/event-stream"],
                            body: .init(byteBuffer: ByteBuffer(string: "data: hello \(user.subject)\n\n")))
        }
    }

    @Test("a mounted route needs a verified user, knows who it is, and counts against that user's rate limit")
    func authenticatedExtensionRoute() async throws {
        try await GatewayHarness.run(configure: { $0.ratePerMinute = 5 }, extensions: Self.mountStream) { (gateway: GatewayHarness) async throws in
            let anonymous = try await gateway.send(.GET, "/v1/notifications/stream")
            #expect(anonymous.status == 401)
            #expect(try anonymous.problem().code == "unauthenticated")
            let forged = try await gateway.send(.GET, "/v1/notifications/stream", headers: [("Authorization", "Bearer \(try TokenForge.unsigned(kid: TestSigningKey.primary.kid))")])
            #expect(forged.status == 401)
            let token = try await TokenForge.valid()
            let answer = try await gateway.send(.GET, "/v1/notifications/stream", headers: [("Authorization", "Bearer \(token)")])
            #expect(answer.status == 200)
            #expect(answer.text == "data: hello user-42\n\n")
            #expect(answer.header("ratelimit")?.hasPrefix(#""default";r=4;"#) == true)
        }
    }

    @Test("without the extension the path is an ordinary 404")
    func unmountedIs404() async throws {
        try await GatewayHarness.run() { (gateway: GatewayHarness) async throws in
            #expect(try await gateway.send(.GET, "/v1/notifications/stream").status == 404)
        }
    }
}
