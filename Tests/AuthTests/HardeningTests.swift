import Auth
import Foundation
import Hummingbird
import ServiceKit
import ServiceTesting
import Testing

/// Issue 16 (an outside probe): passwords the hasher cannot take, account answers racing an erasure, lockout that told
/// registered emails from others.
@Suite("auth: hardening from an outside probe")
struct HardeningTests {
    @Test("a NUL in any password field is a 422 invalid-characters on every route that takes a password, never a 500",
          arguments: TestBackend.enabled)
    func nulInPasswords(backend: TestBackend) async throws {
        let harness = AuthHarness(backend: backend)
        defer { harness.remove() }
        try await harness.run { _, client in
            let nul = #"Secret123x\u0000tail"#
            func expectInvalid(_ reply: AuthClient.Reply, _ field: String, sourceLocation: SourceLocation = #_sourceLocation) {
                #expect(reply.status == 422, "\(reply.text)", sourceLocation: sourceLocation)
                #expect(reply.headers[.contentType] == "application/problem+json", sourceLocation: sourceLocation)
                #expect(reply.fieldErrors.contains("\(field):invalid-characters"), "\(reply.text)", sourceLocation: sourceLocation)
            }
            expectInvalid(try await client.register("nul1", "nul1@example.com", password: nul), "password")
            let registered = try await client.register("nul2", "nul2@example.com")
            #expect(registered.status == 201)
            // Known and unknown emails alike, before any bcrypt work or failure count.
            expectInvalid(try await client.login("nul2@example.com", password: nul), "password")
            expectInvalid(try await client.login("nobody@example.com", password: nul), "password")
            let token = try #require(try await client.login("nul2@example.com")["accessToken"])
            expectInvalid(try await client.post("/v1/auth/password", #"{"currentPassword":"Secret123x","newPassword":"\#(nul)"}"#, token: token),
                          "newPassword")
            expectInvalid(try await client.post("/v1/auth/password", #"{"currentPassword":"\#(nul)","newPassword":"Other123x"}"#, token: token),
                          "currentPassword")
            expectInvalid(try await client.post("/v1/auth/password-reset/confirm", #"{"token":"abc","newPassword":"\#(nul)"}"#), "newPassword")
            // The licence number is one line of printable text.
            let licence = try await client.post("/v1/auth/register",
                                                #"{"username":"nul3","email":"nul3@example.com","password":"Secret123x","role":"guide","licenceNumber":"AT\u00001"}"#)
            #expect(licence.fieldErrors == ["licenceNumber:invalid-characters"])
            // Nothing half-done: the password still works, the account with the NUL password does not exist.
            #expect(try await client.login("nul2@example.com").status == 200)
            #expect(try await client.register("nul1", "nul1@example.com").status == 201)
        }
    }

    @Test("a password of 128 characters but thousands of bytes (combining marks) registers, logs in and changes, not a 500")
    func passwordsLongerThanLibxcryptTakes() async throws {
        let harness = AuthHarness()
        defer { harness.remove() }
        try await harness.run { _, client in
            // 9 characters; the last is one grapheme of `e` and 1,000 combining acute accents (2,001 UTF-8 bytes).
            let long = "Abcdefg1e" + String(repeating: #"\u0301"#, count: 1_000)
            #expect(try await client.register("long1", "long1@example.com", password: long).status == 201)
            let login = try await client.login("long1@example.com", password: long)
            #expect(login.status == 200)
            let token = try #require(login["accessToken"])
            // Only the first 72 bytes count, as documented: the same prefix logs in.
            #expect(try await client.login("long1@example.com", password: "Abcdefg1e" + String(repeating: #"\u0301"#, count: 40)).status == 200)
            let changed = try await client.post("/v1/auth/password", #"{"currentPassword":"\#(long)","newPassword":"\#(long)X"}"#, token: token)
            #expect(changed.status == 204, "\(changed.text)")
        }
    }

    @Test("PATCH /v1/users/me racing DELETE /v1/users/me answers a whole Account or a documented problem; afterwards every route refuses",
          arguments: TestBackend.enabled)
    func profileRacingErasure(backend: TestBackend) async throws {
        let harness = AuthHarness(backend: backend)
        defer { harness.remove() }
        try await harness.run { _, client in
            for round in 0..<6 {
                let email = "racer\(round)@example.com"
                #expect(try await client.register("racer\(round)", email).status == 201)
                let login = try await client.login(email)
                let token = try #require(login["accessToken"]), refresh = try #require(login["refreshToken"])
                let (patch, erase) = try await withThrowingTaskGroup(of: (String, AuthClient.Reply).self) { group in
                    group.addTask { ("patch", try await client.send(.patch, "/v1/users/me", json: #"{"displayName":"Racer \#(round)"}"#, token: token)) }
                    group.addTask { ("delete", try await client.send(.delete, "/v1/users/me", token: token)) }
                    var replies: [String: AuthClient.Reply] = [:]
                    for try await (name, reply) in group { replies[name] = reply }
                    return (replies["patch"]!, replies["delete"]!)
                }
                #expect([204, 401].contains(erase.status), "\(erase.text)")
                if patch.status == 200 {
                    #expect(patch["username"] == "racer\(round)" && patch["email"] == email, "an Account has its username and email: \(patch.text)")
                } else {
                    #expect([401, 404].contains(patch.status), "\(patch.text)")
                    #expect(patch.headers[.contentType] == "application/problem+json")
                }
                // Erase for sure (the PATCH may have won), then every route answers a documented error.
                if erase.status != 204 {
                    let again = try await client.login(email)
                    if let fresh = again["accessToken"] { #expect(try await client.send(.delete, "/v1/users/me", token: fresh).status == 204) }
                }
                let after: [(HTTPRequest.Method, String, String?)] = [
                    (.get, "/v1/users/me", nil), (.patch, "/v1/users/me", #"{"displayName":"x"}"#), (.delete, "/v1/users/me", nil),
                    (.post, "/v1/auth/logout", nil), (.get, "/v1/auth/sessions", nil),
                    (.delete, "/v1/auth/sessions/\(login["sessionId"] ?? "")", nil),
                    (.post, "/v1/auth/password", #"{"currentPassword":"Secret123x","newPassword":"Other123x"}"#),
                ]
                for (method, path, body) in after {
                    let reply = try await client.send(method, path, json: body, token: token)
                    #expect(reply.status == 401 && reply["code"] == "invalid-token", "\(method) \(path): \(reply.status) \(reply.text)")
                }
                #expect(try await client.refresh(refresh).status == 401)
                #expect(try await client.login(email).status == 401)
            }
        }
    }

    @Test("an unknown email locks like a registered one: the same statuses, codes and Retry-After, and both unlock alike")
    func lockoutDoesNotRevealAccounts() async throws {
        let harness = AuthHarness()
        defer { harness.remove() }
        try await harness.run { _, client in
            _ = try await client.register("known1", "known1@example.com")
            // An account without a password (single sign-on) is no different: checked through the same unknown path.
            func attempts(_ email: String) async throws -> [String] {
                var seen: [String] = []
                for _ in 0..<11 {
                    let reply = try await client.login(email, password: "Wrong12345")
                    seen.append("\(reply.status) \(reply["code"] ?? "") \(reply.headers[.retryAfter] ?? "-")")
                }
                return seen
            }
            let known = try await attempts("known1@example.com")
            let unknown = try await attempts("Nobody@Example.com")
            #expect(known == unknown)
            #expect(known.last == "429 account-locked 900")
            #expect(known.dropLast().allSatisfy { $0 == "401 invalid-credentials -" })
            // While locked, even the right password (or any password) is 429, for both.
            #expect(try await client.login("known1@example.com").status == 429)
            #expect(try await client.login("nobody@example.com", password: "Anything123").status == 429)
            harness.clock.advance(seconds: 15 * 60 + 1)
            #expect(try await client.login("known1@example.com", password: "Wrong12345").status == 401)
            #expect(try await client.login("nobody@example.com", password: "Wrong12345").status == 401)
            #expect(try await client.login("known1@example.com").status == 200)
        }
    }
}
