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

    /// Mounts the progress routes under `/v1/tours/{id}/progress`, for signed-in callers who may use the tour.
    public func addRoutes(to routes: ServiceRoutes) {
        let group = routes.authenticated("/v1/tours/:id/progress")
        group.get(use: show)
        group.post("start", use: start)
        group.post("stops/:stopId", use: completeStop)
        group.post("batch", use: completeBatch)
    }

    /// `GET /v1/tours/{id}/progress`; 404 `not-started` before the traveller starts.
    @Sendable func show(_ request: Request, context: ServiceRequestContext) async throws -> ProgressResponse {
        let (tour, user) = try await prepare(context)
        let loaded = try await repository.load(TourProgressAggregate.streamID(tour: tour.tourId, user: user))
        guard loaded.version > 0 else { throw Problem.notFound("this tour was not started", code: "not-started") }
        return ProgressResponse(loaded.state, tour: tour)
    }

    /// `POST /v1/tours/{id}/progress/start`: 201 when started now, 200 when it already was.
    @Sendable func start(_ request: Request, context: ServiceRequestContext) async throws -> EditedResponse<ProgressResponse> {
        let (tour, user) = try await prepare(context)
        let outcome = try await run(.start(tour: Self.facts(tour), user: user, at: now()), tour: tour, user: user)
        return EditedResponse(status: outcome.events.isEmpty ? .ok : .created, response: ProgressResponse(outcome.state, tour: tour))
    }

    /// `POST /v1/tours/{id}/progress/stops/{stopId}`: completes one stop, now or at the body's `completedAt`.
    @Sendable func completeStop(_ request: Request, context: ServiceRequestContext) async throws -> ProgressResponse {
        let (tour, user) = try await prepare(context)
        let stopId = try context.parameters.require("stopId", as: UUID.self, ifInvalid: .notFound("no such stop", code: "unknown-stop"))
        // The body is optional: without one (no Content-Type) the stop is completed now.
        let body: CompletionBody? = request.headers[.contentType] == nil ? nil : try await request.decode(as: CompletionBody.self, context: context)
        let at = now()
        var validator = Validator()
        checkClock(body?.completedAt, field: "completedAt", at: at, &validator)
        try validator.check()
        let completion = TourProgressAggregate.Completion(stopId: stopId, completedAt: body?.completedAt ?? at)
        return ProgressResponse(try await run(.complete(tour: Self.facts(tour), user: user, completions: [completion], at: at),
                                              tour: tour, user: user).state, tour: tour)
    }

    /// `POST /v1/tours/{id}/progress/batch`: completions recorded offline, at most ``maximumBatch``.
    @Sendable func completeBatch(_ request: Request, context: ServiceRequestContext) async throws -> ProgressResponse {
        let (tour, user) = try await prepare(context)
        let body = try await request.decode(as: BatchBody.self, context: context)
        let at = now()
        var validator = Validator()
        validator.present(body.completions, field: "completions")
        validator.count(body.completions, field: "completions", min: 1, max: Self.maximumBatch)
        validator.each(body.completions, field: "completions") { item, completion in
            item.present(completion.stopId, field: "stopId")
            item.present(completion.completedAt, field: "completedAt")
            checkClock(completion.completedAt, field: "completedAt", at: at, &item)
        }
        try validator.check()
        let completions = (body.completions ?? []).map { TourProgressAggregate.Completion(stopId: $0.stopId!, completedAt: $0.completedAt!) }
        return ProgressResponse(try await run(.complete(tour: Self.facts(tour), user: user, completions: completions, at: at),
                                              tour: tour, user: user).state, tour: tour)
    }

    /// The facts about `tour` a progress command needs.
    static func facts(_ tour: PublishedTour) -> TourProgressAggregate.TourFacts {
        TourProgressAggregate.TourFacts(tourId: tour.tourId, guideId: tour.guideId, revision: tour.revision, stopIds: tour.stops.map(\.stopId))
    }

    /// 422 `in-the-future` for a completion more than ``clockSkewAllowance`` ahead of `now`.
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
        return (tour, try context.requireCallerID())
    }

    /// Runs a command; concurrent completions from two devices retry on the newer state (completions commute).
    func run(_ command: TourProgressAggregate.Command, tour: PublishedTour, user: UUID) async throws
        -> AggregateRepository<TourProgressAggregate, AnyEventStore>.Outcome {
        try await repository.execute(command, on: TourProgressAggregate.streamID(tour: tour.tourId, user: user), retries: 5)
    }
}
