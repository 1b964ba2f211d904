import HTTPTypes

/// Header names ServiceKit reads and writes.
public enum ServiceHeaders {
    /// `X-Request-Id`: taken from the request when well-formed, generated otherwise, echoed in the response.
    public static let requestID = HTTPField.Name("X-Request-Id")!
    /// `traceparent` (W3C Trace Context): continued or started per request, echoed in the response.
    public static let traceparent = HTTPField.Name("traceparent")!
}
