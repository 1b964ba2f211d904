import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ServiceKit
import Testing

@Suite("Request hardening: duplicate JSON member names refused (RFC 7493), nosniff on every answer")
struct RequestHardeningTests {
    @Test("a body that repeats a member name is 400 malformed-json naming it, wherever the object is",
          arguments: [
              (#"{"title":"Old Town","title":"New Town","priceMinor":900,"currency":"EUR","contactEmail":"g@example.org","stops":[{"name":"A","radiusMetres":30}]}"#, "/title"),
              (#"{"title":"Old Town","priceMinor":900,"currency":"EUR","contactEmail":"g@example.org","stops":[{"name":"A","name":"B","radiusMetres":30}]}"#, "/stops/0/name"),
              (#"{"title":"Old Town","\u0074itle":"Other","priceMinor":900,"currency":"EUR","contactEmail":"g@example.org","stops":[{"name":"A","radiusMetres":30}]}"#, "/title"),
          ])
    func duplicateNamesAreRefused(body: String, pointer: String) async throws {
        try await TestApplication.make().test(.router) { client in
            let response = try await client.execute(uri: "/v1/tours", method: .post, headers: [.contentType: "application/json"], body: .text(body))
            #expect(response.status == .badRequest)
            let problem = try response.problem()
            #expect(problem.code == "malformed-json")
            #expect(problem.detail.contains(pointer), "\(problem.detail)")
        }
    }

    @Test("the scanner: unique names pass, escapes are resolved, strings that look like keys are values, pointers escape ~ and /")
    func scanner() {
        #expect(JSONDuplicateKeys.firstDuplicate(in: Array(#"{"a":1,"b":{"a":2},"c":[{"a":1},{"a":2}]}"#.utf8)) == nil)
        #expect(JSONDuplicateKeys.firstDuplicate(in: Array(#"{"a":"b","b":"a"}"#.utf8)) == nil)
        #expect(JSONDuplicateKeys.firstDuplicate(in: Array(#"{"k":"x\"y","x\"y":1}"#.utf8)) == nil)
        #expect(JSONDuplicateKeys.firstDuplicate(in: Array(#"{"role":"guide","role":"admin"}"#.utf8)) == "/role")
        #expect(JSONDuplicateKeys.firstDuplicate(in: Array(#"[{"x":[1,{"a/b~":1,"a\/b~":2}]}]"#.utf8)) == "/0/x/1/a~1b~0")
        #expect(JSONDuplicateKeys.firstDuplicate(in: Array(#"{"\ud83d\ude00":1,"😀":2}"#.utf8)) == "/😀")
        // Canonically equivalent but different code points are different names (RFC 8259 compares code points).
        #expect(JSONDuplicateKeys.firstDuplicate(in: Array("{\"\u{E9}\":1,\"e\u{301}\":2}".utf8)) == nil)
        #expect(JSONDuplicateKeys.firstDuplicate(in: Array(#"{"a":{"b":1},"a":{"b":1}}"#.utf8)) == "/a")
    }

    @Test("every answer says X-Content-Type-Options: nosniff, problems included")
    func nosniffEverywhere() async throws {
        try await TestApplication.make().test(.router) { client in
            let created = try await client.execute(uri: "/v1/tours", method: .post, headers: [.contentType: "application/json"],
                                                   body: .text(#"{"title":"Old Town","priceMinor":900,"currency":"EUR","contactEmail":"g@example.org","stops":[{"name":"A","radiusMetres":30}]}"#))
            #expect(created.status == .created)
            #expect(created.headers[ServiceHeaders.contentTypeOptions] == "nosniff")
            let missing = try await client.execute(uri: "/nowhere", method: .get)
            #expect(missing.status == .notFound)
            #expect(missing.headers[ServiceHeaders.contentTypeOptions] == "nosniff")
        }
    }
}
