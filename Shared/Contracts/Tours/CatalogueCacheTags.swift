import Foundation

/// What tour-management's public catalogue answers depend on, in the words both sides use: tour-management tags each
/// cacheable answer with these tags (`Cache-Tag`) and the log position its read model had applied (`Waypoint-Position`);
/// the gateway maps each event of `waypoint.tours` to the tags it changes, purges them from its cache and keeps answers
/// older than the event out of it (docs/gateway.md, "Cache of public reads").
///
/// Not an event: a shared vocabulary, so a new event type that changes the catalogue is mapped here, next to the
/// events, and both sides follow.
public enum CatalogueCacheTags {
    /// Response field with the answer's tags, separated by spaces (`tours tour:<id>`).
    public static let tagField = "Cache-Tag"
    /// Response field with the producer's log position its answer (or, on a write, the log after the write) includes.
    public static let positionField = "Waypoint-Position"

    /// Every list and map of tours (`GET /v1/tours`, `GET /v1/tours/map`): any listed tour may appear, move or leave.
    public static let tours = "tours"
    /// Destination answers (`GET /v1/destinations…`): their published-tour and purchase counts.
    public static let destinations = "destinations"

    /// One tour's detail (`GET /v1/tours/{id}`); `id` in lower case.
    public static func tour(_ id: UUID) -> String { "tour:\(id.uuidString.lowercased())" }

    /// The tags an event of `waypoint.tours` changes; `tourId` is its payload's `tourId` (every event below has one).
    /// Events that only touch guides' working copies, one user's own data or purchase bookkeeping change no public
    /// answer and map to none; so do event types this list does not know (a newer producer): they purge nothing.
    public static func changed(byEventType eventType: String, tourId: UUID?) -> [String] {
        guard let lists = listsChanged[eventType] else { return [] }
        return lists + (tourId.map { [Self.tour($0)] } ?? [])
    }

    /// The list tags each mapped type changes (besides the tour's own): the one table ``changed(byEventType:tourId:)``
    /// reads and ``changingTypes`` lists.
    private static let listsChanged: [String: [String]] = [
        // What is listed, and where: lists, maps, the detail, the destinations' published-tour counts.
        TourPublished.eventType: [tours, destinations], TourUnpublished.eventType: [tours, destinations],
        // Popularity (a sort of lists, the detail's field, popular destinations).
        PurchaseCompleted.eventType: [tours, destinations], TourAcquired.eventType: [tours, destinations],
        PurchaseRefunded.eventType: [tours, destinations],
        // Ratings (a sort of lists, the detail's field).
        ReviewPosted.eventType: [tours], ReviewEdited.eventType: [tours], ReviewHidden.eventType: [tours],
    ]

    /// The event types ``changed(byEventType:tourId:)`` maps to tags: what the gateway's cache follower asks
    /// tour-management's feed for.
    public static let changingTypes = Set(listsChanged.keys)

    /// The event types of `waypoint.tours` known to change no public catalogue answer: working copies (drafts are not
    /// public), purchase bookkeeping before completion, replies (not in cached answers), favourites, progress, views,
    /// bundles. Every published type is either here or mapped by ``changed(byEventType:tourId:)`` (a test holds
    /// tour-management's published list to it), so a new event type has to be classified.
    public static let changesNoPublicAnswer: Set<String> = [
        TourDrafted.eventType, TourDetailsChanged.eventType, StopAdded.eventType, StopChanged.eventType, StopsReordered.eventType,
        StopRemoved.eventType, MediaAttached.eventType, TourDraftExpired.eventType, TourDeleted.eventType,
        PurchaseStarted.eventType, PurchaseFailed.eventType, ReviewReplied.eventType, TourFavourited.eventType,
        TourUnfavourited.eventType, TourStarted.eventType, StopCompleted.eventType, TourCompleted.eventType, TourViewed.eventType,
        BundlePublished.eventType,
    ]
}
