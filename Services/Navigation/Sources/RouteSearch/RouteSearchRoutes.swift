import Foundation
import Hummingbird
import RoadNetwork
import ServiceKit

/// `GET /v1/routes` (public): ranked bike routes between points, OSRM's response shape (``RouteSearchResponse``).
public struct RouteSearchRoutes: Sendable {
    let planner: RoutePlanner

    public init(planner: RoutePlanner) {
        self.planner = planner
    }

    public func addRoutes(to routes: ServiceRoutes) {
        routes.group("/v1/routes").get(use: search)
    }

    /// `GET /v1/routes?from=lat,lng&to=lat,lng[&via=lat,lng…][&alternatives=0..2][&geometries=polyline6|geojson][&steps=true][&lang=en|de]`.
    @Sendable func search(_ request: Request, context: ServiceRequestContext) async throws -> RouteSearchResponse {
        let query = try Self.query(request.uri.queryParameters)
        return RouteSearchResponse(try planner.plan(query), query: query)
    }

    /// The query string as a ``RouteQuery``; 422 `invalid-field` listing every bad parameter.
    static func query(_ parameters: Parameters) throws -> RouteQuery {
        var validator = Validator()
        let from = point(parameters.get("from"), field: "from", required: true, &validator)
        let to = point(parameters.get("to"), field: "to", required: true, &validator)
        let viaTexts = parameters.getAll("via").flatMap { $0.split(separator: ";").map(String.init) }
        validator.require(viaTexts.count <= RoadRouter.maximumViaPoints, field: "via", code: "too-many",
                          message: "at most \(RoadRouter.maximumViaPoints) via points")
        let via = viaTexts.prefix(RoadRouter.maximumViaPoints).compactMap { point($0, field: "via", required: true, &validator) }
        let alternatives = alternatives(parameters.get("alternatives"), &validator)
        validator.require(alternatives == 0 || viaTexts.isEmpty, field: "alternatives", code: "conflict",
                          message: "alternatives are searched only between two points (no via)")
        let geometries = choice(parameters.get("geometries"), field: "geometries", default: RouteQuery.GeometryFormat.polyline6, &validator)
        let language = choice(parameters.get("lang"), field: "lang", default: InstructionLanguage.en, &validator)
        let steps = flag(parameters.get("steps"), field: "steps", &validator)
        try validator.check()
        return RouteQuery(points: [from!] + via + [to!], alternatives: alternatives, geometries: geometries, steps: steps, language: language)
    }

    static func point(_ text: String?, field: String, required: Bool, _ validator: inout Validator) -> RoadPoint? {
        guard let text else {
            validator.require(!required, field: field, code: "required", message: "is required (lat,lng)")
            return nil
        }
        let point = RouteQuery.point(text)
        validator.require(point != nil, field: field, code: "out-of-range",
                          message: "must be lat,lng with a latitude in -90…90 and a longitude in -180…180")
        return point
    }

    static func alternatives(_ text: String?, _ validator: inout Validator) -> Int {
        switch text {
        case nil, "false": return 0
        case "true": return RouteQuery.maximumAlternatives
        case let text?:
            let count = Int(text)
            let valid = count.map { (0...RouteQuery.maximumAlternatives).contains($0) } ?? false
            validator.require(valid, field: "alternatives", code: "out-of-range",
                              message: "must be a whole number from 0 to \(RouteQuery.maximumAlternatives), true or false")
            return valid ? count! : 0
        }
    }

    static func choice<Value: RawRepresentable & CaseIterable>(_ text: String?, field: String, default fallback: Value,
                                                                _ validator: inout Validator) -> Value where Value.RawValue == String {
        guard let text else { return fallback }
        let value = Value(rawValue: text)
        validator.require(value != nil, field: field, code: "unsupported",
                          message: "must be one of \(Value.allCases.map(\.rawValue).joined(separator: ", "))")
        return value ?? fallback
    }

    static func flag(_ text: String?, field: String, _ validator: inout Validator) -> Bool {
        guard let text else { return false }
        validator.require(text == "true" || text == "false", field: field, code: "invalid", message: "must be true or false")
        return text == "true"
    }
}
