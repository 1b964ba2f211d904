import EventSourcing
import Foundation
@testable import PathReview
import Testing

@Suite("path-review: the draft aggregate (pure decide and apply)")
struct PathDraftAggregateTests {
    static let author = UUID()
    static let stranger = UUID()
    static let draft = UUID()
    static let start = Date(timeIntervalSince1970: 1_790_000_000)

    /// A small content whose values are known by construction: a 2-node route along latitude 48.41 in Krems.
    static func content(_ name: String = "Donau cycleway", condition: PathCondition = .optimal) -> PathDraftContent {
        PathDraftContent(name: name, condition: condition, details: PathDetails(segregatedFromCars: true, surface: "asphalt"),
                         route: DraftRoute(nodeIDs: [1, 2], coordinates: [[48.41, 15.60], [48.41, 15.61]], lengthMetres: 739.6),
                         obstacles: [DraftObstacle(type: .pothole, latitude: 48.41, longitude: 15.605, offsetMetres: 369.8, note: "deep")])
    }

    static func fold(_ commands: [PathDraftCommand]) throws -> (PathDraftState, [PathDraftEvent]) {
        var state = PathDraftAggregate.initialState
        var all: [PathDraftEvent] = []
        for command in commands {
            let events = try PathDraftAggregate.decide(command, state)
            state = events.reduce(state, PathDraftAggregate.apply)
            all += events
        }
        return (state, all)
    }

    @Test("a created draft is its author's, with its content; a revision replaces the content, the same content changes nothing")
    func createAndRevise() throws {
        let later = Self.start.addingTimeInterval(60)
        let (state, events) = try Self.fold([
            .create(draftId: Self.draft, author: Self.author, content: Self.content(), at: Self.start),
            .revise(author: Self.author, content: Self.content("Treppelweg", condition: .medium), at: later),
            .revise(author: Self.author, content: Self.content("Treppelweg", condition: .medium), at: later.addingTimeInterval(5)),
        ])
        #expect(events.count == 2)
        #expect(state.isOwned(by: Self.author) && !state.isOwned(by: Self.stranger))
        #expect(state.content?.name == "Treppelweg" && state.content?.condition == .medium)
        #expect(state.createdAt == Self.start && state.updatedAt == later)
    }

    @Test("someone else's, deleted or missing drafts are 'not found' to the caller; an id is never created twice")
    func privacyAndLifecycle() throws {
        let created = try Self.fold([.create(draftId: Self.draft, author: Self.author, content: Self.content(), at: Self.start)]).0
        #expect(throws: PathDraftError.notFound) { try PathDraftAggregate.decide(.revise(author: Self.stranger, content: Self.content("x"), at: Self.start), created) }
        #expect(throws: PathDraftError.notFound) { try PathDraftAggregate.decide(.delete(author: Self.stranger, at: Self.start), created) }
        #expect(throws: PathDraftError.notFound) { try PathDraftAggregate.decide(.delete(author: Self.author, at: Self.start), PathDraftState()) }
        #expect(throws: PathDraftError.alreadyExists) {
            try PathDraftAggregate.decide(.create(draftId: Self.draft, author: Self.author, content: Self.content(), at: Self.start), created)
        }
        let deleted = try PathDraftAggregate.decide(.delete(author: Self.author, at: Self.start), created).reduce(created, PathDraftAggregate.apply)
        #expect(deleted.deleted && deleted.content == nil && !deleted.isOwned(by: Self.author))
        #expect(throws: PathDraftError.notFound) { try PathDraftAggregate.decide(.delete(author: Self.author, at: Self.start), deleted) }
        #expect(throws: PathDraftError.notFound) { try PathDraftAggregate.decide(.revise(author: Self.author, content: Self.content(), at: Self.start), deleted) }
        #expect(throws: PathDraftError.alreadyExists) {
            try PathDraftAggregate.decide(.create(draftId: Self.draft, author: Self.author, content: Self.content(), at: Self.start), deleted)
        }
    }

    @Test("every event is registered: stored as JSON and read back through eventTypes, it folds to the same state")
    func eventsRoundTrip() throws {
        let (state, events) = try Self.fold([
            .create(draftId: Self.draft, author: Self.author, content: Self.content(), at: Self.start),
            .revise(author: Self.author, content: Self.content("Kremser Radweg"), at: Self.start.addingTimeInterval(1)),
            .delete(author: Self.author, at: Self.start.addingTimeInterval(2)),
        ])
        var replayed = PathDraftAggregate.initialState
        for (index, event) in events.enumerated() {
            let new = try PathDraftAggregate.payload(of: event).newEvent()
            let envelope = EventEnvelope(eventID: new.eventID, streamID: PathDraftAggregate.streamID(Self.draft), streamVersion: Int64(index + 1),
                                         position: Int64(index + 1), eventType: new.eventType, schemaVersion: new.schemaVersion,
                                         payload: new.payload, metadata: new.metadata, recordedAt: Self.start)
            let decoded = try #require(try PathDraftAggregate.eventTypes.decode(envelope), "\(new.eventType) is registered")
            #expect(decoded == event)
            replayed = PathDraftAggregate.apply(replayed, decoded)
        }
        #expect(replayed == state)
        #expect(Set(events.map { PathDraftAggregate.payload(of: $0) }.map { type(of: $0).eventType })
                == ["PathDraftCreated", "PathDraftRevised", "PathDraftDeleted"])
    }
}
