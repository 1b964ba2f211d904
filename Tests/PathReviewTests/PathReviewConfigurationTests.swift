import Foundation
import PathReview
import ServiceKit
import Testing

@Suite("path-review: configuration from the environment")
struct PathReviewConfigurationTests {
    @Test("defaults: port 8083, the Krems extract of the reference data, claims of 30 minutes")
    func defaults() throws {
        let configuration = try PathReviewConfiguration.fromEnvironment([:])
        #expect(configuration.service.port == 8083)
        #expect(configuration.extracts.count == 1 && configuration.extracts[0].hasSuffix("/krems.osm.gz"))
        #expect(FileManager.default.fileExists(atPath: configuration.extracts[0]))
        #expect(configuration.claimDuration == .seconds(1_800))
        #expect(configuration.roadCacheDirectory.hasSuffix("/path-review-roads"))
        #expect(configuration.featureCacheMegabytes == 64)
    }

    @Test("keys: several extracts (the service's own spelling wins), the claim time")
    func keys() throws {
        let configuration = try PathReviewConfiguration.fromEnvironment([
            "WAYPOINT_PATH_REVIEW_EXTRACTS": " /data/a.osm.pbf, /data/b.osm.gz ,", "WAYPOINT_EXTRACTS": "/ignored.osm",
            "WAYPOINT_PATH_REVIEW_CLAIM_MINUTES": "5", "WAYPOINT_PATH_REVIEW_PORT": "18083", "WAYPOINT_PATH_REVIEW_FEATURE_CACHE_MB": "0",
        ])
        #expect(configuration.featureCacheMegabytes == 0)
        #expect(configuration.extracts == ["/data/a.osm.pbf", "/data/b.osm.gz"])
        #expect(configuration.claimDuration == .seconds(300) && configuration.service.port == 18083)
    }

    @Test("bad values name their key")
    func badValues() {
        for value in ["0", "1441", "x", "-3"] {
            #expect(throws: ConfigurationError.self, "CLAIM_MINUTES=\(value)") {
                try PathReviewConfiguration.fromEnvironment(["WAYPOINT_PATH_REVIEW_CLAIM_MINUTES": value])
            }
        }
        for value in ["-1", "4097", "many"] {
            #expect(throws: ConfigurationError.self, "FEATURE_CACHE_MB=\(value)") {
                try PathReviewConfiguration.fromEnvironment(["WAYPOINT_PATH_REVIEW_FEATURE_CACHE_MB": value])
            }
        }
    }
}
