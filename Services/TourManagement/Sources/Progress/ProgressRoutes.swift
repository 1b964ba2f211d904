import Contracts
import EventSourcing
import Foundation
import Hummingbird
import ServiceKit

/// A traveller's progress through a tour, as answered.
struct ProgressResponse: ResponseEncodable {
    struct Stop: Codable, Sendable {
        var stopId: String
        var name: String
        var completedAt: Date?
    }

    var tourId: String
    var revision: Int
    var startedAt: Date?
    var completed: Bool
    var completedAt: Date?
    var completedStops: Int
    var totalStops: Int
    /// The first stop in tour order not completed yet: where to resume.
    var nextStopId: String?
    var stops: [Stop]

    init(_ state: TourProgressAggregate.State, tour: PublishedTour) {
        tourId = tour.tourId.uuidString.lowercased()
        revision = state.startedAt == nil ? tour.revision : state.revision
        startedAt = state.startedAt
        completed = state.completedAt != nil
        completedAt = state.completedAt
        stops = tour.stops.map { Stop(stopId: $0.stopId.uuidString.lowercased(), name: $0.name, completedAt: state.stops[$0.stopId]) }
        completedStops = stops.filter { $0.completedAt != nil }.count
        totalStops = stops.count
        nextStopId = stops.first { $0.completedAt == nil }?.stopId
    }
}

/// `POST /v1/tours/{id}/progress/start`, `POST /v1/tours/{id}/progress/stops/{stopId}`, `POST /v1/tours/{id}/progress/batch`,
/// `GET /v1/tours/{id}/progress`: for travellers who own the tour (and its guide, trying it out).
public struct ProgressRoutes: Sendable {
    /// The most completions one batch may carry.
    public static let maximumBatch = 500
    /// How far in the future a client clock may be (beyond it a completion is refused as implausible).
    public static let clockSkewAllowance: TimeInterval = 300

    let repository: AggregateRepository<TourProgressAggregate, AnyEventStore>
    let catalog: TourCatalog
    let access: TourAccess
    let now: @Sendable () -> Date

    public init(store: AnyEventStore, catalog: TourCatalog, access: TourAccess, now: @escaping @Sendable () -> Date = Date.init) {
        repository = AggregateRepository(store: store)
        self.catalog = catalog
        self.access = access
        self.now = now
    }

    struct CompletionBody: Decodable {
        var completedAt: Date?
    }

    struct BatchBody: Decodable {
        struct Item: Decodable {
            var stopId: UUID?
            var completedAt: Date?
        }

        var completions: [Item]?
    }

    public func add(to routes: ServiceRoutes) {
        let group = routes.authenticated("/v1/tours/:id/progress")
        group.get { _, context -> ProgressResponse in
            let (tour, user) = try await self.prepare(context)
            let loaded = try await repository.load(TourProgressAggregate.streamID(tour: tour.tourId, user: user))
            guard loaded.version > 0 else { throw Problem.notFound("this tour was not started", code: "not-started") }
            return ProgressResponse(loaded.state, tour: tour)
        }
        group.post("start") { _, context -> EditedResponse<ProgressResponse> in
            let (tour, user) = try await self.prepare(context)
            let outcome = try await self.run(.start(tour: Self.facts(tour), user: user, at: now()), tour: tour, user: user)
            return EditedResponse(status: outcome.events.isEmpty ? .ok : .created, response: ProgressResponse(outcome.state, tour: tour))
        }
        group.post("stops/:stopId") { request, context -> ProgressResponse in
            let (tour, user) = try await self.prepare(context)
            guard let stopId = UUID(uuidString: try context.parameters.require("stopId")) else {
                throw Problem.notFound("no such stop", code: "unknown-stop")
            }
            // The body is optional: without one (no Content-Type) the stop is completed now.
            let body: CompletionBody? = request.headers[.contentType] == nil ? nil : try await request.decode(as: CompletionBody.self, context: context)
            let at = now()
            var validator = Validator()
            self.checkClock(body?.completedAt, field: "completedAt", at: at, &validator)
            try validator.check()
            let completion = TourProgressAggregate.Completion(stopId: stopId, completedAt: body?.completedAt ?? at)
            return ProgressResponse(try await self.run(.complete(tour: Self.facts(tour), user: user, completions: [completion], at: at),
                                                       tour: tour, user: user).state, tour: tour)
        }
        group.post("batch") { request, context -> ProgressResponse in
            let (tour, user) = try await self.prepare(context)
            let body = try await request.decode(as: BatchBody.self, context: context)
            let at = now()
            var validator = Validator()
            validator.present(body.completions, field: "completions")
            validator.count(body.completions, field: "completions", min: 1, max: Self.maximumBatch)
            validator.each(body.completions, field: "completions") { item, completion in
                item.present(completion.stopId, field: "stopId")
                item.present(completion.completedAt, field: "completedAt")
                self.checkClock(completion.completedAt, field: "completedAt", at: at, &item)
            }
            try validator.check()
            let completions = (body.completions ?? []).map { TourProgressAggregate.Completion(stopId: $0.stopId!, completedAt: $0.completedAt!) }
            return ProgressResponse(try await self.run(.complete(tour: Self.facts(tour), user: user, completions: completions, at: at),
                                                       tour: tour, user: user).state, tour: tour)
        }
    }

    static func facts(_ tour: PublishedTour) -> TourProgressAggregate.TourFacts {
        TourProgressAggregate.TourFacts(tourId: tour.tourId, guideId: tour.guideId, revision: tour.revision, stopIds: tour.stops.map(\.stopId))
    }

    func checkClock(_ time: Date?, field: String, at now: Date, _ validator: inout Validator) {
        guard let time else { return }
        validator.require(time <= now.addingTimeInterval(Self.clockSkewAllowance), field: field, code: "in-the-future",
                          message: "must not be more than 5 minutes ahead of the server's clock")
    }

    /// The published tour and the caller, who must be allowed to use it.
    func prepare(_ context: ServiceRequestContext) async throws -> (PublishedTour, UUID) {
        let identity = try context.requireIdentity()
        let tour = try await DiscoveryRoutes.published(context, catalog, access: access)
        try await access.requireUse(tour, identity)
        guard let user = UUID(uuidString: identity.subject) else { throw Problem.forbidden("unknown caller") }
        return (tour, user)
    }

    /// Runs a command; concurrent completions from two devices retry on the newer state (completions commute).
    func run(_ command: TourProgressAggregate.Command, tour: PublishedTour, user: UUID) async throws
        -> AggregateRepository<TourProgressAggregate, AnyEventStore>.Outcome {
        do {
            return try await repository.execute(command, on: TourProgressAggregate.streamID(tour: tour.tourId, user: user), retries: 5)
        } catch let error as ProgressError {
            throw error.problem
        }
    }
}
