import HTTPTypes
import HummingbirdTesting
import ServiceKit
import ServiceTesting
import Testing

@Suite("/v1/internal/* needs the internal token")
struct InternalRouteTests {
    let token = "internal-token-for-tests-0123456789"

    @Test("without a token an internal route is 401")
    func missingToken() async throws {
        try await TestApplication.make().test(.router) { client in
            let response = try await client.execute(uri: "/v1/internal/ping", method: .get)
            #expect(response.status == .unauthorized)
            #expect(try response.problem().code == "invalid-token")
        }
    }

    @Test("with a wrong token an internal route is 401")
    func wrongToken() async throws {
        try await TestApplication.make().test(.router) { client in
            for presented in ["internal-token-for-tests-012345678", "internal-token-for-tests-01234567890", "x", String(token.reversed())] {
                let response = try await client.execute(uri: "/v1/internal/ping", method: .get, headers: [.authorization: "Bearer \(presented)"])
                #expect(response.status == .unauthorized)
            }
        }
    }

    @Test("a user's access token does not open internal routes")
    func userTokenRefused() async throws {
        let userToken = try await TokenForge.valid(role: .admin)
        try await TestApplication.make().test(.router) { client in
            let response = try await client.execute(uri: "/v1/internal/ping", method: .get, headers: [.authorization: "Bearer \(userToken)"])
            #expect(response.status == .unauthorized)
        }
    }

    @Test("with the right token an internal route answers")
    func rightToken() async throws {
        try await TestApplication.make().test(.router) { client in
            let response = try await client.execute(uri: "/v1/internal/ping", method: .get, headers: [.authorization: "Bearer \(token)"])
            #expect(response.status == .ok)
            #expect(response.text == "pong")
        }
    }

    @Test("odd spellings of the path do not bypass the guard")
    func pathTricks() async throws {
        try await TestApplication.make().test(.router) { client in
            for path in ["//v1/internal/ping", "/v1//internal/ping", "/V1/Internal/ping", "/v1/internal/ping/"] {
                let response = try await client.execute(uri: path, method: .get)
                #expect(response.status != .ok, "\(path) answered 200")
            }
        }
    }

    @Test("without a configured token every internal request is refused")
    func noConfiguredToken() async throws {
        try await TestApplication.make(configuration: .test(internalToken: nil)).test(.router) { client in
            let response = try await client.execute(uri: "/v1/internal/ping", method: .get, headers: [.authorization: "Bearer \(token)"])
            #expect(response.status == .unauthorized)
        }
    }
}
