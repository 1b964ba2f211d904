/// The RFC 9457 `application/problem+json` body as it travels on the wire.
///
/// Servers write it through ``Problem``; clients (the gateway, tests, other services) decode it.
public struct ProblemDocument: Codable, Sendable, Equatable {
    /// URI naming the problem type: `urn:waypoint:problem:<code>`.
    public var type: String
    /// Short summary that is the same for every occurrence of the type.
    public var title: String
    /// HTTP status code.
    public var status: Int
    /// Explanation of this occurrence, safe to show to a client.
    public var detail: String
    /// Path of the request that failed.
    public var instance: String?
    /// Stable machine code, e.g. `invalid-field`.
    public var code: String
    /// The `X-Request-Id` of the failed request, to quote when reporting it.
    public var requestId: String?
    /// The invalid fields, for `422 invalid-field`; absent otherwise.
    public var fieldErrors: [FieldError]?

    /// Creates a problem document.
    public init(
        type: String,
        title: String,
        status: Int,
        detail: String,
        instance: String?,
        code: String,
        requestId: String?,
        fieldErrors: [FieldError]?
    ) {
        self.type = type
        self.title = title
        self.status = status
        self.detail = detail
        self.instance = instance
        self.code = code
        self.requestId = requestId
        self.fieldErrors = fieldErrors
    }
}
