import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import _NIOFileSystem

/// A file (or a byte range of it) streamed as a response body in 128 KiB chunks as the client takes them: media
/// downloads and offline bundles, both resumable with HTTP range requests (RFC 9110 §14).
public struct RangedFile: Sendable {
    public static let chunkSize = 128 * 1024

    /// The file's size.
    public let size: Int
    /// The bytes served (`nil`: the whole file).
    public let range: ClosedRange<Int>?
    public let body: ResponseBody

    /// Bytes in the body.
    public var contentLength: Int { range.map { $0.count } ?? size }

    /// Opens `path` for `range`; `nil` when it is not a regular file.
    /// - Throws: ``MediaError/rangeNotSatisfiable(size:)``.
    public static func open(_ path: FilePath, range: MediaByteRange?, fileSystem: FileSystem = .shared) async throws -> RangedFile? {
        guard let info = try await fileSystem.info(forFileAt: path), info.type == .regular else { return nil }
        let size = Int(info.size)
        var selected: ClosedRange<Int>? = nil
        if let range {
            guard let resolved = range.resolve(size: size) else { throw MediaError.rangeNotSatisfiable(size: size) }
            selected = resolved
        }
        let bytes = selected.map { Int64($0.lowerBound)..<Int64($0.upperBound + 1) } ?? 0..<Int64(size)
        let body = ResponseBody(contentLength: bytes.count) { writer in
            if !bytes.isEmpty {
                try await fileSystem.withFileHandle(forReadingAt: path) { handle in
                    for try await chunk in handle.readChunks(in: bytes, chunkLength: .bytes(Int64(chunkSize))) {
                        try await writer.write(chunk)
                    }
                }
            }
            try await writer.finish(nil)
        }
        return RangedFile(size: size, range: selected, body: body)
    }

    /// The response to a GET of an immutable resource with strong ETag `etag`: 304 for a matching `If-None-Match`, 206
    /// for a satisfiable single `Range` (honouring `If-Range`), else 200; `open` opens the file for the range chosen.
    public static func response(to request: Request, etag: String, contentType: String, cacheControl: String,
                                exists: () async throws -> Bool,
                                open: (MediaByteRange?) async throws -> RangedFile) async throws -> Response {
        var headers = HTTPFields()
        headers[.eTag] = etag
        headers[.cacheControl] = cacheControl
        headers[.acceptRanges] = "bytes"
        if let ifNoneMatch = joined(request.headers[values: .ifNoneMatch]), matches(ifNoneMatch, etag: etag) {
            guard try await exists() else { throw MediaError.notFound }
            return Response(status: .notModified, headers: headers)
        }
        var range: MediaByteRange? = nil
        if let header = joined(request.headers[values: .range]), case .single(let single) = MediaByteRange.parse(header) {
            // If-Range: only a strong match of our ETag keeps the range (RFC 9110 §13.1.5); dates never match.
            if let ifRange = request.headers[.ifRange] {
                range = ifRange.trimmingCharacters(in: .whitespaces) == etag ? single : nil
            } else {
                range = single
            }
        }
        let file = try await open(range)
        headers[.contentType] = contentType
        headers[.contentLength] = String(file.contentLength)
        if let selected = file.range {
            headers[.contentRange] = "bytes \(selected.lowerBound)-\(selected.upperBound)/\(file.size)"
            return Response(status: .partialContent, headers: headers, body: file.body)
        }
        return Response(status: .ok, headers: headers, body: file.body)
    }

    /// Whether an `If-None-Match` list names `etag` (weak comparison, RFC 9110 §13.1.2) or is `*`.
    static func matches(_ ifNoneMatch: String, etag: String) -> Bool {
        ifNoneMatch.split(separator: ",").contains { candidate in
            var tag = candidate.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            return tag == etag
        }
    }

    private static func joined(_ values: [String]) -> String? { values.isEmpty ? nil : values.joined(separator: ",") }
}
