import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ServiceKit
import ServiceTesting
import Testing

/// A domain error as services write them: one case per refusal, each with its problem.
enum SampleTourError: Error, Sendable, ProblemConvertible {
    case locked(retryAfterSeconds: Int64)
    case incomplete

    var problem: Problem {
        switch self {
        case .locked(let seconds):
            var problem = Problem.tooManyRequests(retryAfter: .seconds(seconds), detail: "The tour is locked.")
            problem.code = "tour-locked"
            return problem
        case .incomplete:
            return Problem.unprocessable(fieldErrors: [FieldError(field: "stops", code: "too-few", message: "needs at least two stops")])
        }
    }
}

/// Named handlers of a controller, as services write them, using ServiceKit's request helpers.
struct SampleController: Sendable {
    func addRoutes(to routes: ServiceRoutes) {
        let tours = routes.group("/v1/tours")
        tours.get(":id", use: show)
        tours.get("by-number/:number", use: showNumbered)
        tours.post(":id/publish", use: publish)
        routes.authenticated("/v1/me").get("id", use: callerID)
    }

    @Sendable func show(_ request: Request, context: ServiceRequestContext) async throws -> String {
        try context.parameters.require("id", as: UUID.self, ifInvalid: .notFound("no such tour", code: "unknown-tour")).uuidString
    }

    @Sendable func showNumbered(_ request: Request, context: ServiceRequestContext) async throws -> String {
        String(try context.parameters.require("number", as: Int.self, ifInvalid: .badRequest("not a number", code: "bad-number")))
    }

    @Sendable func publish(_ request: Request, context: ServiceRequestContext) async throws -> String {
        throw request.uri.queryParameters["locked"] == nil ? SampleTourError.incomplete : SampleTourError.locked(retryAfterSeconds: 30)
    }

    @Sendable func callerID(_ request: Request, context: ServiceRequestContext) async throws -> String {
        try context.requireCallerID().uuidString.lowercased()
    }
}

@Suite("Request helpers: self-rendering domain errors, typed path parameters, the caller's id")
struct RequestHelpersTests {
    static func application() throws -> ServiceApplication {
        try ServiceApplication(
            configuration: .test(),
            metrics: ServiceMetrics(),
            keySource: StaticKeySource(keys: [TestSigningKey.primary.kid: TestSigningKey.primary.publicKey]),
            logger: TestApplication.quietLogger
        ) { routes in SampleController().addRoutes(to: routes) }
    }

    @Test("a ProblemConvertible error thrown by a handler is answered as its problem, headers included")
    func domainErrorRendersItself() async throws {
        try await Self.application().test(.router) { client in
            let locked = try await client.execute(uri: "/v1/tours/\(UUID())/publish?locked=1", method: .post)
            #expect(locked.status == .tooManyRequests)
            #expect(locked.headers[.contentType] == Problem.mediaType)
            #expect(locked.headers[.retryAfter] == "30")
            let problem = try locked.problem()
            #expect(problem.code == "tour-locked" && problem.detail == "The tour is locked." && problem.title == "Too many requests")
            #expect(problem.requestId == locked.headers[ServiceHeaders.requestID])

            let incomplete = try await client.execute(uri: "/v1/tours/\(UUID())/publish", method: .post)
            #expect(incomplete.status == .unprocessableContent)
            #expect(try incomplete.problem().fieldErrors == [FieldError(field: "stops", code: "too-few", message: "needs at least two stops")])
        }
    }

    @Test("a ProblemConvertible error is an HTTPResponseError with its problem's status, and maps to its problem")
    func conformanceMapsToProblem() {
        let error: any Error = SampleTourError.incomplete
        #expect((error as? any HTTPResponseError)?.status == .unprocessableContent)
        #expect(Problem.mapping(error, bodyLimit: 1) == SampleTourError.incomplete.problem)
        #expect(Problem.notFound("x").problem == Problem.notFound("x"))
    }

    @Test("a typed UUID path parameter parses, and a malformed one is the route's problem")
    func uuidParameter() async throws {
        let id = UUID()
        try await Self.application().test(.router) { client in
            let found = try await client.execute(uri: "/v1/tours/\(id.uuidString.lowercased())", method: .get)
            #expect(found.status == .ok && found.text == id.uuidString)
            let malformed = try await client.execute(uri: "/v1/tours/not-a-uuid", method: .get)
            #expect(malformed.status == .notFound)
            let problem = try malformed.problem()
            #expect(problem.code == "unknown-tour" && problem.detail == "no such tour" && problem.instance == "/v1/tours/not-a-uuid")
        }
    }

    @Test("a typed Int path parameter parses, and a malformed one is the route's 400")
    func intParameter() async throws {
        try await Self.application().test(.router) { client in
            let found = try await client.execute(uri: "/v1/tours/by-number/42", method: .get)
            #expect(found.status == .ok && found.text == "42")
            let malformed = try await client.execute(uri: "/v1/tours/by-number/4x2", method: .get)
            #expect(malformed.status == .badRequest)
            #expect(try malformed.problem().code == "bad-number")
        }
    }

    @Test("the caller's id: 401 without a token, 403 for a subject that is not a user id, the id otherwise")
    func callerID() async throws {
        let user = UUID()
        let userToken = try await TestSigningKey.primary.sign(TokenForge.claims(subject: user.uuidString.lowercased()))
        let serviceToken = try await TokenForge.valid()
        try await Self.application().test(.router) { client in
            let anonymous = try await client.execute(uri: "/v1/me/id", method: .get)
            #expect(anonymous.status == .unauthorized)
            #expect(try anonymous.problem().code == "unauthenticated")
            let unknown = try await client.execute(uri: "/v1/me/id", method: .get, headers: [.authorization: "Bearer \(serviceToken)"])
            #expect(unknown.status == .forbidden)
            #expect(try unknown.problem().detail == "unknown caller")
            let known = try await client.execute(uri: "/v1/me/id", method: .get, headers: [.authorization: "Bearer \(userToken)"])
            #expect(known.status == .ok && known.text == user.uuidString.lowercased())
        }
    }

    @Test("requireCallerID without any identity is 401 unauthenticated")
    func callerIDWithoutIdentity() async throws {
        // The authenticated group answers 401 before the handler; the helper itself also refuses a missing caller.
        try await ServiceApplication(configuration: .test(), metrics: ServiceMetrics(), keySource: StaticKeySource(keys: [:]),
                                     logger: TestApplication.quietLogger) { routes in
            routes.group("/open").get { _, context in try context.requireCallerID().uuidString }
        }.test(.router) { client in
            let response = try await client.execute(uri: "/open", method: .get)
            #expect(response.status == .unauthorized)
            #expect(try response.problem().code == "unauthenticated")
            #expect(response.headers[.wwwAuthenticate] == #"Bearer realm="waypoint""#)
        }
    }
}
