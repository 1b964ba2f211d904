import Foundation
import Yams

/// One documented operation: lower-case method and OpenAPI path template.
public struct OpenAPIRoute: Hashable, Sendable, CustomStringConvertible {
    public let method: String
    public let path: String

    public init(_ method: String, _ path: String) {
        self.method = method
        self.path = path
    }

    public var description: String { "\(method.uppercased()) \(path)" }
}

/// What a service's `openapi.yaml` documents, read from its text (no YAML library needed for this much).
public enum OpenAPIText {
    public static let methods = ["get", "put", "post", "delete", "patch"]

    /// The operations under `paths:`, by a scan of the YAML text: a path is a two-space-indented key starting with `/`,
    /// its operations the four-space-indented method keys below it, up to the next path or top-level key. An operation
    /// documented twice is listed twice.
    public static func routes(in yaml: String) -> [OpenAPIRoute] {
        var routes: [OpenAPIRoute] = []
        scan(yaml, operation: { routes.append($0) }, line: { _, _ in })
        return routes
    }

    /// Each operation's text: its method line and every line indented below it, by the same scan as `routes(in:)`.
    public static func operations(in yaml: String) -> [OpenAPIRoute: String] {
        var operations: [OpenAPIRoute: String] = [:]
        scan(yaml, operation: { _ in }, line: { line, current in
            if let current { operations[current, default: ""] += line + "\n" }
        })
        return operations
    }

    /// The one scan of `paths:`: `operation` for each method key, `line` for every non-blank, non-comment line with the
    /// operation it belongs to (`nil` outside operations).
    private static func scan(_ yaml: String, operation: (OpenAPIRoute) -> Void, line visit: (Substring, OpenAPIRoute?) -> Void) {
        var inPaths = false
        var path: String?
        var current: OpenAPIRoute?
        for rawLine in yaml.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = rawLine.hasSuffix("\r") ? rawLine.dropLast() : rawLine
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let indent = line.prefix { $0 == " " }.count
            if indent <= 4 { current = nil }
            if indent == 0 {
                inPaths = trimmed == "paths:"
                path = nil
            } else if inPaths, indent == 2 {
                var key = trimmed
                if key.hasSuffix(":") {
                    key.removeLast()
                    if key.count >= 2, let first = key.first, first == "'" || first == "\"", key.last == first {
                        key = String(key.dropFirst().dropLast())
                    }
                    path = key.hasPrefix("/") ? key : nil
                } else {
                    path = nil
                }
            } else if inPaths, indent == 4, let path {
                let name = trimmed.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
                if methods.contains(name) || ["head", "options", "trace"].contains(name) {
                    current = OpenAPIRoute(name, path)
                    operation(OpenAPIRoute(name, path))
                }
            }
            visit(line, current)
        }
    }

    /// The response status codes an operation's text (from `operations(in:)`) documents, e.g. `["200", "404"]`.
    public static func statuses(in operation: String) -> Set<String> {
        var statuses: Set<String> = []
        var inResponses = false
        for line in operation.split(separator: "\n") {
            let indent = line.prefix { $0 == " " }.count
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if indent == 6 { inResponses = trimmed.hasPrefix("responses:") }
            guard inResponses, indent == 8 else { continue }
            let key = trimmed.split(separator: ":", maxSplits: 1).first.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "'\"")) } ?? ""
            if key.count == 3, key.allSatisfy(\.isNumber) { statuses.insert(key) }
        }
        return statuses
    }

    /// The `openapi.yaml` of a service in the source tree, e.g. `Services/Auth/Sources/openapi.yaml`, found from a test file.
    public static func document(_ relativePath: String, testFile: String = #filePath) throws -> String {
        var directory = URL(fileURLWithPath: testFile).deletingLastPathComponent()
        for _ in 0..<6 {
            let candidate = directory.appendingPathComponent(relativePath)
            if FileManager.default.fileExists(atPath: candidate.path) {
                let text = try String(contentsOf: candidate, encoding: .utf8)
                try requireValidYAML(text, name: relativePath)
                return text
            }
            directory = directory.deletingLastPathComponent()
        }
        throw TestSetupError("\(relativePath) not found above \(testFile)")
    }

    /// Throws unless `text` parses as YAML: the route checks read the text line by line, and a document they accept
    /// may still not load in a client or in schemathesis (an unescaped `'` in a single-quoted string did once).
    public static func requireValidYAML(_ text: String, name: String) throws {
        do {
            _ = try Yams.load(yaml: text)
        } catch {
            throw TestSetupError("\(name) is not valid YAML: \(error)")
        }
    }
}
