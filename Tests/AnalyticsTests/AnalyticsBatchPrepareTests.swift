@testable import Analytics
import Foundation
import Messaging
import Testing

@Suite("Preparing a batch: keys and readings worked out in parallel chunks equal reading each event in order")
struct AnalyticsBatchPrepareTests {
    @Test("a batch above the parallel threshold, with unreadable and ignored events in it, reads exactly as one by one")
    func parallelEqualsSequential() async throws {
        var log = Scenario.events
        Scenario.erasures(&log)
        var events: [PublishedEvent] = []
        var broken = EventLog()
        broken.add(type: "TourViewed", payload: Data(#"{"tourId":"not a uuid"}"#.utf8), stream: "views-x", source: "tour-management")
        broken.add(type: "PathApproved", payload: Data(#"{"pathId":"x"}"#.utf8), stream: "path-1", source: "path-review")
        while events.count < 3 * AnalyticsBatch.chunkSize + 17 {
            events += log.events
            events += broken.events
        }
        let batch = await AnalyticsBatch.prepare(events)
        #expect(batch.events.map(\.eventID) == events.map(\.eventID))
        #expect(batch.keys == events.map { AnalyticsBatch.streamKey(source: $0.source, stream: $0.streamID) })
        let sequential = events.map { event -> AnalyticsBatch.Prepared.Reading in
            do { return .fact(try AnalyticsEvents.fact(event)) } catch { return .unreadable("\(error)") }
        }
        #expect(batch.readings == sequential)
        #expect(batch.readings.contains { if case .unreadable = $0 { true } else { false } })
        #expect(batch.readings.contains(.fact(nil)), "ignored types read as no fact")

        // The first new unreadable event fails the batch; once its stream is past it, it is skipped like any applied event.
        #expect(throws: EventFailure.self) { try AnalyticsBatch.decode(batch, versions: [:]) }
        let brokenKey = AnalyticsBatch.streamKey(source: "tour-management", stream: "views-x")
        let skipped = try AnalyticsBatch.decode(await AnalyticsBatch.prepare(broken.events), versions: [brokenKey: 1])
        #expect(skipped.decoded.count == 1, "only the ignored event is new")
    }
}
