/// One invalid field of a request body, listed in a 422 problem's `fieldErrors`.
public struct FieldError: Codable, Sendable, Hashable {
    /// Path of the field in the JSON body, e.g. `stops[2].title`; `body` for the body as a whole.
    public var field: String
    /// Stable machine code of the failure, e.g. `required`, `too-long`, `type-mismatch`.
    public var code: String
    /// Human-readable explanation, e.g. `must be at most 120 characters`.
    public var message: String

    /// Creates a field error.
    public init(field: String, code: String, message: String) {
        self.field = field
        self.code = code
        self.message = message
    }
}
