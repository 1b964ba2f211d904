import Contracts
import Foundation
import PathReview
import Testing

@Suite("path-review upkeep: a street's incompatible mark")
struct StreetMarkAggregateTests {
    private let nodes: [[Int64]] = [[1, 2, 3], [3, 4]]
    private let at = Date(timeIntervalSince1970: 1_790_000_000)

    private func run(_ commands: [StreetMarkCommand]) throws -> (StreetMarkState, [StreetMarkEvent]) {
        var state = StreetMarkAggregate.initialState, all: [StreetMarkEvent] = []
        for command in commands {
            let events = try StreetMarkAggregate.decide(command, state)
            state = events.reduce(state, StreetMarkAggregate.apply)
            all += events
        }
        return (state, all)
    }

    @Test("mark, mark again (nothing), lift, lift again (nothing): two published changes with the street's nodes")
    func markAndLift() throws {
        let (state, events) = try run([
            .markIncompatible(streetId: 7, osmNodes: nodes, at: at), .markIncompatible(streetId: 7, osmNodes: nodes, at: at),
            .liftMark(streetId: 7, osmNodes: nodes, at: at.addingTimeInterval(60)), .liftMark(streetId: 7, osmNodes: nodes, at: at),
        ])
        #expect(events == [
            .changed(StreetCompatibilityChanged(streetId: 7, osmNodes: nodes, compatible: false, changedAt: at)),
            .changed(StreetCompatibilityChanged(streetId: 7, osmNodes: nodes, compatible: true, changedAt: at.addingTimeInterval(60))),
        ])
        #expect(!state.incompatible && state.streetId == 7)
        #expect(StreetMarkAggregate.streamID(7) == "street-7")
    }

    @Test("lifting an unmarked street changes nothing; the payload is the published event")
    func liftUnmarked() throws {
        #expect(try run([.liftMark(streetId: 9, osmNodes: nodes, at: at)]).1.isEmpty)
        let marked = try run([.markIncompatible(streetId: 9, osmNodes: nodes, at: at)])
        #expect(marked.0.incompatible)
        #expect(StreetMarkAggregate.payload(of: marked.1[0]) is StreetCompatibilityChanged)
    }
}
