import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ServiceKit
import Testing

@Suite("Errors are RFC 9457 problems")
struct ProblemResponseTests {
    let validTour = #"{"title":"Old Town","priceMinor":900,"currency":"EUR","contactEmail":"guide@example.org","stops":[{"name":"Cathedral","radiusMetres":30}]}"#

    @Test("a well-formed, valid body reaches the handler")
    func validBody() async throws {
        try await TestApplication.make().test(.router) { client in
            let response = try await client.execute(uri: "/v1/tours", method: .post, headers: [.contentType: "application/json"], body: .text(validTour))
            #expect(response.status == .created)
            #expect(try response.json(CreateTourRequest.self).title == "Old Town")
        }
    }

    @Test("malformed JSON is 400 malformed-json as application/problem+json")
    func malformedJSON() async throws {
        try await TestApplication.make().test(.router) { client in
            let response = try await client.execute(uri: "/v1/tours", method: .post, body: .text(#"{"title": "Old Town",,"#))
            #expect(response.status == .badRequest)
            #expect(response.headers[.contentType] == "application/problem+json")
            let problem = try response.problem()
            #expect(problem.code == "malformed-json")
            #expect(problem.type == "urn:waypoint:problem:malformed-json")
            #expect(problem.status == 400)
            #expect(problem.instance == "/v1/tours")
            #expect(problem.requestId == response.headers[ServiceHeaders.requestID])
        }
    }

    @Test("an empty body is 400 malformed-json")
    func emptyBody() async throws {
        try await TestApplication.make().test(.router) { client in
            let response = try await client.execute(uri: "/v1/tours", method: .post)
            #expect(response.status == .badRequest)
            #expect(try response.problem().code == "malformed-json")
        }
    }

    @Test("a field of the wrong type is 422 invalid-field naming the coding path")
    func typeMismatch() async throws {
        let body = validTour.replacingOccurrences(of: #""radiusMetres":30"#, with: #""radiusMetres":"thirty""#)
        try await TestApplication.make().test(.router) { client in
            let response = try await client.execute(uri: "/v1/tours", method: .post, body: .text(body))
            #expect(response.status == .unprocessableContent)
            let problem = try response.problem()
            #expect(problem.code == "invalid-field")
            #expect(problem.fieldErrors == [FieldError(field: "stops[0].radiusMetres", code: "type-mismatch", message: "must be an integer")])
        }
    }

    @Test("a missing field is 422 invalid-field with code required")
    func missingField() async throws {
        try await TestApplication.make().test(.router) { client in
            let response = try await client.execute(uri: "/v1/tours", method: .post, body: .text(#"{"title":"Old Town"}"#))
            #expect(response.status == .unprocessableContent)
            #expect(try response.problem().fieldErrors?.first?.field == "priceMinor")
            #expect(try response.problem().fieldErrors?.first?.code == "required")
        }
    }

    @Test("a JSON array where an object is expected is 422, not 400")
    func wrongRootType() async throws {
        try await TestApplication.make().test(.router) { client in
            let response = try await client.execute(uri: "/v1/tours", method: .post, body: .text("[1, 2]"))
            #expect(response.status == .unprocessableContent)
            #expect(try response.problem().fieldErrors?.first?.field == "body")
        }
    }

    @Test("well-formed JSON failing validation is 422 listing every failure")
    func validationListsEveryFailure() async throws {
        let body = #"{"title":"Ab","priceMinor":-1,"currency":"GBP","contactEmail":"not-an-address","stops":[{"name":" ","radiusMetres":2}]}"#
        try await TestApplication.make().test(.router) { client in
            let response = try await client.execute(uri: "/v1/tours", method: .post, body: .text(body))
            #expect(response.status == .unprocessableContent)
            let problem = try response.problem()
            #expect(problem.code == "invalid-field")
            let failures = Set((problem.fieldErrors ?? []).map { "\($0.field):\($0.code)" })
            #expect(failures == [
                "title:too-short", "priceMinor:out-of-range", "currency:not-allowed", "contactEmail:invalid-email",
                "stops[0].name:blank", "stops[0].radiusMetres:out-of-range",
            ])
        }
    }

    @Test("a non-JSON content type is 415")
    func unsupportedMediaType() async throws {
        try await TestApplication.make().test(.router) { client in
            let response = try await client.execute(uri: "/v1/tours", method: .post, headers: [.contentType: "text/plain"], body: .text(validTour))
            #expect(response.status == .unsupportedMediaType)
            #expect(try response.problem().code == "unsupported-media-type")
            // The usual values are compared on their bytes, the rest parsed: both must draw the same line.
            let accepted = ["application/json", "application/json; charset=utf-8", "application/json;charset=UTF-8", "Application/JSON",
                            " application/json ; q=1", "application/problem+json", "application/vnd.waypoint+json"]
            let refused = ["application/jsonx", "application/json x", "application/json5", "text/json", "application/", "", "application/xml;json"]
            for value in accepted {
                let answer = try await client.execute(uri: "/v1/tours", method: .post, headers: [.contentType: value], body: .text(validTour))
                #expect(answer.status != .unsupportedMediaType, "\(value)")
            }
            for value in refused {
                let answer = try await client.execute(uri: "/v1/tours", method: .post, headers: [.contentType: value], body: .text(validTour))
                #expect(answer.status == .unsupportedMediaType, "\(value)")
            }
        }
    }

    @Test("an unknown route is 404 not-found as a problem")
    func unknownRoute() async throws {
        try await TestApplication.make().test(.router) { client in
            let response = try await client.execute(uri: "/v1/nowhere", method: .get)
            #expect(response.status == .notFound)
            #expect(response.headers[.contentType] == "application/problem+json")
            #expect(try response.problem().code == "not-found")
            #expect(try response.problem().instance == "/v1/nowhere")
        }
    }

    @Test("Hummingbird's HTTPError keeps its status and message")
    func httpErrorMapping() async throws {
        try await TestApplication.make().test(.router) { client in
            let response = try await client.execute(uri: "/v1/http-error", method: .get)
            #expect(response.status == .conflict)
            #expect(try response.problem().code == "conflict")
            #expect(try response.problem().detail == "Tour version 3 is stale.")
        }
    }

    @Test("an unexpected error is 500 internal with no internal details")
    func internalErrorHidesDetails() async throws {
        try await TestApplication.make().test(.router) { client in
            let response = try await client.execute(uri: "/v1/failure", method: .get)
            #expect(response.status == .internalServerError)
            let problem = try response.problem()
            #expect(problem.code == "internal")
            #expect(problem.requestId != nil)
            #expect(!response.text.contains("SELECT"))
            #expect(!response.text.contains("DatabaseExploded"))
        }
    }
}
