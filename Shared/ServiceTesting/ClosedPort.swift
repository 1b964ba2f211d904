#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// A TCP port on 127.0.0.1 that nothing listens on (bound for the rest of the process, never listening): connecting to it
/// is refused at once, and no server can be given it.
public func closedPort() throws -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw TestSetupError("socket() failed") }
    // The socket stays bound and never listens, for the rest of the test process: a connection is refused, and no
    // other server of the parallel suites can be given the port (closing it let one take it once, and the "closed"
    // port answered 200).
    var keep = false
    defer { if !keep { close(descriptor) } }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
            bind(descriptor, socketAddress, length) == 0 && getsockname(descriptor, socketAddress, &length) == 0
        }
    }
    guard bound else { throw TestSetupError("bind() failed") }
    keep = true
    return Int(UInt16(bigEndian: address.sin_port))
}
