import Foundation
import PathReview
import ServiceKit
import Testing

@Suite("path-review upkeep: the obstacle fade key")
struct UpkeepConfigurationTests {
    @Test("WAYPOINT_PATH_OBSTACLE_FADE_DAYS: 30 by default, read when given, bad values name their key")
    func fadeDays() throws {
        #expect(try PathReviewConfiguration.fromEnvironment([:]).obstacleFadeDays == 30)
        #expect(try PathReviewConfiguration.fromEnvironment(["WAYPOINT_PATH_OBSTACLE_FADE_DAYS": "7"]).obstacleFadeDays == 7)
        for value in ["0", "3651", "x"] {
            #expect(throws: ConfigurationError.self, "PATH_OBSTACLE_FADE_DAYS=\(value)") {
                try PathReviewConfiguration.fromEnvironment(["WAYPOINT_PATH_OBSTACLE_FADE_DAYS": value])
            }
        }
    }
}
