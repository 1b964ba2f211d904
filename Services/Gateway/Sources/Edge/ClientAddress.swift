import HTTPTypes
import Hummingbird
import ServiceKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An IP network in CIDR notation (`10.0.0.0/8`, `2001:db8::/32`) or a single address (`192.0.2.10`).
public struct IPNetwork: Sendable, Hashable, CustomStringConvertible {
    /// The network's address bytes (4 for IPv4, 16 for IPv6), host bits cleared.
    let bytes: [UInt8]
    /// Leading bits that must match.
    let prefixLength: Int

    /// Parses `text`; `nil` when it is not an address or CIDR block, or the prefix is longer than the address.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), var bytes = IPAddressText.bytes(String(parts[0])) else { return nil }
        let maximum = bytes.count * 8
        var length = maximum
        if parts.count == 2 {
            guard parts[1].allSatisfy({ $0.isASCII && $0.isNumber }), let parsed = Int(parts[1]), (0...maximum).contains(parsed) else { return nil }
            length = parsed
        }
        for index in bytes.indices {
            let keep = max(0, min(8, length - index * 8))
            bytes[index] &= keep == 8 ? 0xFF : ~(0xFF >> keep)
        }
        self.bytes = bytes
        prefixLength = length
    }

    /// Whether `address` (4 or 16 bytes) lies in this network; an IPv4 address never lies in an IPv6 network.
    public func contains(_ address: [UInt8]) -> Bool {
        guard address.count == bytes.count else { return false }
        for index in bytes.indices {
            let keep = max(0, min(8, prefixLength - index * 8))
            if keep == 0 { return true }
            let mask: UInt8 = keep == 8 ? 0xFF : ~(0xFF >> keep)
            if address[index] & mask != bytes[index] { return false }
        }
        return true
    }

    /// `address/prefix` in canonical text.
    public var description: String { "\(IPAddressText.text(bytes))/\(prefixLength)" }
}

/// IP address text to bytes and back (`inet_pton` / `inet_ntop`).
enum IPAddressText {
    /// The bytes of an IPv4 or IPv6 address; an IPv4-mapped IPv6 address (`::ffff:192.0.2.1`) gives the IPv4 bytes.
    /// Accepts the forms proxies write into `X-Forwarded-For`: brackets around IPv6 and a port after either.
    static func bytes(_ text: String) -> [UInt8]? {
        var text = Substring(text)
        if text.first == "[" {
            guard let close = text.firstIndex(of: "]") else { return nil }
            text = text[text.index(after: text.startIndex)..<close]
        } else if text.contains("."), let colon = text.firstIndex(of: ":"), !text[text.index(after: colon)...].contains(":") {
            text = text[..<colon]  // 192.0.2.1:443
        }
        var v4 = in_addr()
        if inet_pton(AF_INET, String(text), &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, String(text), &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF { return Array(bytes[12...]) }
        return bytes
    }

    /// Canonical text of 4 or 16 address bytes.
    static func text(_ bytes: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        let converted = bytes.withUnsafeBytes { address in
            inet_ntop(family, address.baseAddress, &buffer, socklen_t(buffer.count))
        }
        guard converted != nil else { return "unknown" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Who the client of a request is, for rate limits, the access log and the `X-Forwarded-For` sent upstream.
///
/// The TCP peer, unless the peer is one of ``trustedProxies`` (a load balancer or ingress in front of the gateway):
/// then `X-Forwarded-For` is read from the right — each proxy appends the address it got the request from — and the
/// first address that is not a trusted proxy is the client (nginx's `real_ip_recursive`, Kong's `trusted_ips`). When
/// every address is trusted, the leftmost one is the client; an entry that is not an IP address ends the walk at the
/// last trustworthy hop. A client cannot choose its rate-limit bucket by sending `X-Forwarded-For` itself: entries
/// left of the first untrusted address are never read. With no trusted proxies (the default) the gateway is the
/// edge and the header is ignored. Addresses come out in canonical text, so one client has one bucket however a proxy
/// spelled its address.
public struct ClientAddressResolver: Sendable {
    /// Networks whose requests may name the client in `X-Forwarded-For`.
    public let trustedProxies: [IPNetwork]

    /// A resolver trusting `trustedProxies`.
    public init(trustedProxies: [IPNetwork]) {
        self.trustedProxies = trustedProxies
    }

    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    /// The client of `request`: see the type's description; `unknown` without a peer address.
    public func client(of request: Request, context: ServiceRequestContext) -> String {
        client(fields: request.headers, peer: context.remoteAddress)
    }

    /// The client of a request with `fields` from the TCP peer `peer`.
    public func client(fields: HTTPFields, peer: String?) -> String {
        guard !trustedProxies.isEmpty else { return peer ?? "unknown" }
        let entries = fields[values: Self.forwardedFor].flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        return resolve(peer: peer, forwardedFor: entries)
    }

    /// The client, given the peer's address and the `X-Forwarded-For` entries in order.
    public func resolve(peer: String?, forwardedFor entries: [String]) -> String {
        guard let peer, let peerBytes = IPAddressText.bytes(peer) else { return peer ?? "unknown" }
        var client = peerBytes
        guard isTrusted(peerBytes) else { return IPAddressText.text(client) }
        for entry in entries.reversed() {
            guard let bytes = IPAddressText.bytes(entry) else { break }
            client = bytes
            if !isTrusted(bytes) { break }
        }
        return IPAddressText.text(client)
    }

    private func isTrusted(_ address: [UInt8]) -> Bool {
        trustedProxies.contains { $0.contains(address) }
    }
}
