import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The embedded default ``EmailSender``: each message becomes one RFC 5322 `.eml` file in a directory that
/// operators read (any mail client opens `.eml` files; `cat` works too).
///
/// Files are named `<UTC timestamp>-<uuid>.eml`, so they sort by time. Each is written to a hidden
/// temporary file, flushed and renamed into place: a reader never sees half a mail. The mails contain
/// password-reset tokens, so the directory is created `0700` and the files are `0600`.
public struct MailboxDirectorySender: EmailSender {
    /// Where the `.eml` files go.
    public let directory: URL
    /// The sender, `addr@domain` or `Display Name <addr@domain>`.
    public let from: String

    /// Creates a sender writing into `directory` (created on first send when missing).
    public init(directory: URL, from: String) {
        self.directory = directory
        self.from = from
    }

    public func send(_ message: EmailMessage) async throws {
        try store(message)
    }

    /// Writes `message` and returns the file's URL.
    @discardableResult
    public func store(_ message: EmailMessage, date: Date = Date()) throws(EmailError) -> URL {
        let mime = try MIMEMessage(message, from: from)
        let bytes = mime.render(date: date, messageID: mime.makeMessageID(), encoding: mime.transferEncoding(allow8bit: true))
        try createDirectory()
        let name = "\(MIMEMessage.fileTimestamp(date))-\(UUID().uuidString.lowercased()).eml"
        let destination = directory.appendingPathComponent(name)
        let temporary = directory.appendingPathComponent(".\(name).tmp")
        try writeFile(bytes, to: temporary.path)
        guard rename(temporary.path, destination.path) == 0 else {
            let reason = Self.errnoDescription()
            unlink(temporary.path)
            throw .io("cannot rename \(temporary.path) to \(destination.path): \(reason)")
        }
        return destination
    }

    private func createDirectory() throws(EmailError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue { return }
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .io("cannot create mailbox directory \(directory.path): \(error)")
        }
    }

    /// Creates `path` with mode 0600 (never readable by others, not even briefly), writes and fsyncs it.
    private func writeFile(_ bytes: [UInt8], to path: String) throws(EmailError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .io("cannot create \(path): \(Self.errnoDescription())") }
        var failure: String?
        if fchmod(descriptor, 0o600) != 0 { failure = "chmod: \(Self.errnoDescription())" }
        var offset = 0
        while failure == nil, offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { systemWrite(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                failure = "write: \(Self.errnoDescription())"
            } else {
                offset += written
            }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = "fsync: \(Self.errnoDescription())" }
        if close(descriptor) != 0, failure == nil { failure = "close: \(Self.errnoDescription())" }
        if let failure {
            unlink(path)
            throw .io("cannot write \(path): \(failure)")
        }
    }

    private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
        write(descriptor, buffer, count)
    }

    private static func errnoDescription() -> String {
        String(cString: strerror(errno))
    }
}
