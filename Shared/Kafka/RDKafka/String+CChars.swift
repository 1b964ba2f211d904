extension String {
    /// Decodes a NUL-terminated C string held in a buffer, such as librdkafka's `errstr`.
    init(cChars: [CChar]) {
        self = String(decoding: cChars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
