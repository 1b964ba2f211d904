/// A request body with rules beyond its types, checked when it is decoded.
///
/// `request.decode(as:context:)` with a ``ServiceRequestContext`` calls ``validate(into:)`` and answers
/// 422 `invalid-field` listing every failure, so handlers receive only valid values.
public protocol ValidatableRequest {
    /// Records every rule this value breaks in `validator`.
    func validate(into validator: inout Validator)
}

extension ValidatableRequest {
    /// Runs ``validate(into:)`` and throws one 422 problem listing every failure, if any.
    public func validate() throws {
        var validator = Validator()
        validate(into: &validator)
        try validator.check()
    }
}
