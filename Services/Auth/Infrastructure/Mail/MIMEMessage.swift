import Foundation

/// An ``EmailMessage`` checked for header injection and rendered as an RFC 5322 / MIME text message:
/// CRLF line endings, no line over 998 octets, a UTF-8 `text/plain` body.
struct MIMEMessage {
    /// The `Content-Transfer-Encoding` of the body.
    enum TransferEncoding: String {
        /// ASCII lines of at most 998 octets.
        case sevenBit = "7bit"
        /// UTF-8 lines of at most 998 octets (needs `8BITMIME` over SMTP).
        case eightBit = "8bit"
        /// Everything else, or 8-bit text for a transport without `8BITMIME`.
        case quotedPrintable = "quoted-printable"
    }

    /// Envelope sender (`MAIL FROM`): the address inside `from`.
    let envelopeFrom: String
    /// Envelope recipient (`RCPT TO`).
    let envelopeTo: String
    /// Whether an address has non-ASCII characters (needs `SMTPUTF8` over SMTP).
    let hasInternationalAddress: Bool

    private let fromHeader: String
    private let subjectHeader: String
    private let bodyLines: [[UInt8]]

    /// Validates `message` and the sender `from` (`addr@domain` or `Display Name <addr@domain>`).
    ///
    /// - Throws: ``EmailError/invalidHeader(field:)`` on control characters (CR, LF, …) in any header
    ///   value, or on a recipient or sender that is not a single plain address.
    init(_ message: EmailMessage, from: String) throws(EmailError) {
        guard Self.isAddress(message.to) else { throw .invalidHeader(field: "To") }
        guard !message.subject.unicodeScalars.contains(where: Self.isForbiddenInHeader) else {
            throw .invalidHeader(field: "Subject")
        }
        let sender = try Self.parseSender(from)
        envelopeFrom = sender.address
        envelopeTo = message.to
        hasInternationalAddress = !(sender.address + message.to).unicodeScalars.allSatisfy(\.isASCII)
        fromHeader = sender.header
        subjectHeader = Self.unstructuredHeaderValue(message.subject, nameLength: "Subject: ".utf8.count)
        let normalized = message.textBody.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        var lines = normalized.split(separator: "\n", omittingEmptySubsequences: false).map { Array($0.utf8) }
        if normalized.hasSuffix("\n") { lines.removeLast() }
        bodyLines = lines
    }

    /// The body's transfer encoding: `8bit` is used only when `allow8bit` (a mailbox file, or an SMTP
    /// server advertising `8BITMIME`).
    func transferEncoding(allow8bit: Bool) -> TransferEncoding {
        let fitsLines = bodyLines.allSatisfy { $0.count <= 998 && !$0.contains(0) }
        guard fitsLines else { return .quotedPrintable }
        if bodyLines.allSatisfy({ $0.allSatisfy { $0 < 0x80 } }) { return .sevenBit }
        return allow8bit ? .eightBit : .quotedPrintable
    }

    /// The complete message, headers and body, every line ending in CRLF.
    func render(date: Date, messageID: String, encoding: TransferEncoding) -> [UInt8] {
        var text = ""
        text += "From: \(fromHeader)\r\n"
        text += "To: \(envelopeTo)\r\n"
        text += "Subject: \(subjectHeader)\r\n"
        text += "Date: \(Self.rfc5322Date(date))\r\n"
        text += "Message-ID: \(messageID)\r\n"
        text += "MIME-Version: 1.0\r\n"
        text += "Content-Type: text/plain; charset=utf-8\r\n"
        text += "Content-Transfer-Encoding: \(encoding.rawValue)\r\n"
        text += "Auto-Submitted: auto-generated\r\n"
        text += "\r\n"
        var bytes = Array(text.utf8)
        for line in bodyLines {
            switch encoding {
            case .sevenBit, .eightBit:
                bytes += line
                bytes += [13, 10]
            case .quotedPrintable:
                bytes += Self.quotedPrintable(line)
            }
        }
        return bytes
    }

    /// A fresh `Message-ID` in the sender's domain.
    func makeMessageID() -> String {
        let domain = envelopeFrom.split(separator: "@").last.map(String.init) ?? "waypoint.invalid"
        return "<\(UUID().uuidString.lowercased())@\(domain)>"
    }

    // MARK: Headers

    /// C0 controls other than tab, and DEL: CR and LF would start a new header (injection).
    static func isForbiddenInHeader(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar != "\t") || scalar.value == 0x7F
    }

    /// A single plain `local@domain` address: no display name, spaces, controls, quotes or separators.
    static func isAddress(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count <= 254, let at = text.lastIndex(of: "@"),
            at != text.startIndex, text.index(after: at) != text.endIndex
        else { return false }
        let forbidden: Set<Unicode.Scalar> = ["<", ">", ",", ";", ":", "\"", "(", ")", "[", "]", "\\"]
        return !text.unicodeScalars.contains { scalar in
            isForbiddenInHeader(scalar) || scalar.properties.isWhitespace || forbidden.contains(scalar)
        }
    }

    /// Splits `addr` or `Display Name <addr>` into the address and the `From` header value.
    static func parseSender(_ from: String) throws(EmailError) -> (address: String, header: String) {
        guard !from.unicodeScalars.contains(where: isForbiddenInHeader) else { throw .invalidHeader(field: "From") }
        let trimmed = from.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasSuffix(">"), let open = trimmed.lastIndex(of: "<") else {
            guard isAddress(trimmed) else { throw .invalidHeader(field: "From") }
            return (trimmed, trimmed)
        }
        let address = String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])
        guard isAddress(address) else { throw .invalidHeader(field: "From") }
        let name = trimmed[..<open].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { return (address, address) }
        let displayName: String
        if !name.unicodeScalars.allSatisfy(\.isASCII) || name.contains("=?") {
            displayName = encodedWords(name, firstLineUsed: "From: ".utf8.count).joined(separator: "\r\n ")
        } else if name.contains(where: { "()<>[]:;@\\,.\"".contains($0) }) {
            let escaped = name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            displayName = "\"\(escaped)\""
        } else {
            displayName = name
        }
        return (address, "\(displayName) <\(address)>")
    }

    /// An unstructured header value (RFC 5322 §3.2.5): as is when it is ASCII and fits one line,
    /// otherwise RFC 2047 encoded-words, one per folded line.
    static func unstructuredHeaderValue(_ text: String, nameLength: Int) -> String {
        let plain = text.unicodeScalars.allSatisfy(\.isASCII) && !text.contains("=?") && nameLength + text.utf8.count <= 998
        return plain ? text : encodedWords(text, firstLineUsed: nameLength).joined(separator: "\r\n ")
    }

    /// `text` as RFC 2047 "B" encoded-words, never splitting a character, each on its own folded line
    /// of at most 78 characters; the first shares its line with `firstLineUsed` characters (`Subject: `).
    static func encodedWords(_ text: String, firstLineUsed: Int) -> [String] {
        // 12 characters of `=?UTF-8?B?` and `?=`; every 3 bytes take 4 base64 characters.
        // An encoded-word has at most 75 characters (RFC 2047 §2), so at most 63 of base64.
        func capacity(lineUsed: Int) -> Int { max(3, min(78 - lineUsed - 12, 63) / 4 * 3) }
        var words: [String] = []
        var chunk: [UInt8] = []
        var limit = capacity(lineUsed: firstLineUsed)
        func flush() {
            words.append("=?UTF-8?B?\(Data(chunk).base64EncodedString())?=")
            chunk.removeAll()
            limit = capacity(lineUsed: 1)
        }
        for scalar in text.unicodeScalars {
            let bytes = Array(String(scalar).utf8)
            if !chunk.isEmpty, chunk.count + bytes.count > limit { flush() }
            chunk += bytes
        }
        if !chunk.isEmpty || words.isEmpty { flush() }
        return words
    }

    /// `date` as an RFC 5322 date-time in UTC, e.g. `Tue, 04 Mar 2025 09:05:07 +0000`.
    static func rfc5322Date(_ date: Date) -> String {
        let time = utc(date)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        return "\(days[Int(time.tm_wday)]), \(pad(time.tm_mday)) \(months[Int(time.tm_mon)]) \(time.tm_year + 1900) "
            + "\(pad(time.tm_hour)):\(pad(time.tm_min)):\(pad(time.tm_sec)) +0000"
    }

    /// `date` as a compact, sortable UTC timestamp with milliseconds, e.g. `20250304T090507.123Z`.
    static func fileTimestamp(_ date: Date) -> String {
        let time = utc(date)
        let millis = Int((date.timeIntervalSince1970 * 1000).rounded(.down)) % 1000
        return "\(time.tm_year + 1900)\(pad(time.tm_mon + 1))\(pad(time.tm_mday))T"
            + "\(pad(time.tm_hour))\(pad(time.tm_min))\(pad(time.tm_sec)).\(pad(Int32(millis), width: 3))Z"
    }

    private static func utc(_ date: Date) -> tm {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var result = tm()
        gmtime_r(&seconds, &result)
        return result
    }

    private static func pad(_ value: Int32, width: Int = 2) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    // MARK: Body

    /// One body line in quoted-printable (RFC 2045 §6.7), soft-wrapped at 76 characters, ending in CRLF.
    static func quotedPrintable(_ line: [UInt8]) -> [UInt8] {
        let hex = Array("0123456789ABCDEF".utf8)
        var output: [UInt8] = []
        var column = 0
        for (index, byte) in line.enumerated() {
            let isLast = index == line.count - 1
            let literal = (byte >= 33 && byte <= 126 && byte != UInt8(ascii: "="))
                || ((byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")) && !isLast)
            let token: [UInt8] = literal ? [byte] : [UInt8(ascii: "="), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            // Leave room for the soft break's "=" (76 characters per line in all).
            if column + token.count > 75 {
                output += [UInt8(ascii: "="), 13, 10]
                column = 0
            }
            output += token
            column += token.count
        }
        output += [13, 10]
        return output
    }
}
