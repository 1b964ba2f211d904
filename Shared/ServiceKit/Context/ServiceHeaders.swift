import HTTPTypes

/// Header names ServiceKit reads and writes.
public enum ServiceHeaders {
    /// `X-Request-Id`: taken from the request when well-formed, generated otherwise, echoed in the response.
    public static let requestID = HTTPField.Name("X-Request-Id")!
    /// `traceparent` (W3C Trace Context): continued or started per request, echoed in the response.
    public static let traceparent = HTTPField.Name("traceparent")!
    /// `X-Content-Type-Options: nosniff` on every answer: a browser renders a body only as its declared type, never
    /// as what it guesses from the bytes (a PNG that is also HTML stays an image).
    public static let contentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
}
