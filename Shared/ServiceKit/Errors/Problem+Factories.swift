import HTTPTypes

/// The problems every service raises, one factory per status of `DESIGN.md`'s HTTP conventions.
extension Problem {
    /// 400: the request cannot be understood (bad query parameter, bad header).
    public static func badRequest(_ detail: String, code: String = "bad-request") -> Problem {
        Problem(status: .badRequest, code: code, title: "Bad request", detail: detail)
    }

    /// 400 `malformed-json`: the body is not JSON at all.
    public static func malformedJSON(_ detail: String = "The request body is not well-formed JSON.") -> Problem {
        Problem(status: .badRequest, code: "malformed-json", title: "Malformed JSON", detail: detail)
    }

    /// 401 `unauthenticated`: no credentials were presented.
    ///
    /// Per RFC 6750 §3.1 the challenge carries no error code when the request had no token at all.
    public static func unauthenticated(_ detail: String = "This endpoint requires a bearer access token.") -> Problem {
        var headers = HTTPFields()
        headers[.wwwAuthenticate] = #"Bearer realm="waypoint""#
        return Problem(status: .unauthorized, code: "unauthenticated", title: "Unauthenticated", detail: detail, headers: headers)
    }

    /// 401 `invalid-token`: the presented credentials are invalid, expired or not for us.
    public static func unauthorized(_ detail: String = "The access token is invalid or has expired.") -> Problem {
        var headers = HTTPFields()
        headers[.wwwAuthenticate] = #"Bearer realm="waypoint", error="invalid_token""#
        return Problem(status: .unauthorized, code: "invalid-token", title: "Invalid access token", detail: detail, headers: headers)
    }

    /// 403: authenticated, but not allowed to do this.
    public static func forbidden(_ detail: String, code: String = "forbidden") -> Problem {
        Problem(status: .forbidden, code: code, title: "Forbidden", detail: detail)
    }

    /// 404: the resource (or route) does not exist.
    public static func notFound(_ detail: String, code: String = "not-found") -> Problem {
        Problem(status: .notFound, code: code, title: "Not found", detail: detail)
    }

    /// 409: a version conflict or a duplicate.
    public static func conflict(_ detail: String, code: String = "conflict") -> Problem {
        Problem(status: .conflict, code: code, title: "Conflict", detail: detail)
    }

    /// 413 `payload-too-large`: the body exceeds `limitBytes`.
    public static func payloadTooLarge(limitBytes: Int) -> Problem {
        Problem(
            status: .contentTooLarge,
            code: "payload-too-large",
            title: "Payload too large",
            detail: "The request body exceeds the limit of \(limitBytes) bytes."
        )
    }

    /// 415: the body is not `application/json`.
    public static func unsupportedMediaType(_ detail: String) -> Problem {
        Problem(status: .unsupportedMediaType, code: "unsupported-media-type", title: "Unsupported media type", detail: detail)
    }

    /// 422 `invalid-field`: well-formed JSON whose fields break the rules; lists every failure.
    public static func unprocessable(
        fieldErrors: [FieldError],
        detail: String = "One or more fields are invalid."
    ) -> Problem {
        Problem(status: .unprocessableContent, code: "invalid-field", title: "Invalid fields", detail: detail, fieldErrors: fieldErrors)
    }

    /// 429 `rate-limited` with a `Retry-After` header, rounded up to whole seconds.
    public static func tooManyRequests(retryAfter: Duration, detail: String = "Too many requests.") -> Problem {
        var headers = HTTPFields()
        headers[.retryAfter] = String(wholeSecondsRoundedUp(retryAfter))
        return Problem(status: .tooManyRequests, code: "rate-limited", title: "Too many requests", detail: detail, headers: headers)
    }

    /// 503 `service-unavailable`: not ready, draining, or a dependency is down.
    public static func serviceUnavailable(
        _ detail: String = "The service is temporarily unavailable.",
        code: String = "service-unavailable",
        retryAfter: Duration? = nil
    ) -> Problem {
        var headers = HTTPFields()
        if let retryAfter {
            headers[.retryAfter] = String(wholeSecondsRoundedUp(retryAfter))
        }
        return Problem(status: .serviceUnavailable, code: code, title: "Service unavailable", detail: detail, headers: headers)
    }

    /// 500 `internal`: an unexpected failure; the detail never says more than this.
    public static func internalError() -> Problem {
        Problem(
            status: .internalServerError,
            code: "internal",
            title: "Internal error",
            detail: "An unexpected error occurred. Quote the request id when reporting it."
        )
    }

    private static func wholeSecondsRoundedUp(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return max(0, seconds + (attoseconds > 0 ? 1 : 0))
    }
}
