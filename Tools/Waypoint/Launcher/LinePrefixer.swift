/// Cuts a child process's output into lines and puts the service's name in front of each (`auth            | …`), so
/// the interleaved output of seven processes stays readable and greppable. Pure: bytes in, prefixed lines out.
public struct LinePrefixer: Sendable {
    /// Longest line kept waiting for its newline, in bytes; a longer one is written in pieces so a child that never
    /// writes a newline cannot grow the launcher's memory.
    public static let maximumLineBytes = 64 * 1024

    /// The bytes put before every line: the name padded to `width`, then `" | "`.
    public let prefix: [UInt8]
    private var pending: [UInt8] = []

    public init(name: String, width: Int = 0) {
        let padded = name + String(repeating: " ", count: max(0, width - name.count))
        prefix = Array("\(padded) | ".utf8)
    }

    /// Feeds bytes as they were read; returns every line they completed, prefixed and newline-terminated.
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var output: [UInt8] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                emit(into: &output)
            } else {
                pending.append(byte)
                if pending.count >= Self.maximumLineBytes { emit(into: &output) }
            }
        }
        return output
    }

    /// At end of output: the unterminated last line, if any, prefixed and with a newline.
    public mutating func finish() -> [UInt8] {
        var output: [UInt8] = []
        if !pending.isEmpty { emit(into: &output) }
        return output
    }

    private mutating func emit(into output: inout [UInt8]) {
        if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
        output += prefix
        output += pending
        output.append(UInt8(ascii: "\n"))
        pending.removeAll(keepingCapacity: true)
    }
}
