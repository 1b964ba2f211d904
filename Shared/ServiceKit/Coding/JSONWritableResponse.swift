import Contracts
import Hummingbird
import NIOCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A 200 JSON answer that writes its own bytes (``JSONWritable`` in the ``JSONOutput/Style/service`` style) instead of
/// going through `JSONEncoder` — for answers on a hot path (a navigation position update). The bytes and headers are
/// those `ServiceJSON`'s encoder gives (`Content-Type: application/json; charset=utf-8`, `Content-Length`); when the
/// writer gives up (``JSONOutput/fail()``), the answer is encoded by that encoder as for any `ResponseEncodable`.
/// Debug builds encode every answer both ways and stop when they do not say the same (``JSONOutput/equivalent(_:_:)``:
/// `JSONEncoder` fixes no member order here), so every test that sees one checks it.
public protocol JSONWritableResponse: ResponseGenerator, JSONWritable {}

extension JSONWritableResponse {
    public static var jsonStyle: JSONOutput.Style { .service }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        guard let bytes = jsonBytes(style: .service) else {
            return try ServiceJSON.makeEncoder().encode(self, from: request, context: context)
        }
        #if DEBUG
        let expected = try ServiceJSON.makeEncoder().encode(self)
        precondition(JSONOutput.equivalent(Data(bytes), expected), """
            \(type(of: self))'s JSONWritable output differs from JSONEncoder's:
            \(String(decoding: bytes, as: UTF8.self))
            \(String(decoding: expected, as: UTF8.self))
            """)
        #endif
        var headers = HTTPFields()
        headers.reserveCapacity(4)
        headers.append(.init(name: .contentType, value: "application/json; charset=utf-8"))
        headers.append(.init(name: .contentLength, value: String(bytes.count)))
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
