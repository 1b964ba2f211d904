import Hummingbird

/// Typed path parameters whose bad spelling is the route's own problem, as Hummingbird's `Parameters+UUID` but
/// answering with a problem chosen by the route (usually the 404 of the resource) instead of a bare 400.
///
/// ```swift
/// let tourId = try context.parameters.require("id", as: UUID.self, ifInvalid: .notFound("no such tour", code: "unknown-tour"))
/// ```
extension Parameters {
    /// The parameter `name` as a `Parsed`; throws `invalid` when it does not spell one.
    ///
    /// A route without the parameter at all is a programming error and throws Hummingbird's 400, as `require(_:)` does.
    public func require<Parsed: PathParameterValue>(
        _ name: String,
        as type: Parsed.Type,
        ifInvalid invalid: @autoclosure () -> Problem
    ) throws -> Parsed {
        guard let value = Parsed(pathParameter: try require(name)) else { throw invalid() }
        return value
    }
}
