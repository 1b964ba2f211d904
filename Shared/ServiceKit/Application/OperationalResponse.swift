import Hummingbird
import NIOCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The answers of operational routes (`/health/*`, `/metrics`, `/openapi.yaml`), in services and in the gateway: never
/// cached, JSON with sorted keys.
public enum OperationalResponse {
    /// `text` as the body, with `Cache-Control: no-store`.
    public static func text(_ text: String, contentType: String, status: HTTPResponse.Status) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// `value` as JSON with sorted keys.
    public static func json(_ value: some Encodable, status: HTTPResponse.Status) throws -> Response {
        text(String(decoding: try encoder.encode(value), as: UTF8.self), contentType: "application/json", status: status)
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()
}
