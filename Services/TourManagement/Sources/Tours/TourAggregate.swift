import Contracts
import EventSourcing
import Foundation
import Geo
import ServiceKit

extension TourDrafted: EventPayload {}
extension TourDetailsChanged: EventPayload {}
extension StopAdded: EventPayload {}
extension StopChanged: EventPayload {}
extension StopsReordered: EventPayload {}
extension StopRemoved: EventPayload {}
extension MediaAttached: EventPayload {}
extension TourPublished: EventPayload {}
extension TourUnpublished: EventPayload {}
extension TourDraftExpired: EventPayload {}
extension TourDeleted: EventPayload {}

/// Every event of a tour stream.
public enum TourEvent: Sendable {
    case drafted(TourDrafted)
    case detailsChanged(TourDetailsChanged)
    case stopAdded(StopAdded)
    case stopChanged(StopChanged)
    case stopsReordered(StopsReordered)
    case stopRemoved(StopRemoved)
    case mediaAttached(MediaAttached)
    case published(TourPublished)
    case unpublished(TourUnpublished)
    case draftExpired(TourDraftExpired)
    case deleted(TourDeleted)
}

/// Where a tour stands.
public enum TourStatus: String, Codable, Sendable, Hashable {
    /// Never published.
    case draft
    /// A revision is public.
    case published
    /// Was published, is not public now.
    case unpublished
    /// A never-published draft the guide deleted.
    case deleted
    /// A never-published draft left untouched for 30 days.
    case expired
}

/// A tour's state folded from its stream: the working copy guides edit and the last published revision.
public struct TourState: Codable, Sendable, Hashable {
    public var exists = false
    public var tourId: UUID?
    public var guideId: UUID?
    public var status: TourStatus = .draft
    public var details: TourDetails?
    public var stops: [TourStop] = []
    /// 0 before the first publication.
    public var revision = 0
    public var publishedDetails: TourDetails?
    public var publishedStops: [TourStop] = []
    public var lastChangedAt: Date?
    public var publishedAt: Date?

    /// Whether the working copy differs from the published revision (a new revision waits to be published).
    public var hasUnpublishedChanges: Bool {
        revision > 0 && (details != publishedDetails || stops != publishedStops)
    }

    public init() {}
}

/// What guides ask of a tour. `actor` is the caller's user id (the owner check).
public enum TourCommand: Sendable {
    case draft(tourId: UUID, guideId: UUID, details: TourDetails, at: Date)
    case changeDetails(actor: UUID, details: TourDetails, at: Date)
    case addStop(actor: UUID, stop: TourStop, position: Int?, at: Date)
    case changeStop(actor: UUID, stop: TourStop, at: Date)
    case reorderStops(actor: UUID, stopIds: [UUID], at: Date)
    case removeStop(actor: UUID, stopId: UUID, at: Date)
    case attachMedia(actor: UUID, stopId: UUID, media: StopMedia, at: Date)
    case publish(actor: UUID, at: Date)
    case unpublish(actor: UUID, at: Date)
    case deleteDraft(actor: UUID, at: Date)
    /// The scheduled job: expires the tour if it is a never-published draft untouched since `olderThan`.
    case expireDraft(olderThan: Date, at: Date)
}

/// Why a tour command was refused.
public enum TourError: Error, Sendable, Hashable, ProblemConvertible {
    case notFound
    /// The caller is not the tour's guide.
    case notOwner
    case alreadyExists
    case unknownStop(UUID)
    /// A reorder must name every stop exactly once.
    case reorderMismatch
    /// Publishing needs these (human-readable, each its own field error).
    case incomplete([FieldError])
    /// The command does not fit the tour's state (e.g. deleting a published tour).
    case invalidState(String)

    public var problem: Problem {
        switch self {
        case .notFound: Problem.notFound("no such tour", code: "unknown-tour")
        case .notOwner: Problem.forbidden("Only the tour's guide may change it.", code: "not-tour-owner")
        case .alreadyExists: Problem.conflict("the tour already exists", code: "tour-exists")
        case .unknownStop(let id): Problem.notFound("the tour has no stop \(id.uuidString.lowercased())", code: "unknown-stop")
        case .reorderMismatch:
            Problem.unprocessable(fieldErrors: [FieldError(field: "stopIds", code: "not-a-permutation",
                                                           message: "must list every stop of the tour exactly once")])
        case .incomplete(let missing):
            Problem.unprocessable(fieldErrors: missing, detail: "The tour cannot be published yet; every missing part is listed.")
        case .invalidState(let detail): Problem.conflict(detail, code: "invalid-tour-state")
        }
    }
}

/// The tour aggregate: decide and apply.
public enum TourAggregate: Aggregate {
    public typealias State = TourState
    public typealias Event = TourEvent
    public typealias Command = TourCommand

    public static let initialState = TourState()

    /// Drafts untouched this long expire.
    public static let draftLifetime: TimeInterval = 30 * 86_400

    public static let eventTypes = EventTypeMap<TourEvent>()
        .registering(TourDrafted.self, TourEvent.drafted)
        .registering(TourDetailsChanged.self, TourEvent.detailsChanged)
        .registering(StopAdded.self, TourEvent.stopAdded)
        .registering(StopChanged.self, TourEvent.stopChanged)
        .registering(StopsReordered.self, TourEvent.stopsReordered)
        .registering(StopRemoved.self, TourEvent.stopRemoved)
        .registering(MediaAttached.self, TourEvent.mediaAttached)
        .registering(TourPublished.self, TourEvent.published)
        .registering(TourUnpublished.self, TourEvent.unpublished)
        .registering(TourDraftExpired.self, TourEvent.draftExpired)
        .registering(TourDeleted.self, TourEvent.deleted)

    public static func streamID(_ tourId: UUID) -> String { "tour-\(tourId.uuidString.lowercased())" }

    public static func payload(of event: TourEvent) -> any EventPayload {
        switch event {
        case .drafted(let e): e
        case .detailsChanged(let e): e
        case .stopAdded(let e): e
        case .stopChanged(let e): e
        case .stopsReordered(let e): e
        case .stopRemoved(let e): e
        case .mediaAttached(let e): e
        case .published(let e): e
        case .unpublished(let e): e
        case .draftExpired(let e): e
        case .deleted(let e): e
        }
    }

    public static func apply(_ state: TourState, _ event: TourEvent) -> TourState {
        var state = state
        switch event {
        case .drafted(let e):
            state.exists = true
            state.tourId = e.tourId
            state.guideId = e.guideId
            state.details = e.details
            state.lastChangedAt = e.draftedAt
        case .detailsChanged(let e):
            state.details = e.details
            state.lastChangedAt = e.changedAt
        case .stopAdded(let e):
            state.stops.insert(e.stop, at: min(max(0, e.position), state.stops.count))
            state.lastChangedAt = e.addedAt
        case .stopChanged(let e):
            if let index = state.stops.firstIndex(where: { $0.stopId == e.stop.stopId }) { state.stops[index] = e.stop }
            state.lastChangedAt = e.changedAt
        case .stopsReordered(let e):
            let byID = Dictionary(state.stops.map { ($0.stopId, $0) }, uniquingKeysWith: { first, _ in first })
            state.stops = e.stopIds.compactMap { byID[$0] }
            state.lastChangedAt = e.reorderedAt
        case .stopRemoved(let e):
            state.stops.removeAll { $0.stopId == e.stopId }
            state.lastChangedAt = e.removedAt
        case .mediaAttached(let e):
            if let index = state.stops.firstIndex(where: { $0.stopId == e.stopId }) { state.stops[index].media.append(e.media) }
            state.lastChangedAt = e.attachedAt
        case .published(let e):
            state.status = .published
            state.revision = e.revision
            state.publishedDetails = e.details
            state.publishedStops = e.stops
            state.publishedAt = e.publishedAt
            state.lastChangedAt = e.publishedAt
        case .unpublished(let e):
            state.status = .unpublished
            state.lastChangedAt = e.unpublishedAt
        case .draftExpired:
            state.status = .expired
        case .deleted:
            state.status = .deleted
        }
        return state
    }

    public static func decide(_ command: TourCommand, _ state: TourState) throws -> [TourEvent] {
        if case let .draft(tourId, guideId, details, at) = command {
            guard !state.exists else { throw TourError.alreadyExists }
            return [.drafted(TourDrafted(tourId: tourId, guideId: guideId, details: details, draftedAt: at))]
        }
        guard state.exists, let tourId = state.tourId, let details = state.details, state.status != .deleted, state.status != .expired
        else { throw TourError.notFound }
        if let actor = command.actor, actor != state.guideId { throw TourError.notOwner }
        switch command {
        case .draft:
            return []
        case let .changeDetails(_, newDetails, at):
            guard newDetails != details else { return [] }
            return [.detailsChanged(TourDetailsChanged(tourId: tourId, details: newDetails, changedAt: at))]
        case let .addStop(_, stop, position, at):
            guard !state.stops.contains(where: { $0.stopId == stop.stopId }) else { return [] }
            let at_ = min(max(0, position ?? state.stops.count), state.stops.count)
            return [.stopAdded(StopAdded(tourId: tourId, stop: stop, position: at_, addedAt: at))]
        case let .changeStop(_, stop, at):
            guard let existing = state.stops.first(where: { $0.stopId == stop.stopId }) else { throw TourError.unknownStop(stop.stopId) }
            guard existing != stop else { return [] }
            return [.stopChanged(StopChanged(tourId: tourId, stop: stop, changedAt: at))]
        case let .reorderStops(_, stopIds, at):
            guard stopIds.count == state.stops.count, Set(stopIds) == Set(state.stops.map(\.stopId)) else { throw TourError.reorderMismatch }
            guard stopIds != state.stops.map(\.stopId) else { return [] }
            return [.stopsReordered(StopsReordered(tourId: tourId, stopIds: stopIds, reorderedAt: at))]
        case let .removeStop(_, stopId, at):
            guard state.stops.contains(where: { $0.stopId == stopId }) else { throw TourError.unknownStop(stopId) }
            return [.stopRemoved(StopRemoved(tourId: tourId, stopId: stopId, removedAt: at))]
        case let .attachMedia(_, stopId, media, at):
            guard let stop = state.stops.first(where: { $0.stopId == stopId }) else { throw TourError.unknownStop(stopId) }
            guard !stop.media.contains(where: { $0.sha256 == media.sha256 }) else { return [] }
            return [.mediaAttached(MediaAttached(tourId: tourId, stopId: stopId, media: media, attachedAt: at))]
        case let .publish(_, at):
            let missing = publicationProblems(details: details, stops: state.stops)
            guard missing.isEmpty else { throw TourError.incomplete(missing) }
            guard state.status != .published || state.hasUnpublishedChanges else { return [] }
            return [.published(TourPublished(
                tourId: tourId, guideId: state.guideId!, revision: state.revision + 1, details: details, stops: state.stops,
                lengthMetres: Int(lengthMetres(state.stops).rounded()), publishedAt: at))]
        case let .unpublish(_, at):
            guard state.status == .published else {
                if state.status == .unpublished { return [] }
                throw TourError.invalidState("only a published tour can be unpublished")
            }
            return [.unpublished(TourUnpublished(tourId: tourId, unpublishedAt: at))]
        case let .deleteDraft(_, at):
            guard state.revision == 0 else {
                throw TourError.invalidState("a tour that was published cannot be deleted; unpublish it instead")
            }
            return [.deleted(TourDeleted(tourId: tourId, deletedAt: at))]
        case let .expireDraft(olderThan, at):
            guard state.revision == 0, let last = state.lastChangedAt, last < olderThan else { return [] }
            return [.draftExpired(TourDraftExpired(tourId: tourId, lastChangedAt: last, expiredAt: at))]
        }
    }

    /// Everything that keeps the working copy from being published, each as a field error: title, description, at
    /// least one theme, ≥ 2 stops, every stop with text or media.
    public static func publicationProblems(details: TourDetails, stops: [TourStop]) -> [FieldError] {
        var problems: [FieldError] = []
        if details.title.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            problems.append(FieldError(field: "title", code: "missing", message: "a title is needed"))
        }
        if details.description.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            problems.append(FieldError(field: "description", code: "missing", message: "a description is needed"))
        }
        if details.themes.isEmpty {
            problems.append(FieldError(field: "themes", code: "missing", message: "at least one theme is needed"))
        }
        if details.price.amountMinor < 0 {
            problems.append(FieldError(field: "price", code: "missing", message: "a price (0 for free) is needed"))
        }
        if stops.count < 2 {
            problems.append(FieldError(field: "stops", code: "too-few", message: "at least 2 stops are needed (has \(stops.count))"))
        }
        for (index, stop) in stops.enumerated()
        where stop.description.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty && stop.media.isEmpty {
            problems.append(FieldError(field: "stops[\(index)]", code: "no-content", message: "\(stop.name) needs text or media"))
        }
        return problems
    }

    /// Great-circle length along the stops in order, in metres.
    public static func lengthMetres(_ stops: [TourStop]) -> Double {
        let points = stops.compactMap { try? Coordinate(latitude: $0.location.lat, longitude: $0.location.lng) }
        return zip(points, points.dropFirst()).reduce(0) { $0 + $1.0.distance(to: $1.1) }
    }
}

extension TourCommand {
    /// The caller the owner check applies to (`nil` for drafting and the scheduled job).
    var actor: UUID? {
        switch self {
        case .draft, .expireDraft: nil
        case let .changeDetails(actor, _, _), let .addStop(actor, _, _, _), let .changeStop(actor, _, _),
             let .reorderStops(actor, _, _), let .removeStop(actor, _, _), let .attachMedia(actor, _, _, _),
             let .publish(actor, _), let .unpublish(actor, _), let .deleteDraft(actor, _):
            actor
        }
    }
}
