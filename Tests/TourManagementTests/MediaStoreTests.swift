import Crypto
import EventSourcing
import Foundation
import Logging
import Messaging
import NIOCore
import ServiceTesting
import Testing
@testable import TourManagement

/// Small files with real magic bytes.
enum MediaSamples {
    /// A complete 1×1 RGBA PNG.
    static let png = [UInt8](Data(base64Encoded:
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")!)
    /// JPEG: SOI, then a JFIF APP0 segment.
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0x00, 0x01, 0x01, 0x00, 0x00, 0x01,
                                                                                            0x00, 0x01, 0x00, 0x00, 0xFF, 0xD9]
    /// MP3 with an ID3v2.4 tag header (empty tag), then a frame header.
    static let mp3ID3: [UInt8] = Array("ID3".utf8) + [0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00] + mp3Frame
    /// MPEG-1 Layer III, 128 kbit/s, 44.1 kHz, no CRC: FF FB 90 64.
    static let mp3Frame: [UInt8] = [0xFF, 0xFB, 0x90, 0x64] + [UInt8](repeating: 0, count: 12)
    /// MPEG-2 Layer III, 64 kbit/s, 22.05 kHz (FF F3 …).
    static let mp3MPEG2Frame: [UInt8] = [0xFF, 0xF3, 0x80, 0xC4] + [UInt8](repeating: 0, count: 12)
    /// OGG page header: "OggS", version 0, BOS flag.
    static let ogg: [UInt8] = Array("OggS".utf8) + [0x00, 0x02] + [UInt8](repeating: 0, count: 22)
    /// ISO BMFF `ftyp` box of `size` 24 with major brand `brand` and two compatible brands.
    static func ftyp(_ brand: String, compatible: [String] = ["isom", "mp42"]) -> [UInt8] {
        let body = Array(brand.utf8) + [0x00, 0x00, 0x02, 0x00] + compatible.flatMap { Array($0.utf8) }
        let size = UInt32(8 + body.count)
        return withUnsafeBytes(of: size.bigEndian) { Array($0) } + Array("ftyp".utf8) + body
            + [0x00, 0x00, 0x00, 0x08] + Array("free".utf8)
    }
    /// ADTS AAC frame header (sync FFF, layer 00): not MP3.
    static let adts: [UInt8] = [0xFF, 0xF1, 0x50, 0x80, 0x02, 0x1F, 0xFC] + [UInt8](repeating: 0, count: 9)

    /// The PNG followed by `padding` pseudo-random bytes, so downloads span several read chunks.
    static func largePNG(padding: Int, seed: UInt64 = 1) -> [UInt8] {
        var state = seed
        var bytes = png
        bytes.reserveCapacity(png.count + padding)
        for _ in 0..<padding {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            bytes.append(UInt8(truncatingIfNeeded: state >> 33))
        }
        return bytes
    }

    static func sha256(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }
}

/// A request-body stand-in: `count` chunks of `chunkSize` bytes made on demand (never all in memory), the first one
/// starting with `prefix`; counts how many chunks were pulled.
struct GeneratedBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let prefix: [UInt8]
    let chunkSize: Int
    let count: Int
    let pulled = Counter()

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func increment() { lock.withLock { value += 1 } }
        var current: Int { lock.withLock { value } }
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        let body: GeneratedBody
        var index = 0
        mutating func next() async throws -> ByteBuffer? {
            guard index < body.count else { return nil }
            var chunk = [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: body.chunkSize)
            if index == 0 { chunk.replaceSubrange(0..<body.prefix.count, with: body.prefix) }
            index += 1
            body.pulled.increment()
            return ByteBuffer(bytes: chunk)
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(body: self) }
}

/// One byte array delivered in chunks.
struct ChunkedBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let chunks: [ByteBuffer]

    init(_ bytes: [UInt8], chunkSize: Int = 64 * 1024) {
        chunks = stride(from: 0, to: bytes.count, by: chunkSize).map { ByteBuffer(bytes: bytes[$0..<Swift.min($0 + chunkSize, bytes.count)]) }
    }

    func makeAsyncIterator() -> IndexingIterator<[ByteBuffer]>.AsyncAdapter { .init(base: chunks.makeIterator()) }
}

extension IndexingIterator {
    struct AsyncAdapter: AsyncIteratorProtocol {
        var base: IndexingIterator
        mutating func next() async -> Element? { base.next() }
    }
}

enum MediaTestSupport {
    static var quiet: Logger {
        var logger = Logger(label: "test.media")
        logger.logLevel = .warning
        return logger
    }

    /// Runs `body` with a media store under a fresh data directory, its catalog on `backend`.
    static func withStore<T: Sendable>(_ backend: TestBackend = .sqlite,
                                       _ body: @Sendable (MediaStore, TemporaryDirectory) async throws -> T) async throws -> T {
        let directory = TemporaryDirectory("waypoint-media")
        defer { directory.remove() }
        return try await ServiceStorage.withOpen(try backend.runtime("tour-management", in: directory), logger: quiet) { storage in
            try await body(try MediaStore.open(try await TourManagementStores.open(storage)), directory)
        }
    }

    /// Regular files under `url`, relative paths.
    static func files(under url: URL) -> [String] {
        guard let enumerator = FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
        return enumerator.compactMap { item in
            guard let file = item as? URL, (try? file.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true else { return nil }
            return String(file.path.dropFirst(url.path.count))
        }
    }

    static let t0 = Date(timeIntervalSince1970: 1_750_000_000)
}

@Suite("tour-management: media formats by magic bytes")
struct MediaFormatTests {
    @Test("each accepted format is recognised from its leading bytes, with its kind and content type")
    func accepted() {
        let cases: [([UInt8], MediaFormat, MediaKind, String)] = [
            (MediaSamples.jpeg, .jpeg, .image, "image/jpeg"),
            (MediaSamples.png, .png, .image, "image/png"),
            (MediaSamples.mp3ID3, .mp3, .audio, "audio/mpeg"),
            (MediaSamples.mp3Frame, .mp3, .audio, "audio/mpeg"),
            (MediaSamples.mp3MPEG2Frame, .mp3, .audio, "audio/mpeg"),
            (MediaSamples.ftyp("M4A "), .m4a, .audio, "audio/mp4"),
            (MediaSamples.ftyp("M4B "), .m4a, .audio, "audio/mp4"),
            (MediaSamples.ogg, .ogg, .audio, "audio/ogg"),
            (MediaSamples.ftyp("isom"), .mp4, .video, "video/mp4"),
            (MediaSamples.ftyp("iso2"), .mp4, .video, "video/mp4"),
            (MediaSamples.ftyp("mp41"), .mp4, .video, "video/mp4"),
            (MediaSamples.ftyp("mp42"), .mp4, .video, "video/mp4"),
            (MediaSamples.ftyp("avc1"), .mp4, .video, "video/mp4"),
            (MediaSamples.ftyp("dash"), .mp4, .video, "video/mp4"),
        ]
        for (bytes, format, kind, contentType) in cases {
            let detected = MediaFormat.detect(bytes)
            #expect(detected == format, "\(bytes.prefix(12))")
            #expect(detected?.kind == kind)
            #expect(detected?.contentType == contentType)
            // Twelve bytes are always enough.
            #expect(MediaFormat.detect(bytes.prefix(MediaFormat.sniffLength)) == format)
        }
        #expect(MediaFormat.detect([0xFF, 0xD8, 0xFF]) == .jpeg)
    }

    @Test("anything else is unsupported: GIF, PDF, QuickTime and HEIF brands, AAC ADTS, text, truncated magic, nothing")
    func rejected() {
        let cases: [[UInt8]] = [
            Array("GIF89a\u{01}\u{00}\u{01}\u{00}\u{00}\u{00}".utf8),
            Array("%PDF-1.7\n%âãÏÓ".utf8),
            MediaSamples.ftyp("qt  "),
            MediaSamples.ftyp("heic"),
            MediaSamples.ftyp("3gp4"),
            MediaSamples.adts,
            Array("<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8),
            Array("RIFF\u{24}\u{00}\u{00}\u{00}WAVEfmt ".utf8),
            [0x89, 0x50, 0x4E, 0x47],
            [0xFF, 0xD8],
            [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
            Array("ID3".utf8) + [0xFF, 0xFF, 0, 0, 0, 0, 0, 0, 0],
            [],
        ]
        for bytes in cases {
            #expect(MediaFormat.detect(bytes) == nil, "\(bytes.prefix(12))")
        }
    }

    @Test("limits: images 5 MiB, audio and video 100 MiB")
    func limits() {
        #expect(MediaKind.image.maximumBytes == 5_242_880)
        #expect(MediaKind.audio.maximumBytes == 104_857_600)
        #expect(MediaKind.video.maximumBytes == 104_857_600)
        #expect(MediaKind.largestMaximumBytes == 104_857_600)
    }
}

@Suite("tour-management: Range header parsing")
struct MediaByteRangeTests {
    @Test("single ranges, suffixes and open ends resolve against the size; nonsense is ignored")
    func parsing() {
        #expect(MediaByteRange.parse("bytes=0-9") == .single(.from(0, through: 9)))
        #expect(MediaByteRange.parse(" Bytes = 5- ") == .single(.from(5, through: nil)))
        #expect(MediaByteRange.parse("bytes=-100") == .single(.suffix(100)))
        #expect(MediaByteRange.parse("bytes=0-1, 5-6") == .multiple)
        #expect(MediaByteRange.parse("bytes=9-1") == .ignored)
        #expect(MediaByteRange.parse("items=0-1") == .ignored)
        #expect(MediaByteRange.parse("bytes=a-b") == .ignored)
        #expect(MediaByteRange.parse("bytes=") == .ignored)
        #expect(MediaByteRange.parse("bytes=-") == .ignored)
        #expect(MediaByteRange.parse("bytes=0-99999999999999999999999") == .single(.from(0, through: Int.max)))

        #expect(MediaByteRange.from(0, through: 9).resolve(size: 100) == 0...9)
        #expect(MediaByteRange.from(90, through: 500).resolve(size: 100) == 90...99)
        #expect(MediaByteRange.from(0, through: Int.max).resolve(size: 100) == 0...99)
        #expect(MediaByteRange.from(99, through: nil).resolve(size: 100) == 99...99)
        #expect(MediaByteRange.from(100, through: nil).resolve(size: 100) == nil)
        #expect(MediaByteRange.suffix(10).resolve(size: 100) == 90...99)
        #expect(MediaByteRange.suffix(1000).resolve(size: 100) == 0...99)
        #expect(MediaByteRange.suffix(0).resolve(size: 100) == nil)
    }
}

@Suite("tour-management: media store")
struct MediaStoreTests {
    @Test("a 7 MiB image streamed in 64 KiB chunks is refused with 413 as soon as it passes 5 MiB; nothing stays on disk")
    func oversizedImage() async throws {
        try await MediaTestSupport.withStore { store, _ in
            let body = GeneratedBody(prefix: MediaSamples.jpeg, chunkSize: 64 * 1024, count: 7 * 16)
            await #expect(throws: MediaError.tooLarge(kind: .image, limitBytes: 5 * 1_048_576)) {
                try await store.store(body, uploadedBy: "guide-1", now: MediaTestSupport.t0)
            }
            // 5 MiB is 80 chunks: the 81st is the first over the limit, and nothing after it was read.
            #expect(body.pulled.current == 81)
            #expect(MediaTestSupport.files(under: store.root).isEmpty)
            #expect(try await store.catalog.unreferenced(olderThan: .distantFuture).isEmpty)

            // A declared length over the limit is refused right after the first chunk.
            let declared = GeneratedBody(prefix: MediaSamples.png, chunkSize: 64 * 1024, count: 7 * 16)
            await #expect(throws: MediaError.tooLarge(kind: .image, limitBytes: 5 * 1_048_576)) {
                try await store.store(declared, uploadedBy: "guide-1", now: MediaTestSupport.t0, declaredLength: 7 * 1_048_576)
            }
            #expect(declared.pulled.current == 1)
            #expect(MediaTestSupport.files(under: store.root).isEmpty)

            // Audio may be larger than 5 MiB.
            let audio = GeneratedBody(prefix: MediaSamples.ogg, chunkSize: 64 * 1024, count: 7 * 16)
            let stored = try await store.store(audio, uploadedBy: "guide-1", now: MediaTestSupport.t0)
            #expect(stored.size == 7 * 1_048_576 && stored.kind == .audio && stored.contentType == "audio/ogg")
        }
    }

    @Test("unknown bytes are refused with 415 after the first chunk; an empty body too; nothing stays on disk")
    func unknownBytes() async throws {
        try await MediaTestSupport.withStore { store, _ in
            let body = GeneratedBody(prefix: Array("GIF89a".utf8), chunkSize: 64 * 1024, count: 16)
            await #expect(throws: MediaError.unsupportedMediaType) {
                try await store.store(body, uploadedBy: "guide-1", now: MediaTestSupport.t0)
            }
            #expect(body.pulled.current == 1)
            await #expect(throws: MediaError.unsupportedMediaType) {
                try await store.store(ChunkedBody([]), uploadedBy: "guide-1", now: MediaTestSupport.t0)
            }
            // Magic split across tiny chunks still decides after 12 bytes.
            await #expect(throws: MediaError.unsupportedMediaType) {
                try await store.store(ChunkedBody(Array("%PDF-1.7 and then some text".utf8), chunkSize: 1), uploadedBy: "guide-1")
            }
            #expect(MediaTestSupport.files(under: store.root).isEmpty)
            #expect(MediaError.unsupportedMediaType.problem.status == .unsupportedMediaType)
            #expect(MediaError.unsupportedMediaType.problem.code == "unsupported-media-type")
        }
    }

    @Test("a body stream failing midway leaves nothing behind")
    func failingBody() async throws {
        struct Broken: Error {}
        struct FailingBody: AsyncSequence, Sendable {
            typealias Element = ByteBuffer
            struct AsyncIterator: AsyncIteratorProtocol {
                var sent = 0
                mutating func next() async throws -> ByteBuffer? {
                    sent += 1
                    if sent > 3 { throw Broken() }
                    return ByteBuffer(bytes: sent == 1 ? MediaSamples.png + [UInt8](repeating: 1, count: 300_000) : [UInt8](repeating: 2, count: 300_000))
                }
            }
            func makeAsyncIterator() -> AsyncIterator { AsyncIterator() }
        }
        try await MediaTestSupport.withStore { store, _ in
            await #expect(throws: Broken.self) { try await store.store(FailingBody(), uploadedBy: "guide-1") }
            #expect(MediaTestSupport.files(under: store.root).isEmpty)
        }
    }

    @Test("a PNG is stored at sha256/<2 hex>/<64 hex> with its SHA-256; the same bytes again dedupe to that object")
    func storeAndDedupe() async throws {
        try await MediaTestSupport.withStore { store, _ in
            let bytes = MediaSamples.largePNG(padding: 200_000)
            let digest = MediaSamples.sha256(bytes)
            let first = try await store.store(ChunkedBody(bytes, chunkSize: 32 * 1024), uploadedBy: "guide-1", now: MediaTestSupport.t0)
            #expect(first.sha256 == digest)
            #expect(first.kind == .image && first.contentType == "image/png" && first.size == bytes.count)
            #expect(first.uploadedBy == "guide-1")
            #expect(abs(first.uploadedAt.timeIntervalSince(MediaTestSupport.t0)) < 0.001)
            let path = store.fileURL(sha256: digest)
            #expect(path.path.hasSuffix("/media/sha256/\(digest.prefix(2))/\(digest)"))
            let onDisk = try [UInt8](Data(contentsOf: path))
            #expect(onDisk == bytes)
            #expect(MediaSamples.sha256(onDisk) == digest)

            let later = MediaTestSupport.t0.addingTimeInterval(60)
            let second = try await store.store(ChunkedBody(bytes, chunkSize: 7_000), uploadedBy: "guide-2", now: later)
            #expect(second.sha256 == first.sha256 && second.size == first.size)
            #expect(second.uploadedBy == "guide-1")
            #expect(abs(second.uploadedAt.timeIntervalSince(later)) < 0.001)
            #expect(MediaTestSupport.files(under: store.root) == ["/sha256/\(digest.prefix(2))/\(digest)"])
            #expect(try [UInt8](Data(contentsOf: path)) == bytes)
        }
    }

    @Test("garbage collection removes an unreferenced upload older than 24 h, keeps a referenced and a fresh one",
          arguments: TestBackend.enabled)
    func garbageCollection(backend: TestBackend) async throws {
        try await MediaTestSupport.withStore(backend) { store, _ in
            let t0 = MediaTestSupport.t0
            let old = try await store.store(ChunkedBody(MediaSamples.largePNG(padding: 10, seed: 1)), uploadedBy: "g", now: t0)
            let referenced = try await store.store(ChunkedBody(MediaSamples.largePNG(padding: 10, seed: 2)), uploadedBy: "g", now: t0)
            let fresh = try await store.store(ChunkedBody(MediaSamples.jpeg), uploadedBy: "g", now: t0.addingTimeInterval(20 * 3600))
            #expect(try await store.catalog.markReferenced([referenced.sha256, String(repeating: "0", count: 64)],
                                                          at: t0.addingTimeInterval(60)) == 1)

            // Not yet 24 h: nothing goes.
            #expect(try await store.collectGarbage(now: t0.addingTimeInterval(23 * 3600)).isEmpty)
            let now = t0.addingTimeInterval(25 * 3600)
            let removed = try await store.collectGarbage(now: now)
            #expect(removed.map(\.sha256) == [old.sha256])
            #expect(!FileManager.default.fileExists(atPath: store.fileURL(sha256: old.sha256).path))
            #expect(try await store.object(sha256: old.sha256) == nil)
            await #expect(throws: MediaError.notFound) { try await store.open(sha256: old.sha256) }
            for kept in [referenced, fresh] {
                #expect(FileManager.default.fileExists(atPath: store.fileURL(sha256: kept.sha256).path))
                #expect(try await store.object(sha256: kept.sha256) != nil)
            }
            #expect(try await store.catalog.entry(sha256: referenced.sha256)?.referencedAt != nil)

            // Once no tour refers to it any more, an old upload is garbage too.
            #expect(try await store.catalog.markUnreferenced([referenced.sha256]) == 1)
            #expect(try await store.collectGarbage(now: now).map(\.sha256) == [referenced.sha256])
            #expect(try await store.collectGarbage(now: now).isEmpty)
            #expect(try await store.collectGarbage(now: t0.addingTimeInterval(45 * 3600)).map(\.sha256) == [fresh.sha256])
            #expect(MediaTestSupport.files(under: store.root).isEmpty)
        }
    }

    @Test("an identical upload finishing while garbage collection runs always ends with both the row and the file")
    func collectionRacesUpload() async throws {
        try await MediaTestSupport.withStore { store, _ in
            let t0 = MediaTestSupport.t0
            let now = t0.addingTimeInterval(25 * 3600)
            for round in 0..<20 {
                let bytes = MediaSamples.largePNG(padding: 100_000, seed: UInt64(round))
                let object = try await store.store(ChunkedBody(bytes), uploadedBy: "g", now: t0)
                async let collected = store.collectGarbage(now: now)
                async let uploaded = store.store(ChunkedBody(bytes, chunkSize: 8 * 1024), uploadedBy: "g", now: now)
                _ = try await (collected, uploaded)
                let entry = try await store.catalog.entry(sha256: object.sha256)
                #expect(entry != nil, "round \(round)")
                #expect(FileManager.default.fileExists(atPath: store.fileURL(sha256: object.sha256).path), "round \(round)")
                #expect(try [UInt8](Data(contentsOf: store.fileURL(sha256: object.sha256))) == bytes)
            }
        }
    }

    @Test("the background collector removes old unreferenced uploads until cancelled")
    func backgroundCollector() async throws {
        try await MediaTestSupport.withStore { store, _ in
            let old = try await store.store(ChunkedBody(MediaSamples.png), uploadedBy: "g", now: Date().addingTimeInterval(-25 * 3600))
            let collector = MediaGarbageCollector(store: store, interval: .milliseconds(20), logger: MediaTestSupport.quiet)
            let running = Task { try await collector.run() }
            var gone = false
            try await eventually(timeout: .seconds(30)) {
                // The row goes first, then the file: wait for both.
                gone = try await store.object(sha256: old.sha256) == nil && MediaTestSupport.files(under: store.root).isEmpty
                return gone
            }
            running.cancel()
            try await running.value
            #expect(gone)
            #expect(MediaTestSupport.files(under: store.root).isEmpty)
        }
    }

    @Test("abandoned temporary files older than the lifetime are removed by garbage collection")
    func abandonedTemporaryFiles() async throws {
        try await MediaTestSupport.withStore { store, _ in
            let stale = store.incomingDirectory.appendingPathComponent("crashed.part")
            let recent = store.incomingDirectory.appendingPathComponent("running.part")
            try Data([1, 2, 3]).write(to: stale)
            try Data([4, 5, 6]).write(to: recent)
            try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-25 * 3600)], ofItemAtPath: stale.path)
            _ = try await store.collectGarbage(now: Date())
            #expect(MediaTestSupport.files(under: store.root) == ["/incoming/running.part"])
        }
    }

    @Test("the catalog records, dedupes, references and removes rows", arguments: TestBackend.enabled)
    func catalog(backend: TestBackend) async throws {
        try await MediaTestSupport.withStore(backend) { store, _ in
            let catalog = store.catalog
            let t0 = MediaTestSupport.t0
            let a = MediaObject(sha256: String(repeating: "a", count: 64), kind: .video, contentType: "video/mp4", size: 50_000_000,
                                uploadedAt: t0, uploadedBy: "guide-1")
            let recorded = try await catalog.record(a)
            #expect(recorded.referencedAt == nil)
            #expect(recorded.object.sha256 == a.sha256 && recorded.object.kind == .video && recorded.object.size == 50_000_000)
            #expect(abs(recorded.object.uploadedAt.timeIntervalSince(t0)) < 0.001)

            // Re-recording keeps the first uploader and the later time, also when recorded out of order.
            var again = a
            again.uploadedBy = "guide-2"
            again.uploadedAt = t0.addingTimeInterval(100)
            #expect(try await catalog.record(again).object.uploadedBy == "guide-1")
            again.uploadedAt = t0.addingTimeInterval(50)
            let latest = try await catalog.record(again).object.uploadedAt
            #expect(abs(latest.timeIntervalSince(t0.addingTimeInterval(100))) < 0.001)

            #expect(try await catalog.unreferenced(olderThan: t0.addingTimeInterval(101)).map(\.sha256) == [a.sha256])
            #expect(try await catalog.unreferenced(olderThan: t0.addingTimeInterval(100)).isEmpty)
            #expect(try await catalog.markReferenced([a.sha256, a.sha256], at: t0.addingTimeInterval(200)) == 1)
            #expect(try await catalog.markReferenced([a.sha256], at: t0.addingTimeInterval(300)) == 1)
            let referencedAt = try #require(try await catalog.entry(sha256: a.sha256)?.referencedAt)
            #expect(abs(referencedAt.timeIntervalSince(t0.addingTimeInterval(200))) < 0.001)
            #expect(try await catalog.unreferenced(olderThan: .distantFuture).isEmpty)
            #expect(try await catalog.removeIfUnreferenced(sha256: a.sha256, uploadedBefore: .distantFuture) == false)
            #expect(try await catalog.markUnreferenced([a.sha256]) == 1)
            #expect(try await catalog.removeIfUnreferenced(sha256: a.sha256, uploadedBefore: t0.addingTimeInterval(100)) == false)
            #expect(try await catalog.removeIfUnreferenced(sha256: a.sha256, uploadedBefore: t0.addingTimeInterval(101)))
            #expect(try await catalog.entry(sha256: a.sha256) == nil)
            #expect(try await catalog.markReferenced([]) == 0)
            #expect(try await catalog.markUnreferenced([a.sha256]) == 0)
        }
    }

    @Test("open streams the whole object or a range; outside ranges and unknown addresses are refused")
    func open() async throws {
        try await MediaTestSupport.withStore { store, _ in
            let bytes = MediaSamples.largePNG(padding: 400_000)
            let object = try await store.store(ChunkedBody(bytes), uploadedBy: "g")
            let whole = try await store.open(sha256: object.sha256)
            #expect(whole.size == bytes.count && whole.range == nil && whole.contentLength == bytes.count)
            #expect(whole.body.contentLength == bytes.count)
            let part = try await store.open(sha256: object.sha256, range: .from(100, through: 300_000))
            #expect(part.range == 100...300_000 && part.contentLength == 299_901)
            await #expect(throws: MediaError.rangeNotSatisfiable(size: bytes.count)) {
                try await store.open(sha256: object.sha256, range: .from(bytes.count, through: nil))
            }
            await #expect(throws: MediaError.notFound) { try await store.open(sha256: String(repeating: "b", count: 64)) }
            await #expect(throws: MediaError.notFound) { try await store.open(sha256: "../../etc/passwd") }
            await #expect(throws: MediaError.notFound) { try await store.open(sha256: object.sha256.uppercased()) }
        }
    }
}
