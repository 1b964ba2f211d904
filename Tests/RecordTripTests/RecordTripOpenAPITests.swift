import Foundation
import ServiceKit
import ServiceTesting
import Testing

@Suite("record-trip: the OpenAPI document")
struct RecordTripOpenAPITests {
    @Test("the file is OpenAPI 3.1 and documents exactly the routes the running service's router has, each once")
    func documentsEveryRoute() async throws {
        let yaml = try OpenAPIText.document("Services/RecordTrip/Sources/openapi.yaml")
        #expect(yaml.hasPrefix("openapi: 3.1."))
        let documented = OpenAPIText.routes(in: yaml)
        #expect(documented.count == Set(documented).count, "a route is documented twice")
        let table = RouteTable()
        try await TripApp.with { _, h in
            let app = try h.server.application(metrics: ServiceMetrics(), keySource: StaticKeySource(keys: [:]), logger: TripApp.quiet)
            table.set(app.routeTable.map { OpenAPIRoute($0.method, $0.path) })
        }
        let served = table.routes
        #expect(served.count > 12)
        let missing = Set(served).subtracting(documented).map(\.description).sorted()
        let extra = Set(documented).subtracting(served).map(\.description).sorted()
        #expect(missing.isEmpty, "routes the service has but openapi.yaml does not document: \(missing)")
        #expect(extra.isEmpty, "routes openapi.yaml documents but the service does not have: \(extra)")
    }

    @Test("every operation with a JSON body documents 400, 413, 415 and 422; every operation on a trip documents 404")
    func documentsEveryStatusOfItsKind() throws {
        let operations = OpenAPIText.operations(in: try OpenAPIText.document("Services/RecordTrip/Sources/openapi.yaml"))
        for (route, text) in operations {
            let statuses = OpenAPIText.statuses(in: text)
            let body = text.components(separatedBy: "responses:").first ?? ""
            if body.contains("requestBody:"), body.contains("application/json") {
                #expect(statuses.isSuperset(of: ["400", "413", "415", "422"]), "\(route) takes a JSON body: \(statuses.sorted())")
            }
            if route.path.contains("{") { #expect(statuses.contains("404"), "\(route) names a trip: \(statuses.sorted())") }
        }
    }
}

/// The route table read inside the harness, kept for the comparison after it closed.
final class RouteTable: @unchecked Sendable {
    // Written once inside the harness, read after it returned.
    private let lock = NSLock()
    private var stored: [OpenAPIRoute] = []
    func set(_ routes: [OpenAPIRoute]) { lock.withLock { stored = routes } }
    var routes: [OpenAPIRoute] { lock.withLock { stored } }
}
