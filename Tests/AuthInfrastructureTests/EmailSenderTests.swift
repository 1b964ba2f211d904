import AuthInfrastructure
import Foundation
import ServiceTesting
import Testing

@Suite("MailboxDirectorySender writes private, complete .eml files")
struct EmailSenderMailboxTests {
    static let resetMail = EmailMessage(
        to: "ada@example.com",
        subject: "Reset your Waypoint password",
        textBody: "Hello,\n\nopen https://waypoint.example/reset?token=abc123 within 30 minutes.\n"
    )

    @Test("one message becomes one readable RFC 5322 file with the right headers, CRLF lines and 0600 permissions")
    func writesOneFile() async throws {
        let parent = TemporaryDirectory("waypoint-mail")
        defer { parent.remove() }
        let mailbox = parent.url.appendingPathComponent("outbox")
        let sender = MailboxDirectorySender(directory: mailbox, from: "Waypoint <no-reply@waypoint.example>")
        try await sender.send(Self.resetMail)

        let names = try FileManager.default.contentsOfDirectory(atPath: mailbox.path)
        #expect(names.count == 1, "no temporary file is left behind")
        let name = try #require(names.first)
        #expect(name.wholeMatch(of: /\d{8}T\d{6}\.\d{3}Z-[0-9a-f-]{36}\.eml/) != nil, "\(name)")

        let file = mailbox.appendingPathComponent(name)
        let bytes = try Data(contentsOf: file)
        let text = try #require(String(data: bytes, encoding: .utf8))
        #expect(!text.replacingOccurrences(of: "\r\n", with: "").contains("\n"), "every line ends in CRLF")
        let parts = text.components(separatedBy: "\r\n\r\n")
        let headers = parts[0].components(separatedBy: "\r\n")
        #expect(headers.contains("From: Waypoint <no-reply@waypoint.example>"))
        #expect(headers.contains("To: ada@example.com"))
        #expect(headers.contains("Subject: Reset your Waypoint password"))
        #expect(headers.contains("MIME-Version: 1.0"))
        #expect(headers.contains("Content-Type: text/plain; charset=utf-8"))
        #expect(headers.contains("Content-Transfer-Encoding: 7bit"))
        #expect(headers.contains { $0.wholeMatch(of: /Date: (Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d \+0000/) != nil })
        #expect(headers.contains { $0.wholeMatch(of: /Message-ID: <[0-9a-f-]{36}@waypoint\.example>/) != nil })
        #expect(parts.dropFirst().joined(separator: "\r\n\r\n")
            == "Hello,\r\n\r\nopen https://waypoint.example/reset?token=abc123 within 30 minutes.\r\n")

        let fileMode = try #require(FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int)
        let directoryMode = try #require(FileManager.default.attributesOfItem(atPath: mailbox.path)[.posixPermissions] as? Int)
        #expect(fileMode & 0o777 == 0o600)
        #expect(directoryMode & 0o777 == 0o700)
    }

    @Test("a non-ASCII subject becomes RFC 2047 encoded-words and a UTF-8 body goes as 8bit")
    func internationalText() throws {
        let directory = TemporaryDirectory("waypoint-mail")
        defer { directory.remove() }
        let sender = MailboxDirectorySender(directory: directory.url, from: "no-reply@waypoint.example")
        let subject = "Réinitialisez votre mot de passe Waypoint — café, Straße, 東京 🚲 and a long tail to force folding"
        let file = try sender.store(EmailMessage(to: "zoë@example.com", subject: subject, textBody: "Grüße aus Krems 🚲"))
        let text = try String(contentsOf: file, encoding: .utf8)
        let head = try #require(text.components(separatedBy: "\r\n\r\n").first)
        #expect(head.contains("Content-Transfer-Encoding: 8bit"))
        #expect(text.hasSuffix("\r\n\r\nGrüße aus Krems 🚲\r\n"))
        #expect(head.unicodeScalars.filter { !$0.isASCII }.map(String.init).joined() == "ë", "only the EAI address is not ASCII")
        // Unfold the Subject header and decode its encoded-words.
        let unfolded = head.replacingOccurrences(of: "\r\n ", with: " ")
        let subjectLine = try #require(unfolded.components(separatedBy: "\r\n").first { $0.hasPrefix("Subject: ") })
        let decoded = try subjectLine.dropFirst("Subject: ".count).split(separator: " ").map { word -> String in
            let match = try #require(word.wholeMatch(of: /=\?UTF-8\?B\?([A-Za-z0-9+\/=]+)\?=/))
            #expect(word.count <= 75)
            return try #require(Data(base64Encoded: String(match.1)).flatMap { String(data: $0, encoding: .utf8) })
        }.joined()
        #expect(decoded == subject)
        #expect(head.components(separatedBy: "\r\n").allSatisfy { $0.utf8.count <= 78 })
    }

    @Test("CR or LF in the subject or recipient is refused (header injection) and nothing is written")
    func headerInjection() async throws {
        let directory = TemporaryDirectory("waypoint-mail")
        defer { directory.remove() }
        let sender = MailboxDirectorySender(directory: directory.url, from: "no-reply@waypoint.example")
        await #expect(throws: EmailError.invalidHeader(field: "Subject")) {
            try await sender.send(EmailMessage(to: "ada@example.com", subject: "Hi\r\nBcc: victim@example.com", textBody: "x"))
        }
        await #expect(throws: EmailError.invalidHeader(field: "Subject")) {
            try await sender.send(EmailMessage(to: "ada@example.com", subject: "Hi\nBcc: victim@example.com", textBody: "x"))
        }
        for to in ["ada@example.com\r\nBcc: victim@example.com", "ada@example.com\n", "Ada <ada@example.com>", "a@b.c, d@e.f", "nobody"] {
            await #expect(throws: EmailError.invalidHeader(field: "To")) {
                try await sender.send(EmailMessage(to: to, subject: "Hi", textBody: "x"))
            }
        }
        let broken = MailboxDirectorySender(directory: directory.url, from: "no-reply@waypoint.example\r\nBcc: victim@example.com")
        await #expect(throws: EmailError.invalidHeader(field: "From")) { try await broken.send(EmailSenderMailboxTests.resetMail) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
    }
}

@Suite("SMTPEmailSender delivers through a real SMTP server on loopback", .serialized)
struct SMTPEmailSenderTests {
    /// Lines starting with "." (one of them only "."), which must be dot-stuffed, and UTF-8 text.
    static let trickyBody = "Hello Zoë,\n.hidden line starting with a dot\n.\n..two dots\nend of mail — 🚲\n"
    static let utf8Subject = "Passwort zurücksetzen — 東京 🚲"

    /// Python's `smtpd` hands over the data without the CRLF before the final "." (a quirk of that
    /// server: RFC 5321 counts it as part of the message), so its copy of a body lacks the last line break.
    static func asStoredBySMTPD(_ body: String) -> String {
        body.hasSuffix("\n") ? String(body.dropLast()) : body
    }

    /// A sender for one test. The deadline is generous: these tests check what arrives, not how fast,
    /// and the shared unit stage can starve a connection for many seconds (the timeout has its own test).
    func sender(port: Int, host: String = "127.0.0.1", security: SMTPConfiguration.Security = .none,
                username: String? = nil, password: String? = nil, timeout: Duration = .seconds(120),
                caCertificatesFile: String? = nil) -> SMTPEmailSender {
        SMTPEmailSender(configuration: SMTPConfiguration(
            host: host, port: port, from: "Waypoint <no-reply@waypoint.example>", security: security,
            username: username, password: password, timeout: timeout, caCertificatesFile: caCertificatesFile))
    }

    @Test("a message with dot lines and a UTF-8 subject arrives intact (8BITMIME)")
    func deliversIntact() async throws {
        try await MailSMTPServer.with(mode: "accept") { server in
            try await sender(port: server.port).send(EmailMessage(to: "zoe@example.com", subject: Self.utf8Subject, textBody: Self.trickyBody))
            let messages = try server.messages()
            #expect(messages.count == 1)
            let message = try #require(messages.first)
            #expect(message.mailfrom == "no-reply@waypoint.example")
            #expect(message.rcpttos == ["zoe@example.com"])
            #expect(message.mailOptions == ["BODY=8BITMIME"])
            #expect(message.subject == Self.utf8Subject)
            #expect(message.from == "Waypoint <no-reply@waypoint.example>")
            #expect(message.to == "zoe@example.com")
            #expect(message.transferEncoding == "8bit")
            #expect(message.body == Self.asStoredBySMTPD(Self.trickyBody))
            #expect(message.raw.contains("\n.hidden line starting with a dot\n.\n..two dots\n"), "the server undid our dot-stuffing exactly")
        }
    }

    @Test("without 8BITMIME the body goes quoted-printable and still arrives intact")
    func quotedPrintableFallback() async throws {
        try await MailSMTPServer.with(mode: "seven-bit") { server in
            let longLine = String(repeating: "Ä", count: 600) + " = done"
            let body = Self.trickyBody + longLine + "\n"
            try await sender(port: server.port).send(EmailMessage(to: "zoe@example.com", subject: Self.utf8Subject, textBody: body))
            let message = try #require(server.messages().first)
            #expect(message.transferEncoding == "quoted-printable")
            #expect(message.mailOptions.isEmpty)
            #expect(message.subject == Self.utf8Subject)
            #expect(message.body == Self.asStoredBySMTPD(body))
            #expect(message.raw.split(separator: "\n").allSatisfy { $0.utf8.count <= 998 && $0.unicodeScalars.allSatisfy(\.isASCII) })
        }
    }

    @Test("AUTH PLAIN credentials are sent and checked")
    func authenticates() async throws {
        try await MailSMTPServer.with(mode: "auth") { server in
            try await sender(port: server.port, username: "mailer", password: "s3cret")
                .send(EmailMessage(to: "zoe@example.com", subject: "Hi", textBody: "body"))
            let received = try server.messages()
            #expect(received.first?.user == "mailer")
            await #expect(throws: EmailError.smtp(code: 535, message: "5.7.8 Authentication credentials invalid")) {
                try await sender(port: server.port, username: "mailer", password: "wrong")
                    .send(EmailMessage(to: "zoe@example.com", subject: "Hi", textBody: "body"))
            }
            await #expect(throws: EmailError.connection("server does not offer AUTH PLAIN")) {
                try await MailSMTPServer.with(mode: "accept") { plain in
                    try await sender(port: plain.port, username: "mailer", password: "s3cret")
                        .send(EmailMessage(to: "zoe@example.com", subject: "Hi", textBody: "body"))
                }
            }
        }
    }

    @Test("a 550 to RCPT TO surfaces as EmailError.smtp(code: 550)")
    func rejectedRecipient() async throws {
        try await MailSMTPServer.with(mode: "reject-rcpt") { server in
            await #expect(throws: EmailError.smtp(code: 550, message: "5.1.1 No such user here")) {
                try await sender(port: server.port).send(EmailMessage(to: "ghost@example.com", subject: "Hi", textBody: "body"))
            }
            let received = try server.messages()
            #expect(received.isEmpty)
        }
    }

    @Test("a closed port is a connection error")
    func closedPort() async throws {
        let port = try ServiceTesting.closedPort()
        let error = await #expect(throws: EmailError.self) {
            try await sender(port: port).send(EmailMessage(to: "zoe@example.com", subject: "Hi", textBody: "body"))
        }
        guard case .connection(let reason) = error else { Issue.record("unexpected \(String(describing: error))"); return }
        #expect(reason.contains("cannot connect"))
    }

    @Test("a server that never greets is cut off by the timeout")
    func timeout() async throws {
        _ = try await MailSMTPServer.with(mode: "silent") { server in
            // The error names the 0.5 s timeout, so the 10 s default did not end it (no wall-clock bound: test machines
            // starve a process for seconds).
            await #expect(throws: EmailError.connection("no answer within 0.5 seconds")) {
                try await sender(port: server.port, timeout: .milliseconds(500))
                    .send(EmailMessage(to: "zoe@example.com", subject: "Hi", textBody: "body"))
            }
        }
    }

    @Test("STARTTLS upgrades the connection before AUTH and the message")
    func startTLS() async throws {
        let certificate = try MailTestCertificate()
        defer { certificate.directory.remove() }
        try await MailSMTPServer.with(mode: "starttls", certificate: certificate) { server in
            try await sender(port: server.port, host: "localhost", security: .startTLS, username: "mailer", password: "s3cret",
                             caCertificatesFile: certificate.certificatePath)
                .send(EmailMessage(to: "zoe@example.com", subject: Self.utf8Subject, textBody: Self.trickyBody))
            let message = try #require(server.messages().first)
            #expect(message.tls == true)
            #expect(message.user == "mailer")
            #expect(message.subject == Self.utf8Subject)
            #expect(message.body == Self.trickyBody)
        }
    }

    @Test("implicit TLS verifies the server certificate")
    func implicitTLS() async throws {
        let certificate = try MailTestCertificate()
        defer { certificate.directory.remove() }
        try await MailSMTPServer.with(mode: "tls", certificate: certificate) { server in
            try await sender(port: server.port, host: "localhost", security: .tls, caCertificatesFile: certificate.certificatePath)
                .send(EmailMessage(to: "zoe@example.com", subject: "Hi", textBody: "over TLS"))
            let received = try server.messages()
            #expect(received.first?.tls == true)

            let error = await #expect(throws: EmailError.self) {
                // Not trusting the self-signed certificate: the handshake must fail.
                try await sender(port: server.port, host: "localhost", security: .tls)
                    .send(EmailMessage(to: "zoe@example.com", subject: "Hi", textBody: "over TLS"))
            }
            guard case .connection = error else { Issue.record("unexpected \(String(describing: error))"); return }
            let afterRefusal = try server.messages()
            #expect(afterRefusal.count == 1)
        }
    }
}
