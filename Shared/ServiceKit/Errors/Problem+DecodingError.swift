#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How a failed `Decodable` decode of a request body becomes a 400 or a 422.
extension Problem {
    /// The problem for `decodingError`.
    ///
    /// A failure at the root with no coding path is `400 malformed-json` unless the body is known to be
    /// well-formed JSON (`bodyIsWellFormed == true`); everything else names the offending field in a
    /// `422 invalid-field`: `required` (missing or null), `type-mismatch` or `invalid-value`.
    public init(decodingError: DecodingError, bodyIsWellFormed: Bool?) {
        switch decodingError {
        case .dataCorrupted(let context) where context.codingPath.isEmpty && bodyIsWellFormed != true:
            self = .malformedJSON()
        case .dataCorrupted(let context):
            self = Self.field(context.codingPath, code: "invalid-value", message: "has an invalid value")
        case .keyNotFound(let key, let context):
            self = Self.field(context.codingPath + [key], code: "required", message: "is required")
        case .valueNotFound(_, let context):
            self = Self.field(context.codingPath, code: "required", message: "must not be null")
        case .typeMismatch(let type, let context):
            self = Self.field(context.codingPath, code: "type-mismatch", message: "must be \(Self.jsonKind(of: type))")
        @unknown default:
            self = .malformedJSON()
        }
    }

    /// Formats a coding path the way clients write it: `stops[2].title`; `body` for the root.
    public static func fieldPath(_ codingPath: [any CodingKey]) -> String {
        var path = ""
        for key in codingPath {
            if let index = key.intValue, key.stringValue.hasPrefix("Index ") || key.stringValue == String(index) {
                path += "[\(index)]"
            } else {
                path += path.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return path.isEmpty ? "body" : path
    }

    private static func field(_ codingPath: [any CodingKey], code: String, message: String) -> Problem {
        .unprocessable(fieldErrors: [FieldError(field: fieldPath(codingPath), code: code, message: message)])
    }

    /// The JSON kind a Swift type decodes from, for messages such as `must be a string`.
    static func jsonKind(of type: Any.Type) -> String {
        switch type {
        case is String.Type, is Substring.Type, is Character.Type, is UUID.Type, is URL.Type: "a string"
        case is Bool.Type: "a boolean"
        case is any BinaryInteger.Type: "an integer"
        case is any BinaryFloatingPoint.Type, is Decimal.Type: "a number"
        case is [Any].Type: "an array"
        case is [String: Any].Type: "an object"
        default: "a valid value"
        }
    }
}
