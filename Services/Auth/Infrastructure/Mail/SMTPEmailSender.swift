import Foundation
import NIOCore
import NIOSSL

/// Submits mail to an SMTP server (RFC 5321): greeting, `EHLO`, optional `STARTTLS` and `EHLO` again,
/// optional `AUTH PLAIN`, `MAIL FROM`, `RCPT TO`, `DATA` (dot-stuffed), `QUIT`. One connection per
/// message, no pooling: password-reset mail is rare.
///
/// Every reply code is checked; a refusal throws ``EmailError/smtp(code:message:)``, a network, TLS or
/// protocol failure or the ``SMTPConfiguration/timeout`` (which bounds the whole exchange) throws
/// ``EmailError/connection(_:)``. The body goes as `8bit` when the server offers `8BITMIME`, otherwise as
/// quoted-printable (ASCII text stays `7bit`).
public struct SMTPEmailSender: EmailSender {
    /// Server, sender and security settings.
    public let configuration: SMTPConfiguration

    /// Creates a sender.
    public init(configuration: SMTPConfiguration) {
        self.configuration = configuration
    }

    public func send(_ message: EmailMessage) async throws {
        let mime = try MIMEMessage(message, from: configuration.from)
        guard !configuration.heloName.isEmpty,
            configuration.heloName.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value < 0x7F })
        else { throw EmailError.connection("invalid EHLO name \(configuration.heloName.debugDescription)") }
        let deadline = ContinuousClock.now + configuration.timeout

        var tlsContext: NIOSSLContext?
        if configuration.security != .none {
            do {
                var tls = configuration.tlsConfiguration
                if let file = configuration.caCertificatesFile { tls.additionalTrustRoots.append(.file(file)) }
                tlsContext = try NIOSSLContext(configuration: tls)
            } catch {
                throw EmailError.connection("invalid TLS configuration: \(error)")
            }
        }
        let connection = try await SMTPConnection.connect(
            host: configuration.host,
            port: configuration.port,
            tls: configuration.security == .tls ? tlsContext : nil,
            timeout: Self.timeAmount(configuration.timeout)
        )
        let timer = connection.failAfter(
            Self.timeAmount(deadline - ContinuousClock.now),
            with: .connection("no answer within \(configuration.timeout)")
        )
        do {
            try await converse(over: connection, mime: mime, tlsContext: tlsContext)
            timer.cancel()
            await connection.close()
        } catch {
            timer.cancel()
            let failure: any Error
            if error is EmailError {
                failure = error
            } else {
                failure = connection.recordedFailure() ?? EmailError.connection(String(describing: error))
            }
            // Polite but best effort: the server discards the transaction either way.
            try? await connection.write(Array("QUIT\r\n".utf8))
            await connection.close()
            throw failure
        }
    }

    private func converse(over connection: SMTPConnection, mime: MIMEMessage, tlsContext: NIOSSLContext?) async throws {
        try Self.expect(await connection.readReply(), 220)
        var extensions = try await hello(over: connection)

        if configuration.security == .startTLS, let tlsContext {
            guard extensions["STARTTLS"] != nil else { throw EmailError.connection("server does not offer STARTTLS") }
            try Self.expect(await connection.command("STARTTLS"), 220)
            try await connection.startTLS(context: tlsContext, host: configuration.host)
            extensions = try await hello(over: connection)
        }

        if let username = configuration.username {
            guard extensions["AUTH"]?.contains("PLAIN") == true else {
                throw EmailError.connection("server does not offer AUTH PLAIN")
            }
            let credentials = [0] + Array(username.utf8) + [0] + Array((configuration.password ?? "").utf8)
            try Self.expect(await connection.command("AUTH PLAIN \(Data(credentials).base64EncodedString())"), 235)
        }

        let encoding = mime.transferEncoding(allow8bit: extensions["8BITMIME"] != nil)
        var mailFrom = "MAIL FROM:<\(mime.envelopeFrom)>"
        if encoding == .eightBit { mailFrom += " BODY=8BITMIME" }
        if mime.hasInternationalAddress {
            guard extensions["SMTPUTF8"] != nil else {
                throw EmailError.invalidHeader(field: mime.envelopeTo.unicodeScalars.allSatisfy(\.isASCII) ? "From" : "To")
            }
            mailFrom += " SMTPUTF8"
        }
        try Self.expect(await connection.command(mailFrom), 250)
        try Self.expect(await connection.command("RCPT TO:<\(mime.envelopeTo)>"), 250, 251)
        try Self.expect(await connection.command("DATA"), 354)
        let content = mime.render(date: Date(), messageID: mime.makeMessageID(), encoding: encoding)
        try await connection.write(Self.dotStuffed(content) + Array(".\r\n".utf8))
        try Self.expect(await connection.readReply(), 250)
        // The message is accepted; a QUIT that fails changes nothing.
        _ = try? await connection.command("QUIT")
    }

    /// `EHLO`, falling back to `HELO` for servers that do not know it; returns the offered extensions
    /// (upper-cased keyword → upper-cased parameters).
    private func hello(over connection: SMTPConnection) async throws -> [String: [String]] {
        let reply = try await connection.command("EHLO \(configuration.heloName)")
        if [500, 502].contains(reply.code) {
            try Self.expect(await connection.command("HELO \(configuration.heloName)"), 250)
            return [:]
        }
        try Self.expect(reply, 250)
        var extensions: [String: [String]] = [:]
        for line in reply.lines.dropFirst() {
            let words = line.uppercased().split(separator: " ").map(String.init)
            if let keyword = words.first { extensions[keyword] = Array(words.dropFirst()) }
        }
        return extensions
    }

    private static func expect(_ reply: SMTPReply, _ codes: Int...) throws {
        guard codes.contains(reply.code) else { throw EmailError.smtp(code: reply.code, message: reply.text) }
    }

    /// RFC 5321 §4.5.2: a line starting with "." gets another "." so it cannot end the data.
    static func dotStuffed(_ content: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(content.count + 16)
        var atLineStart = true
        for byte in content {
            if atLineStart, byte == UInt8(ascii: ".") { output.append(byte) }
            output.append(byte)
            atLineStart = byte == 10
        }
        if !atLineStart { output += [13, 10] }
        return output
    }

    private static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
    }
}
