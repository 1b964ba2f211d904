import Analytics
import Foundation
import Messaging
import Testing
@testable import WaypointCLI

/// Issue 22: analytics reads the bike side's topics on the embedded transport only through the producers' feed URLs,
/// and `waypoint up` gives it the URL of every producer it starts (and none of a producer it does not start).
@Suite("waypoint up: analytics gets the feeds of every producer started")
struct AnalyticsFeedsPlanTests {
    @Test("with every service built, analytics reads record-trip's, path-review's and navigation's feeds at their planned ports; --only leaves out the others")
    func bikeFeeds() throws {
        let everything = Set(ServiceCatalog.all.map(\.executable))
        let plan = LaunchPlanTests.plan(available: everything)
        let analytics = try AnalyticsConfiguration.fromEnvironment(plan.environment(for: plan.entry("analytics")!, inheriting: [:]))
        #expect(analytics.producerURL(.trips)?.absoluteString == "http://127.0.0.1:18085")
        #expect(analytics.producerURL(.paths)?.absoluteString == "http://127.0.0.1:18083")
        #expect(analytics.producerURL(.navigation)?.absoluteString == "http://127.0.0.1:18084")
        #expect(analytics.topics == AnalyticsConfiguration.allTopics)

        let narrowed = LaunchPlanTests.plan(available: everything, only: ["auth", "record-trip", "analytics"])
        let fewer = try AnalyticsConfiguration.fromEnvironment(narrowed.environment(for: narrowed.entry("analytics")!,
                                                                                    inheriting: ["WAYPOINT_PATH_REVIEW_URL": "http://elsewhere:1"]))
        #expect(fewer.producerURL(.trips)?.absoluteString == "http://127.0.0.1:18085")
        #expect(fewer.producerURL(.paths) == nil && fewer.producerURL(.navigation) == nil,
                "no feed of a producer that is not started, even if the operator's shell names one")
    }
}
