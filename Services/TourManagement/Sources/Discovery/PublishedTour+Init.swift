import Contracts
import Foundation

extension PublishedTour {
    /// A published revision as the read model would hold it after `TourPublished` (tools, benchmarks and tests build
    /// tours with it; the length is computed from the stops).
    public init(tourId: UUID, guideId: UUID, revision: Int, details: TourDetails, stops: [TourStop], publishedAt: Date = Date(),
                rating: TourRating = TourRating(), popularity: Int = 0) {
        self.init(tourId: tourId,
                  document: Document(guideId: guideId, revision: revision, details: details, stops: stops,
                                     lengthMetres: Int(TourAggregate.lengthMetres(stops).rounded())),
                  listed: true, firstPublishedAt: publishedAt, publishedAt: publishedAt, rating: rating, popularity: popularity)
    }
}
