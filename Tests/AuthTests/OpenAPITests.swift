import Auth
import Foundation
import Hummingbird
import ServiceTesting
import Testing

/// Keeps `Services/Auth/Sources/openapi.yaml` true: it is what the service serves, it is OpenAPI 3.1, and it documents
/// exactly the routes the service has.
@Suite("auth: the OpenAPI document")
struct OpenAPITests {
    typealias Route = OpenAPIRoute

    /// Every route auth serves. Update it with `AuthRoutes.swift` (and the document with it).
    static let routes: [Route] = [
        // AuthRoutes: credentials (public)
        Route("post", "/v1/auth/register"),
        Route("post", "/v1/auth/login"),
        Route("post", "/v1/auth/refresh"),
        Route("post", "/v1/auth/password-reset"),
        Route("post", "/v1/auth/password-reset/confirm"),
        Route("post", "/v1/auth/sso/{provider}"),
        // AuthRoutes: signed in
        Route("post", "/v1/auth/logout"),
        Route("get", "/v1/auth/sessions"),
        Route("delete", "/v1/auth/sessions/{id}"),
        Route("post", "/v1/auth/password"),
        Route("get", "/v1/users/me"),
        Route("patch", "/v1/users/me"),
        Route("delete", "/v1/users/me"),
        // AuthRoutes: public profiles and keys
        Route("get", "/v1/users/{id}"),
        Route("get", "/.well-known/jwks.json"),
        // AuthRoutes: administrators
        Route("put", "/v1/users/{id}/roles/{role}"),
        Route("delete", "/v1/users/{id}/roles/{role}"),
        Route("put", "/v1/users/{id}/suspension"),
        Route("delete", "/v1/users/{id}/suspension"),
        // ServiceKit's operational routes
        Route("get", "/health/live"),
        Route("get", "/health/ready"),
        Route("get", "/metrics"),
        Route("get", "/openapi.yaml"),
        // The embedded transport's feed (internal token)
        Route("get", "/v1/internal/events"),
    ]

    static let methods = OpenAPIText.methods

    /// The document in the source tree.
    static func documentText() throws -> String {
        try OpenAPIText.document("Services/Auth/Sources/openapi.yaml")
    }

    static func documentedRoutes(in yaml: String) -> [Route] {
        OpenAPIText.routes(in: yaml)
    }

    /// A concrete URI for a path template (ids are random, so nothing exists there).
    static func uri(for template: String) -> String {
        template
            .replacingOccurrences(of: "{id}", with: UUID().uuidString.lowercased())
            .replacingOccurrences(of: "{provider}", with: "google")
            .replacingOccurrences(of: "{role}", with: "moderator")
    }

    @Test("the scan finds paths and methods, and only under paths:")
    func scanner() {
        let yaml = """
            openapi: 3.1.0
            info:
              title: x
            paths:
              /a:
                get:
                  responses: {}
                post:
                  description: |
                    put:
              '/b/{id}':
                delete:
                  parameters: []
            components:
              schemas:
                get:
                  type: object
            """
        #expect(Self.documentedRoutes(in: yaml) == [Route("get", "/a"), Route("post", "/a"), Route("delete", "/b/{id}")])
    }

    @Test("the file is OpenAPI 3.1 and documents exactly the routes the service has, each once")
    func documentsEveryRoute() throws {
        let yaml = try Self.documentText()
        #expect(yaml.hasPrefix("openapi: 3.1."), "the document must start with `openapi: 3.1.x`")
        #expect(Self.routes.count == Set(Self.routes).count, "the route list has duplicates")
        let documented = Self.documentedRoutes(in: yaml)
        #expect(documented.count == Set(documented).count, "an operation is documented twice")
        let missing = Set(Self.routes).subtracting(documented).map(\.description).sorted()
        let extra = Set(documented).subtracting(Self.routes).map(\.description).sorted()
        #expect(missing.isEmpty, "routes the service has but openapi.yaml does not document: \(missing)")
        #expect(extra.isEmpty, "operations openapi.yaml documents but the service does not route: \(extra)")
    }

    @Test("GET /openapi.yaml serves the file verbatim as application/yaml")
    func servedDocumentIsTheFile() async throws {
        let file = try Self.documentText()
        let harness = AuthHarness()
        defer { harness.remove() }
        try await harness.run { _, client in
            let reply = try await client.send(.get, "/openapi.yaml")
            #expect(reply.status == 200)
            #expect(reply.headers[.contentType]?.hasPrefix("application/yaml") == true)
            #expect(reply.text == file, "the served document differs from Services/Auth/Sources/openapi.yaml")
            #expect(reply.text.hasPrefix("openapi: 3.1."))
        }
    }

    @Test("the running service routes every listed operation and no other method on those paths")
    func routesMatchTheList() async throws {
        let harness = AuthHarness()
        defer { harness.remove() }
        try await harness.run { _, client in
            // What the router answers when nothing matches (an unknown path, or a known path with another method).
            func send(_ method: String, _ template: String) async throws -> AuthClient.Reply {
                let uri = Self.uri(for: template)
                // Internal paths need the internal token even to reach the router's "not found".
                let token = template.hasPrefix("/v1/internal") ? AuthHarness.internalToken : nil
                return try await client.send(HTTPRequest.Method(method.uppercased())!, uri, token: token)
            }
            func isUnrouted(_ reply: AuthClient.Reply, like unrouted: AuthClient.Reply) -> Bool {
                reply.status == unrouted.status && reply["code"] == unrouted["code"] && reply["detail"] == unrouted["detail"]
            }
            let unrouted = try await send("get", "/v1/no-such-route")
            #expect(unrouted.status == 404 && unrouted["code"] == "not-found")
            #expect(isUnrouted(try await send("put", "/health/live"), like: unrouted), "another method on a known path is not routed")

            for route in Self.routes {
                let reply = try await send(route.method, route.path)
                #expect(!isUnrouted(reply, like: unrouted), "\(route) is not routed by the service (\(reply.status) \(reply.text))")
            }
            let paths = Set(Self.routes.map(\.path))
            for path in paths.sorted() {
                for method in Self.methods where !Self.routes.contains(Route(method, path)) {
                    let reply = try await send(method, path)
                    #expect(isUnrouted(reply, like: unrouted),
                            "\(method.uppercased()) \(path) is routed (\(reply.status)) but not listed or documented")
                }
            }
        }
    }
}
