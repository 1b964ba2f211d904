import Synchronization

/// Where a consumer of the embedded feed asks next, per producer: after its stored position — or, when that position is
/// still what the last page left it at, after the last position the producer *read* for that page
/// (``EventFeedPage/scanned``).
///
/// A producer serves only some of its log (its published language); the events it skips are read past on every page.
/// A consumer's stored position moves only with the events it handles, so without this every long poll began again
/// at the last served event and the producer re-read every skipped event since (record-trip: each minute's chunk of a
/// ride, ~130 KB, read again by each consumer on each append — a third of its CPU in the bike mix). The skipped range
/// holds nothing for the consumer, so asking after it loses nothing; the cursor is used only while the stored
/// position equals what the page left it at (every served event of it handled, or none served), so a page whose
/// handling failed is fetched again from the stored position. Held in memory: after a restart the first page reads
/// the skipped range once more.
public final class FeedCursor: Sendable {
    private struct Resume: Sendable {
        /// The stored position the consumer has once it handled the page (its last event, or the position asked
        /// after when the page served none).
        var expected: Int64
        /// Where to ask next in that case.
        var after: Int64
    }

    private let resumes = Mutex([String: Resume]())

    public init() {}

    /// The position to ask `source` after, given the consumer's stored position.
    public func after(_ source: String, stored: Int64) -> Int64 {
        resumes.withLock { resumes in
            guard let resume = resumes[source], resume.expected == stored, resume.after > stored else { return stored }
            return resume.after
        }
    }

    /// Records a page of `source` asked after `asked`: the last event it served (`nil`: none) and the last position the
    /// producer read for it (`nil`: a producer that does not say).
    public func record(_ source: String, asked: Int64, lastServed: Int64?, scanned: Int64?) {
        let expected = lastServed ?? asked
        resumes.withLock { resumes in
            if let scanned, scanned > expected {
                resumes[source] = Resume(expected: expected, after: scanned)
            } else {
                resumes[source] = nil
            }
        }
    }
}
