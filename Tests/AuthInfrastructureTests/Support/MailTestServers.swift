import Foundation
import ServiceTesting

/// What a test SMTP server received and how Python's `email` package parsed it.
struct MailReceivedMessage: Decodable, Sendable {
    let mailfrom: String
    let rcpttos: [String]
    let mailOptions: [String]
    /// The message after the server undid dot-stuffing, lines joined with "\n".
    let raw: String
    /// Headers and body decoded by `email.message_from_bytes(policy=email.policy.default)`.
    let subject: String
    let from: String
    let to: String
    let transferEncoding: String
    let body: String
    /// Whether the message travelled over TLS (TLS server only).
    let tls: Bool?
    /// The `AUTH PLAIN` user, when the client authenticated.
    let user: String?
}

/// A Python SMTP server on 127.0.0.1 (ephemeral port) running as a child process for one test.
///
/// Modes of the standard library's `smtpd` server (a real SMTP implementation):
/// `accept` (advertises 8BITMIME), `seven-bit` (no 8BITMIME: the client must use quoted-printable),
/// `reject-rcpt` (550 to every RCPT), `auth` (advertises `AUTH PLAIN`, requires user `mailer` /
/// password `s3cret` before MAIL); plus `silent` (accepts connections, never greets).
/// Modes of a small hand-written server for TLS, which `smtpd` lacks: `starttls` and `tls` (implicit).
final class MailSMTPServer: Sendable {
    let port: Int
    let directory: TemporaryDirectory
    private let process: Process

    private init(port: Int, directory: TemporaryDirectory, process: Process) {
        self.port = port
        self.directory = directory
        self.process = process
    }

    /// Starts a server in `mode` and waits until it listens (it writes its port only after `listen()`).
    static func start(mode: String, certificate: MailTestCertificate? = nil) async throws -> MailSMTPServer {
        let directory = TemporaryDirectory("waypoint-mail")
        let script = directory.url.appendingPathComponent("server.py")
        try (certificate == nil ? smtpdScript : tlsScript).write(to: script, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        var arguments = ["python3", "-W", "ignore", script.path, mode, directory.url.path]
        if let certificate { arguments += [certificate.certificatePath, certificate.keyPath] }
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let portFile = directory.url.appendingPathComponent("port")
        var port: Int?
        try await eventually(timeout: .seconds(15), interval: .milliseconds(25)) {
            port = (try? String(contentsOf: portFile, encoding: .utf8)).flatMap { Int($0) }
            return port != nil || !process.isRunning
        }
        if let port { return MailSMTPServer(port: port, directory: directory, process: process) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        directory.remove()
        throw TestSetupError("SMTP test server (\(mode)) did not start")
    }

    /// The messages received so far, in order.
    func messages() throws -> [MailReceivedMessage] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
            .filter { $0.hasPrefix("message-") && $0.hasSuffix(".json") }
            .sorted { Int($0.dropFirst(8).dropLast(5)) ?? 0 < Int($1.dropFirst(8).dropLast(5)) ?? 0 }
        return try names.map { name in
            try JSONDecoder().decode(MailReceivedMessage.self, from: Data(contentsOf: directory.url.appendingPathComponent(name)))
        }
    }

    /// Stops the child process (SIGKILL: a child spawned from a dispatch thread may inherit a mask that
    /// blocks SIGTERM) and removes its directory.
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        directory.remove()
    }

    /// Runs `body` with a server in `mode`, stopping it afterwards.
    static func with<T>(
        mode: String,
        certificate: MailTestCertificate? = nil,
        _ body: (MailSMTPServer) async throws -> T
    ) async throws -> T {
        let server = try await start(mode: mode, certificate: certificate)
        defer { server.stop() }
        return try await body(server)
    }

    private static let smtpdScript = #"""
        import asyncore, base64, email, email.policy, json, os, signal, smtpd, socket, sys, threading, time
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        parent = os.getppid()

        def watchdog():
            # Exit with the test process, even when it dies without stopping us.
            while os.getppid() == parent:
                time.sleep(0.5)
            os._exit(0)

        threading.Thread(target=watchdog, daemon=True).start()

        mode, directory = sys.argv[1], sys.argv[2]
        authenticated_user = None

        def publish(name, text):
            temporary = os.path.join(directory, "." + name + ".tmp")
            with open(temporary, "w") as f:
                f.write(text)
            os.rename(temporary, os.path.join(directory, name))

        if mode == "silent":
            listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            listener.bind(("127.0.0.1", 0))
            listener.listen(8)
            publish("port", str(listener.getsockname()[1]))
            time.sleep(3600)
            sys.exit(0)

        class Channel(smtpd.SMTPChannel):
            def smtp_EHLO(self, arg):
                if mode != "auth" or not arg or self.seen_greeting:
                    return super().smtp_EHLO(arg)
                original = self.push
                def push(line):
                    if line.startswith("250 "):
                        original("250-AUTH PLAIN")
                    original(line)
                self.push = push
                try:
                    super().smtp_EHLO(arg)
                finally:
                    del self.push

            def smtp_AUTH(self, arg):
                words = arg.split()
                if mode == "auth" and len(words) == 2 and words[0].upper() == "PLAIN":
                    fields = base64.b64decode(words[1]).split(b"\0")
                    if fields[1:] == [b"mailer", b"s3cret"]:
                        global authenticated_user
                        authenticated_user = self.user = "mailer"
                        self.push("235 2.7.0 Authentication successful")
                        return
                self.push("535 5.7.8 Authentication credentials invalid")

            def smtp_MAIL(self, arg):
                if mode == "auth" and getattr(self, "user", None) is None:
                    self.push("530 5.7.0 Authentication required")
                    return
                super().smtp_MAIL(arg)

            def smtp_RCPT(self, arg):
                if mode == "reject-rcpt":
                    self.push("550 5.1.1 No such user here")
                    return
                super().smtp_RCPT(arg)

        class Server(smtpd.SMTPServer):
            channel_class = Channel
            count = 0

            def process_message(self, peer, mailfrom, rcpttos, data, **kwargs):
                raw = data if isinstance(data, bytes) else data.encode("utf-8")
                message = email.message_from_bytes(raw, policy=email.policy.default)
                Server.count += 1
                publish("message-%d.json" % Server.count, json.dumps({
                    "mailfrom": mailfrom, "rcpttos": rcpttos, "mailOptions": kwargs.get("mail_options", []),
                    "raw": raw.decode("utf-8", "replace"),
                    "subject": str(message["subject"]), "from": str(message["from"]), "to": str(message["to"]),
                    "transferEncoding": str(message["content-transfer-encoding"]), "body": message.get_content(),
                    "user": authenticated_user,
                }))
                return None

        server = Server(("127.0.0.1", 0), None, decode_data=(mode == "seven-bit"))
        publish("port", str(server.socket.getsockname()[1]))
        asyncore.loop(timeout=0.05)
        """#

    private static let tlsScript = #"""
        import base64, email, email.policy, json, os, signal, socket, ssl, sys, threading, time
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        parent = os.getppid()

        def watchdog():
            # Exit with the test process, even when it dies without stopping us.
            while os.getppid() == parent:
                time.sleep(0.5)
            os._exit(0)

        threading.Thread(target=watchdog, daemon=True).start()

        mode, directory, certificate, key = sys.argv[1:5]
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(certificate, key)
        count = 0

        def publish(name, text):
            temporary = os.path.join(directory, "." + name + ".tmp")
            with open(temporary, "w") as f:
                f.write(text)
            os.rename(temporary, os.path.join(directory, name))

        def serve(connection):
            global count
            secure = mode == "tls"
            if secure:
                connection = context.wrap_socket(connection, server_side=True)
            reader = connection.makefile("rb")
            def send(line):
                connection.sendall(line.encode() + b"\r\n")
            send("220 localhost ESMTP test")
            mailfrom, rcpttos, user = None, [], None
            while True:
                line = reader.readline()
                if not line:
                    return
                command = line.decode().rstrip("\r\n")
                verb = command.split(" ")[0].upper()
                if verb == "EHLO":
                    lines = ["localhost"] + ([] if secure else ["STARTTLS"]) + ["AUTH PLAIN", "8BITMIME"]
                    for extension in lines[:-1]:
                        send("250-" + extension)
                    send("250 " + lines[-1])
                elif verb == "STARTTLS" and not secure:
                    send("220 2.0.0 Ready to start TLS")
                    connection = context.wrap_socket(connection, server_side=True)
                    reader = connection.makefile("rb")
                    secure = True
                elif verb == "AUTH":
                    fields = base64.b64decode(command.split(" ")[2]).split(b"\0")
                    if secure and fields[1:] == [b"mailer", b"s3cret"]:
                        user = "mailer"
                        send("235 2.7.0 Authentication successful")
                    else:
                        send("535 5.7.8 Authentication credentials invalid")
                elif verb == "MAIL":
                    if not secure:
                        send("530 5.7.0 Must issue a STARTTLS command first")
                        continue
                    mailfrom = command[len("MAIL FROM:<"):].split(">")[0]
                    send("250 OK")
                elif verb == "RCPT":
                    rcpttos.append(command[len("RCPT TO:<"):].split(">")[0])
                    send("250 OK")
                elif verb == "DATA":
                    send("354 End data with <CR><LF>.<CR><LF>")
                    lines = []
                    while True:
                        data_line = reader.readline()
                        if data_line in (b".\r\n", b""):
                            break
                        if data_line.startswith(b"."):
                            data_line = data_line[1:]
                        lines.append(data_line)
                    raw = b"".join(lines).replace(b"\r\n", b"\n")
                    message = email.message_from_bytes(raw, policy=email.policy.default)
                    count += 1
                    publish("message-%d.json" % count, json.dumps({
                        "mailfrom": mailfrom, "rcpttos": rcpttos, "mailOptions": [], "raw": raw.decode("utf-8", "replace"),
                        "subject": str(message["subject"]), "from": str(message["from"]), "to": str(message["to"]),
                        "transferEncoding": str(message["content-transfer-encoding"]), "body": message.get_content(),
                        "tls": secure, "user": user,
                    }))
                    send("250 2.0.0 OK queued")
                elif verb == "QUIT":
                    send("221 2.0.0 Bye")
                    connection.close()
                    return
                else:
                    send("502 5.5.2 Command not recognized")

        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        publish("port", str(listener.getsockname()[1]))
        while True:
            connection, _ = listener.accept()
            threading.Thread(target=serve, args=(connection,), daemon=True).start()
        """#
}

/// A self-signed certificate for `localhost` / 127.0.0.1 made with the `openssl` command.
struct MailTestCertificate: Sendable {
    let directory: TemporaryDirectory
    var certificatePath: String { directory.url.appendingPathComponent("cert.pem").path }
    var keyPath: String { directory.url.appendingPathComponent("key.pem").path }

    init() throws {
        directory = TemporaryDirectory("waypoint-mail")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
            "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
            "-keyout", directory.url.appendingPathComponent("key.pem").path,
            "-out", directory.url.appendingPathComponent("cert.pem").path,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TestSetupError("openssl could not make a certificate") }
    }
}
