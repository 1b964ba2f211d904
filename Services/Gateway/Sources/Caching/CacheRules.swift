import Foundation
import HTTPTypes
import Hummingbird

/// When the gateway may store or serve a public answer, and under which key.
public enum CacheRules {
    /// Request fields that can make an answer differ and are therefore part of the key.
    static let keyedRequestFields: [HTTPField.Name] = [.accept, .acceptLanguage, .acceptEncoding]

    /// Whether `request` may be answered from (and stored into) the cache: no credentials of any kind, and the client
    /// did not ask to bypass caches.
    public static func isEligible(_ request: Request) -> Bool {
        isEligible(fields: request.headers)
    }

    /// ``isEligible(_:)`` of a request with `fields`.
    public static func isEligible(fields: HTTPFields) -> Bool {
        guard fields[.authorization] == nil, fields[.cookie] == nil else { return false }
        // Byte tests, no joined or lower-cased copy (and no Foundation string search) per request.
        for value in fields[values: .cacheControl] where contains(value, "no-cache") || contains(value, "no-store") {
            return false
        }
        return true
    }

    /// Whether `value` contains `needle` (lower-case ASCII), ignoring ASCII case.
    static func contains(_ value: String, _ needle: StaticString) -> Bool {
        let pattern = UnsafeBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount)
        var value = value
        return value.withUTF8 { bytes in
            guard bytes.count >= pattern.count else { return false }
            outer: for start in 0...(bytes.count - pattern.count) {
                for offset in 0..<pattern.count {
                    var byte = bytes[start + offset]
                    if byte >= UInt8(ascii: "A"), byte <= UInt8(ascii: "Z") { byte += 32 }
                    if byte != pattern[offset] { continue outer }
                }
                return true
            }
            return false
        }
    }

    /// The key of `request`: method, path, query with its parameters sorted, and the content-negotiation fields.
    public static func key(for request: Request) -> String {
        key(method: request.method, path: request.uri.path, query: request.uri.query, fields: request.headers)
    }

    /// ``key(for:)`` of a request given by its parts.
    public static func key(method: HTTPRequest.Method, path: String, query: String?, fields: HTTPFields) -> String {
        var key = "\(method.rawValue) \(path)?\(normalizedQuery(query))"
        for name in keyedRequestFields {
            key += "|\(name.canonicalName)=\(fields[values: name].joined(separator: ","))"
        }
        return key
    }

    /// `b=2&a=1&&a=0` → `a=0&a=1&b=2`: parameter order does not change the answer, so it does not split the cache.
    static func normalizedQuery(_ query: String?) -> String {
        guard let query, !query.isEmpty else { return "" }
        return query.split(separator: "&").filter { !$0.isEmpty }.sorted().joined(separator: "&")
    }

    /// How long an upstream answer may be kept (at most `ttl`), or `nil` when it must not be stored: anything but 200,
    /// `Cache-Control: private/no-store/no-cache` (or `max-age=0`), `Set-Cookie`, or `Vary` on anything beyond content
    /// negotiation (`Authorization`, `Cookie`, `*`, …).
    public static func storableDuration(status: HTTPResponse.Status, headers: HTTPFields, ttl: Duration) -> Duration? {
        guard status == .ok, ttl > .zero, headers[.setCookie] == nil else { return nil }
        var lifetime = ttl
        for directive in headers[values: .cacheControl].flatMap({ $0.split(separator: ",") }) {
            let parts = directive.trimmingCharacters(in: .whitespaces).lowercased().split(separator: "=", maxSplits: 1)
            guard let name = parts.first else { continue }
            switch name {
            case "private", "no-store", "no-cache": return nil
            case "max-age", "s-maxage":
                guard parts.count == 2, let seconds = Int(parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))) else { return nil }
                lifetime = min(lifetime, .seconds(seconds))
            default: continue
            }
        }
        let allowedVary: Set<String> = Set(keyedRequestFields.map { $0.canonicalName })
        for field in headers[values: .vary].flatMap({ $0.split(separator: ",") }) {
            let name = field.trimmingCharacters(in: .whitespaces).lowercased()
            guard name.isEmpty || allowedVary.contains(name) else { return nil }
        }
        return lifetime > .zero ? lifetime : nil
    }
}
