import ServiceKit

/// A request body with rules, as a service would declare it.
struct CreateTourRequest: Codable, Sendable, ValidatableRequest {
    struct Stop: Codable, Sendable {
        var name: String
        var radiusMetres: Int
    }

    var title: String
    var priceMinor: Int
    var currency: String
    var contactEmail: String
    var stops: [Stop]

    func validate(into validator: inout Validator) {
        validator.length(title, field: "title", min: 3, max: 120)
        validator.range(priceMinor, field: "priceMinor", 0...100_000)
        validator.oneOf(currency, field: "currency", allowed: ["EUR", "USD"])
        validator.email(contactEmail, field: "contactEmail")
        validator.count(stops, field: "stops", min: 1, max: 50)
        validator.each(stops, field: "stops") { validator, stop in
            validator.notBlank(stop.name, field: "name")
            validator.range(stop.radiusMetres, field: "radiusMetres", 5...500)
        }
    }
}

/// What the `/v1/trace` test route answers.
struct TraceEcho: Codable, Sendable {
    var requestId: String
    var traceparent: String
    var parentSpanId: String?
}

/// What the authenticated test routes answer.
struct IdentityEcho: Codable, Sendable {
    var subject: String
    var role: Role
}

/// An error whose text must never reach a client.
struct DatabaseExploded: Error, CustomStringConvertible {
    var description: String { "SELECT secret FROM users -- connection reset" }
}
