import Hummingbird
import NIOCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A request type with a faster reader of its common form than `Codable` (large bodies: a trip's chunk of samples).
/// ``readFast(_:)`` must give exactly what `JSONDecoder` gives for every body it reads, and `nil` for every other body,
/// which is then decoded (and refused) by `JSONDecoder` as for any type. It must also answer `nil` for any body in which
/// an object repeats a member name: a body it reads skips the duplicate-name scan (which cost a 190 KB chunk three times
/// its reading); validation runs either way.
public protocol FastJSONReadable: Decodable {
    /// The value of `data`, or `nil` to leave it to `JSONDecoder` (always `nil` when an object repeats a member name).
    static func readFast(_ data: Data) -> Self?
}

/// The request decoder of ``ServiceRequestContext``: JSON in, problems out.
///
/// `request.decode(as:context:)` through this decoder collects at most `context.maxUploadSize` bytes
/// (413 beyond), refuses non-JSON content types (415), maps `DecodingError` to 400 `malformed-json` or
/// 422 `invalid-field`, refuses an object that repeats a member name (400 `malformed-json`, RFC 7493) and, for a ``ValidatableRequest``, runs its validation (422 listing every failure).
public struct ServiceRequestDecoder: RequestDecoder, Sendable {
    /// Creates the decoder.
    public init() {}

    /// Decodes and validates `type` from the request body.
    public func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
        try Self.checkContentType(of: request)
        let data = try await Self.collectBody(of: request, limit: context.maxUploadSize)
        let value: T
        if let readable = T.self as? any FastJSONReadable.Type, let read = readable.readFast(data) as? T {
            value = read  // no repeated member name: the reader refuses those
        } else {
            do {
                value = try ServiceJSON.makeDecoder().decode(T.self, from: data)
            } catch let error as DecodingError {
                throw Problem(decodingError: error, bodyIsWellFormed: Self.isWellFormedJSON(data))
            }
            try Self.rejectDuplicateNames(in: data)
        }
        if let validatable = value as? any ValidatableRequest {
            try validatable.validate()
        }
        return value
    }

    /// 400 `malformed-json` when an object of `data` repeats a member name (RFC 7493): parsers disagree on which
    /// value wins, so `{"role":"guide","role":"admin"}` is refused rather than read one way.
    public static func rejectDuplicateNames(in data: some Collection<UInt8>) throws {
        if let pointer = JSONDuplicateKeys.firstDuplicate(in: data) {
            throw Problem.malformedJSON("The request body repeats the member \(pointer) in one object; JSON objects must not repeat a member name (RFC 7493).")
        }
    }

    private static func collectBody(of request: Request, limit: Int) async throws -> Data {
        do {
            let buffer = try await request.body.collect(upTo: limit)
            return Data(buffer.readableBytesView)
        } catch is NIOTooManyBytesError {
            throw Problem.payloadTooLarge(limitBytes: limit)
        }
    }

    /// Accepts `application/json`, any `application/*+json`, and a missing `Content-Type`.
    static func checkContentType(of request: Request) throws {
        guard let contentType = request.headers[.contentType] else { return }
        // The usual value, `application/json` (with parameters or without), compared on its bytes: the general
        // parse below (Foundation's trimming, a split by characters, lower-casing) cost ~1.5 % of a position update.
        let json = "application/json".utf8
        if contentType.utf8.starts(with: json) {
            let rest = contentType.utf8.dropFirst(json.count)
            if rest.isEmpty || rest.first == UInt8(ascii: ";") { return }
        }
        let mediaType = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        guard mediaType == "application/json" || (mediaType.hasPrefix("application/") && mediaType.hasSuffix("+json")) else {
            throw Problem.unsupportedMediaType("Request bodies must be application/json, not \(mediaType).")
        }
    }

    /// Whether `data` parses as JSON at all, to tell a syntax error (400) from a bad root value (422).
    static func isWellFormedJSON(_ data: Data) -> Bool {
        (try? JSONDecoder().decode(AnyJSONValue.self, from: data)) != nil
    }
}

/// Decodes any JSON value and keeps nothing; used to probe well-formedness.
private struct AnyJSONValue: Decodable {
    init(from decoder: any Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            while !array.isAtEnd { _ = try array.decode(AnyJSONValue.self) }
        } else if let object = try? decoder.container(keyedBy: AnyKey.self) {
            for key in object.allKeys { _ = try object.decode(AnyJSONValue.self, forKey: key) }
        } else {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() { return }
            if (try? single.decode(Bool.self)) != nil { return }
            if (try? single.decode(Double.self)) != nil { return }
            _ = try single.decode(String.self)
        }
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
