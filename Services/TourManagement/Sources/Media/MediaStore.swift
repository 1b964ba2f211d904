import Crypto
import Foundation
import Hummingbird
import Logging
import Messaging
import NIOCore
import _NIOFileSystem

/// Content-addressed media files under `<data dir>/media`, with their metadata in a ``MediaCatalog``.
///
/// Layout: `sha256/<first 2 hex>/<64 hex>` for stored objects and `incoming/` for uploads in progress (same file
/// system, so the final rename is atomic). Uploads are streamed to disk while hashed; no upload or download is ever
/// held whole in memory.
///
/// One process owns a media directory: the lock that keeps garbage collection and finishing uploads apart lives in
/// the process.
public final class MediaStore: Sendable {
    /// The media directory.
    public let root: URL
    public let catalog: any MediaCatalog
    /// How long an upload no tour references is kept (24 h by default).
    public let unreferencedLifetime: TimeInterval
    let locks = KeyedAsyncLock()
    let fileSystem = FileSystem.shared

    /// Bytes gathered before each write to the temporary file.
    static let writeSize = 256 * 1024

    /// A store over `root` (created if missing).
    public init(root: URL, catalog: any MediaCatalog, unreferencedLifetime: TimeInterval = 24 * 3600) throws {
        self.root = root
        self.catalog = catalog
        self.unreferencedLifetime = unreferencedLifetime
        try FileManager.default.createDirectory(at: objectsDirectory, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: incomingDirectory, withIntermediateDirectories: true)
    }

    /// `<dataDirectory>/media`.
    public static func directory(dataDirectory: URL) -> URL {
        dataDirectory.appendingPathComponent("media", isDirectory: true)
    }

    /// The store of a service: files under `<data dir>/media`, the catalog on the storage's backend.
    public static func open(_ stores: TourManagementStores, unreferencedLifetime: TimeInterval = 24 * 3600) throws -> MediaStore {
        try MediaStore(root: directory(dataDirectory: stores.storage.settings.dataDirectory), catalog: stores.mediaCatalog,
                       unreferencedLifetime: unreferencedLifetime)
    }

    var objectsDirectory: URL { root.appendingPathComponent("sha256", isDirectory: true) }
    var incomingDirectory: URL { root.appendingPathComponent("incoming", isDirectory: true) }

    /// Where the object `sha256` lives (whether or not it exists).
    public func fileURL(sha256: String) -> URL {
        objectsDirectory.appendingPathComponent(String(sha256.prefix(2)), isDirectory: true)
            .appendingPathComponent(sha256, isDirectory: false)
    }

    // MARK: Upload

    /// Stores an upload streamed as `body`.
    ///
    /// The format comes from the first ``MediaFormat/sniffLength`` bytes; nothing touches the disk before it is known.
    /// The bytes go to a temporary file in `incoming/` as they arrive, hashed on the way; the upload is refused as soon
    /// as the format is unknown (``MediaError/unsupportedMediaType``) or the count passes the kind's limit
    /// (``MediaError/tooLarge(kind:limitBytes:)``) — also at once when `declaredLength` (the `Content-Length`) says it
    /// will. On any failure, including the body stream's own, the temporary file is deleted and nothing is recorded.
    /// On success the file is renamed atomically to its content address and recorded in the catalog; an identical
    /// upload ends at the same object.
    public func store<Body: AsyncSequence>(_ body: Body, uploadedBy: String, now: Date = Date(), declaredLength: Int? = nil)
        async throws -> MediaObject where Body.Element == ByteBuffer {
        var upload = PendingUpload(path: FilePath(incomingDirectory.appendingPathComponent("\(UUID().uuidString).part").path))
        do {
            for try await chunk in body {
                try await upload.append(chunk, declaredLength: declaredLength, fileSystem: fileSystem)
            }
            try await upload.finishWriting(declaredLength: declaredLength, fileSystem: fileSystem)
        } catch {
            await upload.discard(fileSystem: fileSystem)
            throw error
        }
        let sha256 = upload.digest()
        let format = upload.format!
        let object = MediaObject(sha256: sha256, kind: format.kind, contentType: format.contentType, size: upload.size,
                                 uploadedAt: now, uploadedBy: uploadedBy)
        do {
            return try await locks.withLock(sha256) {
                // Row first, then file: garbage collection (same lock) cannot slip in between, and a crash between the
                // two leaves a row without a file, which collection clears, never a file nobody knows of.
                let entry = try await catalog.record(object)
                let destination = fileURL(sha256: sha256)
                try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
                guard rename(upload.path.string, destination.path) == 0 else {
                    throw MediaStoreIOError(operation: "rename", path: destination.lastPathComponent, errno: errno)
                }
                return entry.object
            }
        } catch {
            await upload.discard(fileSystem: fileSystem)
            throw error
        }
    }

    // MARK: Download

    /// The catalog row of `sha256`, or `nil`.
    public func object(sha256: String) async throws -> MediaObject? {
        guard MediaObject.isValidDigest(sha256) else { return nil }
        return try await catalog.entry(sha256: sha256)?.object
    }

    /// Opens `sha256` for download: the whole object, or `range` of it.
    ///
    /// The body reads the file in 128 KiB chunks as the client takes them.
    /// - Throws: ``MediaError/notFound`` (not a digest, no row, or no file), ``MediaError/rangeNotSatisfiable(size:)``.
    public func open(sha256: String, range: MediaByteRange? = nil) async throws -> MediaDownload {
        guard let object = try await object(sha256: sha256),
              let file = try await RangedFile.open(FilePath(fileURL(sha256: sha256).path), range: range, fileSystem: fileSystem)
        else { throw MediaError.notFound }
        return MediaDownload(object: object, file: file)
    }

    // MARK: Garbage collection

    /// Deletes the files and rows of uploads no tour references that were uploaded more than
    /// ``unreferencedLifetime`` before `now`, and temporary files of uploads abandoned as long ago; returns the
    /// objects removed.
    ///
    /// Each object is removed under the same lock an upload of the same bytes finishes under, and only if its row is
    /// still unreferenced and old at that moment, so a concurrent identical upload or a `markReferenced` wins.
    @discardableResult
    public func collectGarbage(now: Date = Date()) async throws -> [MediaObject] {
        let cutoff = now.addingTimeInterval(-unreferencedLifetime)
        // Media a tour dropped (per the tour_media read model) start their 24 hours now; an hour's margin lets the read
        // model see attachments made moments ago.
        try await catalog.releaseDropped(referencedBefore: now.addingTimeInterval(-3_600), now: now)
        var removed: [MediaObject] = []
        for candidate in try await catalog.unreferenced(olderThan: cutoff) {
            let gone = try await locks.withLock(candidate.sha256) {
                guard try await catalog.removeIfUnreferenced(sha256: candidate.sha256, uploadedBefore: cutoff) else { return false }
                _ = try? await fileSystem.removeItem(at: FilePath(fileURL(sha256: candidate.sha256).path), strategy: .platformDefault, recursively: false)
                return true
            }
            if gone { removed.append(candidate) }
        }
        try await removeAbandonedUploads(before: cutoff)
        return removed
    }

    /// Temporary files not written to since `cutoff` (left by a crash mid-upload).
    func removeAbandonedUploads(before cutoff: Date) async throws {
        let contents = (try? FileManager.default.contentsOfDirectory(
            at: incomingDirectory, includingPropertiesForKeys: [.contentModificationDateKey])) ?? []
        for file in contents {
            let modified = (try? file.resourceValues(forKeys: [.contentModificationDateKey]))?.contentModificationDate
            if let modified, modified < cutoff {
                _ = try? await fileSystem.removeItem(at: FilePath(file.path), strategy: .platformDefault, recursively: false)
            }
        }
    }
}

/// An opened download.
public struct MediaDownload: Sendable {
    public let object: MediaObject
    /// The file, or the range of it asked for, streamed.
    public let file: RangedFile

    /// Bytes of the whole object.
    public var size: Int { file.size }
    /// The bytes the body carries when a range was asked for; `nil` for the whole object.
    public var range: ClosedRange<Int>? { file.range }
    /// The bytes, streamed from the file.
    public var body: ResponseBody { file.body }
    /// Bytes in ``body``.
    public var contentLength: Int { file.contentLength }
}

/// A file-system call of the media store failed.
public struct MediaStoreIOError: Error, CustomStringConvertible {
    public var operation: String
    public var path: String
    public var errno: Int32
    public var description: String { "media store: \(operation) \(path) failed: \(String(cString: strerror(errno)))" }
}

/// An upload on its way to disk.
struct PendingUpload {
    let path: FilePath
    var format: MediaFormat?
    var size = 0
    /// Bytes received before the format is known.
    var head = ByteBuffer()
    /// Bytes not yet written.
    var pending = ByteBuffer()
    var written: Int64 = 0
    var hasher = SHA256()
    var handle: WriteFileHandle?
    var created = false

    init(path: FilePath) {
        self.path = path
    }

    mutating func append(_ chunk: ByteBuffer, declaredLength: Int?, fileSystem: FileSystem) async throws {
        size += chunk.readableBytes
        if let format {
            guard size <= format.kind.maximumBytes else { throw MediaError.tooLarge(kind: format.kind, limitBytes: format.kind.maximumBytes) }
            hash(chunk)
            pending.writeImmutableBuffer(chunk)
            if pending.readableBytes >= MediaStore.writeSize { try await flush() }
            return
        }
        head.writeImmutableBuffer(chunk)
        if head.readableBytes >= MediaFormat.sniffLength {
            try await begin(declaredLength: declaredLength, fileSystem: fileSystem)
        }
    }

    /// Decides the format from `head` and opens the temporary file.
    mutating func begin(declaredLength: Int?, fileSystem: FileSystem) async throws {
        guard let format = MediaFormat.detect(head.readableBytesView) else { throw MediaError.unsupportedMediaType }
        let limit = format.kind.maximumBytes
        guard size <= limit, (declaredLength ?? 0) <= limit else { throw MediaError.tooLarge(kind: format.kind, limitBytes: limit) }
        self.format = format
        // Transactional creation: the file appears under `path` only when closed with its changes made visible.
        handle = try await fileSystem.openFile(forWritingAt: path, options: .newFile(replaceExisting: false))
        hash(head)
        pending = head
        head = ByteBuffer()
        if pending.readableBytes >= MediaStore.writeSize { try await flush() }
    }

    mutating func finishWriting(declaredLength: Int?, fileSystem: FileSystem) async throws {
        if format == nil {
            guard size > 0 else { throw MediaError.unsupportedMediaType }
            try await begin(declaredLength: declaredLength, fileSystem: fileSystem)
        }
        try await flush()
        try await handle!.synchronize()
        let handle = handle!
        self.handle = nil
        try await handle.close(makeChangesVisible: true)
        created = true
    }

    mutating func flush() async throws {
        guard pending.readableBytes > 0, let handle else { return }
        written += try await handle.write(contentsOf: pending, toAbsoluteOffset: written)
        pending.clear()
    }

    mutating func hash(_ buffer: ByteBuffer) {
        buffer.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
    }

    func digest() -> String {
        hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// Closes without making the file visible, or deletes it if it already is.
    mutating func discard(fileSystem: FileSystem) async {
        if let handle {
            self.handle = nil
            try? await handle.close(makeChangesVisible: false)
        }
        if created {
            _ = try? await fileSystem.removeItem(at: path, strategy: .platformDefault, recursively: false)
        }
    }
}

/// Mutual exclusion per key across suspension points.
final class KeyedAsyncLock: Sendable {
    private let state = State()

    private actor State {
        var waiters: [String: [CheckedContinuation<Void, Never>]] = [:]

        func acquire(_ key: String) async {
            if waiters[key] == nil {
                waiters[key] = []
                return
            }
            await withCheckedContinuation { waiters[key]!.append($0) }
        }

        func release(_ key: String) {
            guard var queue = waiters[key] else { return }
            if queue.isEmpty {
                waiters[key] = nil
            } else {
                // Ownership passes straight to the next waiter.
                let next = queue.removeFirst()
                waiters[key] = queue
                next.resume()
            }
        }
    }

    func withLock<T: Sendable>(_ key: String, _ body: () async throws -> T) async throws -> T {
        await state.acquire(key)
        do {
            let result = try await body()
            await state.release(key)
            return result
        } catch {
            await state.release(key)
            throw error
        }
    }
}
