import Auth
import Contracts
import EventSourcing
import Foundation
import ServiceTesting
import Testing

@Suite("auth: passwords, profiles, erasure and administration")
struct AccountTests {
    /// The reset token in the newest mail of the mailbox directory.
    static func resetToken(in mailbox: URL) throws -> (token: String, mail: String) {
        let files = try FileManager.default.contentsOfDirectory(at: mailbox, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "eml" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
        let mail = try String(contentsOf: try #require(files.last), encoding: .utf8)
        let line = try #require(mail.split(whereSeparator: \.isNewline).first { $0.contains("reset-password?token=") })
        let token = try #require(line.components(separatedBy: "token=").last).trimmingCharacters(in: .whitespacesAndNewlines)
        return (token, mail)
    }

    @Test("password reset: 202 either way, one mail with a single-use 30-minute token that never reaches the log, all sessions end")
    func passwordReset() async throws {
        let harness = AuthHarness()
        defer { harness.remove() }
        try await harness.run { server, client in
            _ = try await client.register("resetme1", "resetme1@example.com")
            let session = try await client.login("resetme1@example.com")
            let unknown = try await client.post("/v1/auth/password-reset", #"{"email":"nobody@example.com"}"#)
            let known = try await client.post("/v1/auth/password-reset", #"{"email":"ResetMe1@example.com"}"#)
            #expect(unknown.status == 202 && known.status == 202)
            #expect(unknown.json["detail"] as? String == known.json["detail"] as? String)
            let mailbox = try harness.mailbox
            #expect(try await eventually {
                ((try? FileManager.default.contentsOfDirectory(atPath: mailbox.path)) ?? []).filter { $0.hasSuffix(".eml") }.count == 1
            })
            let (token, mail) = try Self.resetToken(in: mailbox)
            #expect(mail.contains("To: resetme1@example.com"))
            // The token is nowhere in the log.
            let log = try await server.storage.store.readAll(after: 0, limit: 10_000)
            #expect(!log.contains { String(decoding: $0.payload, as: UTF8.self).contains(token) })

            let weak = try await client.post("/v1/auth/password-reset/confirm", #"{"token":"\#(token)","newPassword":"weak"}"#)
            #expect(weak.status == 422)
            let confirmed = try await client.post("/v1/auth/password-reset/confirm", #"{"token":"\#(token)","newPassword":"Fresh456y"}"#)
            #expect(confirmed.status == 204)
            #expect(try await client.post("/v1/auth/password-reset/confirm", #"{"token":"\#(token)","newPassword":"Again789z"}"#).status == 422,
                    "single use")
            #expect(try await client.refresh(try #require(session["refreshToken"])).status == 401, "every session ends")
            #expect(try await client.login("resetme1@example.com").status == 401)
            #expect(try await client.login("resetme1@example.com", password: "Fresh456y").status == 200)

            // A token older than 30 minutes is refused.
            _ = try await client.post("/v1/auth/password-reset", #"{"email":"resetme1@example.com"}"#)
            #expect(try await eventually {
                ((try? FileManager.default.contentsOfDirectory(atPath: mailbox.path)) ?? []).filter { $0.hasSuffix(".eml") }.count == 2
            })
            let (late, _) = try Self.resetToken(in: mailbox)
            harness.clock.advance(seconds: 31 * 60)
            #expect(try await client.post("/v1/auth/password-reset/confirm", #"{"token":"\#(late)","newPassword":"Later123q"}"#).status == 422)
        }
    }

    @Test("changing the password needs the current one and ends the other sessions")
    func changePassword() async throws {
        let harness = AuthHarness()
        defer { harness.remove() }
        try await harness.run { _, client in
            _ = try await client.register("changer1", "changer1@example.com")
            let here = try await client.login("changer1@example.com", device: "here")
            let there = try await client.login("changer1@example.com", device: "there")
            let token = here["accessToken"]
            #expect(try await client.post("/v1/auth/password", #"{"currentPassword":"Nope12345","newPassword":"Other789x"}"#, token: token).status == 403)
            #expect(try await client.post("/v1/auth/password", #"{"currentPassword":"Secret123x","newPassword":"short"}"#, token: token).status == 422)
            #expect(try await client.post("/v1/auth/password", #"{"currentPassword":"Secret123x","newPassword":"Other789x"}"#, token: token).status == 204)
            #expect(try await client.refresh(try #require(there["refreshToken"])).status == 401)
            #expect(try await client.refresh(try #require(here["refreshToken"]), device: "here").status == 200)
            #expect(try await client.login("changer1@example.com", password: "Other789x").status == 200)
        }
    }

    @Test("profile: read, merge-patch (null clears), validation, and SQL- or script-looking text stored and returned verbatim")
    func profile() async throws {
        let harness = AuthHarness()
        defer { harness.remove() }
        try await harness.run { _, client in
            let user = try await client.register("profile1", "profile1@example.com")
            let token = try await client.login("profile1@example.com")["accessToken"]
            let hostile = #"<script>alert('x')</script>'; DROP TABLE es_events; --"#
            let escaped = hostile.replacingOccurrences(of: "\"", with: "\\\"")
            let patched = try await client.send(.patch, "/v1/users/me",
                                                json: #"{"displayName":"\#(escaped)","homeCurrency":"EUR","language":"de-AT","avatarUrl":"https://img.example.com/a.png"}"#,
                                                token: token)
            #expect(patched.status == 200)
            #expect(patched["displayName"] == hostile)
            #expect(patched.headers[.contentType]?.hasPrefix("application/json") == true)
            let me = try await client.send(.get, "/v1/users/me", token: token)
            #expect(me["displayName"] == hostile && me["homeCurrency"] == "EUR" && me["language"] == "de-AT")
            let cleared = try await client.send(.patch, "/v1/users/me", json: #"{"avatarUrl":null}"#, token: token)
            #expect(cleared["avatarUrl"] == nil && cleared["displayName"] == hostile)
            let invalid = try await client.send(.patch, "/v1/users/me",
                                                json: #"{"homeCurrency":"XYZ","language":"not a tag","avatarUrl":"javascript:alert(1)","displayName":""}"#,
                                                token: token)
            #expect(invalid.status == 422)
            #expect(invalid.fieldErrors == ["homeCurrency:unknown-currency", "language:invalid-language", "avatarUrl:invalid-url", "displayName:too-short"])
            let publicProfile = try await client.send(.get, "/v1/users/\(try #require(user["id"]))")
            #expect(publicProfile.status == 200 && publicProfile["displayName"] == hostile && publicProfile["email"] == nil)
        }
    }

    @Test("erasure: the key is destroyed, so neither reads nor a rebuild recover email or name; sessions end; UserErased is published",
          arguments: TestBackend.enabled)
    func erasure(backend: TestBackend) async throws {
        let harness = AuthHarness(backend: backend)
        defer { harness.remove() }
        try await harness.run { server, client in
            let user = try await client.register("forgetme1", "forgetme1@example.com")
            let id = try #require(user["id"].flatMap(UUID.init(uuidString:)))
            let login = try await client.login("forgetme1@example.com")
            _ = try await client.send(.patch, "/v1/users/me", json: #"{"displayName":"Forget Me"}"#, token: login["accessToken"])
            #expect(try await client.send(.delete, "/v1/users/me", token: login["accessToken"]).status == 204)
            #expect(try await client.refresh(try #require(login["refreshToken"])).status == 401)
            #expect(try await client.login("forgetme1@example.com").status == 401)
            #expect(try await client.send(.get, "/v1/users/\(id.uuidString)").status == 404)

            // A rebuild from the log opens nothing of the person.
            let rebuilt = AuthDirectory(store: server.storage.store, open: PersonalData(keys: server.storage.personalDataKeys).open)
            try await rebuilt.sync()
            let record = try #require(rebuilt.user(id))
            #expect(record.status == .erased)
            #expect(record.email == nil && record.username == nil && record.displayName == nil && record.passwordHash == nil)
            #expect(rebuilt.user(email: "forgetme1@example.com") == nil)
            let log = try await server.storage.store.readAll(after: 0, limit: 10_000)
            #expect(!log.contains { String(decoding: $0.payload, as: UTF8.self).localizedCaseInsensitiveContains("forgetme1") })
            #expect(log.contains { $0.eventType == "UserErased" })
            // The email and username are free again.
            #expect(try await client.register("forgetme1", "forgetme1@example.com").status == 201)
        }
    }

    @Test("an erasure interrupted after UserErased is finished at the next start: key destroyed, sessions revoked, claims released")
    func interruptedErasure() async throws {
        let harness = AuthHarness()
        defer { harness.remove() }
        let (id, refresh) = try await harness.run { server, client in
            let user = try await client.register("halfgone1", "halfgone1@example.com")
            let id = try #require(user["id"].flatMap(UUID.init(uuidString:)))
            let login = try await client.login("halfgone1@example.com")
            // The crash: the fact is recorded, nothing after it happened.
            _ = try await server.storage.store.append([try UserErased(userId: id, erasedAt: Date()).newEvent()],
                                                      to: "user-\(id.uuidString.lowercased())", expectedVersion: .any)
            return (id, try #require(login["refreshToken"]))
        }
        try await harness.run { (server: AuthServer, client: AuthClient) async throws in
            #expect(try await server.storage.personalDataKeys.keyForOpening(id.uuidString.lowercased()) == nil)
            #expect(try await client.refresh(refresh).status == 401)
            #expect(try await client.register("halfgone1", "halfgone1@example.com").status == 201)
        }
    }

    @Test("roles and states: a traveller cannot reach admin routes; an admin grants moderator and suspends and reactivates users")
    func administration() async throws {
        let harness = AuthHarness()
        defer { harness.remove() }
        try await harness.run { server, client in
            _ = try await server.commands.createAdmin(username: "boss1", email: "boss1@example.com", password: "Admin123x")
            let admin = try await client.login("boss1@example.com", password: "Admin123x")
            #expect(admin.json["user"].flatMap { ($0 as? [String: Any])?["role"] as? String } == "admin")
            let member = try await client.register("member1", "member1@example.com")
            let memberID = try #require(member["id"])
            let memberLogin = try await client.login("member1@example.com")
            #expect(try await client.send(.put, "/v1/users/\(memberID)/roles/moderator", token: memberLogin["accessToken"]).status == 403)
            #expect(try await client.send(.put, "/v1/users/\(memberID)/suspension", token: memberLogin["accessToken"]).status == 403)

            let granted = try await client.send(.put, "/v1/users/\(memberID)/roles/moderator", token: admin["accessToken"])
            #expect(granted.status == 200 && granted["role"] == "moderator")
            #expect(try await client.send(.put, "/v1/users/\(memberID)/roles/admin", token: admin["accessToken"]).status == 422)
            let refreshed = try await client.refresh(try #require(memberLogin["refreshToken"]))
            #expect(refreshed.json["user"].flatMap { ($0 as? [String: Any])?["role"] as? String } == "moderator")
            let revoked = try await client.send(.delete, "/v1/users/\(memberID)/roles/moderator", token: admin["accessToken"])
            #expect(revoked["role"] == "traveller")

            let suspended = try await client.send(.put, "/v1/users/\(memberID)/suspension", token: admin["accessToken"])
            #expect(suspended.status == 200 && suspended["status"] == "suspended")
            #expect(try await client.refresh(try #require(refreshed["refreshToken"])).status == 401, "sessions revoked")
            let blocked = try await client.login("member1@example.com")
            #expect(blocked.status == 403 && blocked["code"] == "account-suspended")
            #expect(try await client.send(.delete, "/v1/users/\(memberID)/suspension", token: admin["accessToken"])["status"] == "active")
            #expect(try await client.login("member1@example.com").status == 200)
            // create-admin on an existing account grants admin.
            let promoted = try await server.commands.createAdmin(username: "member1", email: "member1@example.com", password: "ignored1X")
            #expect(promoted.effectiveRole == .admin)
        }
    }
}
