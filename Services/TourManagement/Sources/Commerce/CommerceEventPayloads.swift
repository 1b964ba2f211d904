import Contracts
import EventSourcing

// The marketplace and offline events of `waypoint.tours` (`Shared/Contracts/Tours/`: `PurchaseEvents.swift`,
// `ReviewEvents.swift`, `FavouriteEvents.swift`, `TourProgressEvents.swift`, `TourViewEvents.swift`,
// `OfflineBundleEvents.swift`) are stored in tour-management's log as they are published: one conformance each, here
// and nowhere else.
extension PurchaseStarted: EventPayload {}
extension PurchaseCompleted: EventPayload {}
extension PurchaseFailed: EventPayload {}
extension PurchaseRefunded: EventPayload {}
extension TourAcquired: EventPayload {}
extension ReviewPosted: EventPayload {}
extension ReviewEdited: EventPayload {}
extension ReviewReplied: EventPayload {}
extension ReviewHidden: EventPayload {}
extension TourFavourited: EventPayload {}
extension TourUnfavourited: EventPayload {}
extension TourStarted: EventPayload {}
extension StopCompleted: EventPayload {}
extension TourCompleted: EventPayload {}
extension TourViewed: EventPayload {}
extension BundlePublished: EventPayload {}
