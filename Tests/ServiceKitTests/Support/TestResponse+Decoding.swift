import Foundation
import HummingbirdTesting
import NIOCore
import ServiceKit

extension TestResponse {
    /// The body as text.
    var text: String { String(buffer: body) }

    /// The body decoded as JSON.
    func json<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(body.readableBytesView))
    }

    /// The body as an RFC 9457 problem document.
    func problem() throws -> ProblemDocument {
        try json(ProblemDocument.self)
    }
}

extension ByteBuffer {
    /// A buffer holding `text` as UTF-8.
    static func text(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }
}
