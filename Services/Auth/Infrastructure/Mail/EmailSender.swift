/// A plain-text e-mail to one recipient (password resets, address confirmations).
public struct EmailMessage: Sendable, Hashable {
    /// The recipient's address (`user@example.com`, no display name).
    public var to: String
    /// The subject; any Unicode text without line breaks.
    public var subject: String
    /// The body; any line endings (they are sent as CRLF).
    public var textBody: String

    /// Creates a message.
    public init(to: String, subject: String, textBody: String) {
        self.to = to
        self.subject = subject
        self.textBody = textBody
    }
}

/// Delivers outgoing mail: ``MailboxDirectorySender`` (embedded default) or ``SMTPEmailSender``.
public protocol EmailSender: Sendable {
    /// Delivers `message`, returning once the mailbox file is in place or the SMTP server accepted it.
    ///
    /// - Throws: ``EmailError``.
    func send(_ message: EmailMessage) async throws
}

/// Why a message could not be sent.
public enum EmailError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A header value is unusable: a CR, LF or other control character (header injection), or an address
    /// that is not a single plain `local@domain`. `field` names the header (`To`, `From`, `Subject`).
    case invalidHeader(field: String)
    /// The SMTP server answered `code` where another reply was required.
    case smtp(code: Int, message: String)
    /// The SMTP server could not be reached, broke the protocol, closed the connection, lacks a required
    /// extension (STARTTLS, AUTH PLAIN), or the exchange timed out.
    case connection(String)
    /// The mailbox directory or file could not be written.
    case io(String)

    public var description: String {
        switch self {
        case .invalidHeader(let field): "invalid \(field) header value"
        case .smtp(let code, let message): "SMTP server answered \(code) \(message)"
        case .connection(let reason): "SMTP connection failed: \(reason)"
        case .io(let reason): "cannot write mail: \(reason)"
        }
    }
}
