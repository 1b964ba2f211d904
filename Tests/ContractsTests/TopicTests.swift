import Contracts
import Testing

@Suite("Topic")
struct TopicTests {
    @Test("there is one topic per producing service plus notifications")
    func names() {
        #expect(Topic.allCases.map(\.name) == [
            "waypoint.auth", "waypoint.tours", "waypoint.paths",
            "waypoint.navigation", "waypoint.trips", "waypoint.notifications",
        ])
    }

    @Test("each service topic names its producer, and the producer finds its topic")
    func producers() {
        #expect(Topic.tours.producingService == "tour-management")
        #expect(Topic.trips.producingService == "record-trip")
        #expect(Topic.notifications.producingService == nil)
        for topic in Topic.allCases {
            if let service = topic.producingService {
                #expect(Topic(producingService: service) == topic)
            }
        }
        #expect(Topic(producingService: "gateway") == nil)
    }
}
