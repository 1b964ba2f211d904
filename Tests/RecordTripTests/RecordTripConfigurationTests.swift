import Foundation
import RecordTrip
import ServiceKit
import Testing

@Suite("record-trip: configuration from the environment")
struct RecordTripConfigurationTests {
    @Test("defaults: port 8085, the Krems extract of the reference data, no weather, 2 s weather timeout, 60 s backfill")
    func defaults() throws {
        let configuration = try RecordTripConfiguration.fromEnvironment([:])
        #expect(configuration.service.port == 8085)
        #expect(configuration.extracts.count == 1 && configuration.extracts[0].hasSuffix("/krems.osm.gz"))
        #expect(FileManager.default.fileExists(atPath: configuration.extracts[0]))
        #expect(configuration.weatherURL == nil)
        #expect(configuration.weatherTimeout == .seconds(2) && configuration.weatherBackfillInterval == .seconds(60))
        #expect(configuration.finishWait == .seconds(3))
        #expect(configuration.roadCacheDirectory.hasSuffix("/record-trip-roads"))
    }

    @Test("keys: several extracts, a weather URL, the timeouts; the service's own spelling wins")
    func keys() throws {
        let configuration = try RecordTripConfiguration.fromEnvironment([
            "WAYPOINT_RECORD_TRIP_EXTRACTS": " /data/a.osm.pbf, /data/b.osm.gz ,",
            "WAYPOINT_EXTRACTS": "/ignored.osm",
            "WAYPOINT_RECORD_TRIP_WEATHER_URL": "http://127.0.0.1:9100",
            "WAYPOINT_RECORD_TRIP_WEATHER_TIMEOUT_MS": "750",
            "WAYPOINT_RECORD_TRIP_WEATHER_BACKFILL_SECONDS": "5", "WAYPOINT_RECORD_TRIP_FINISH_WAIT_MS": "0",
        ])
        #expect(configuration.extracts == ["/data/a.osm.pbf", "/data/b.osm.gz"])
        #expect(configuration.weatherURL?.absoluteString == "http://127.0.0.1:9100")
        #expect(configuration.weatherTimeout == .milliseconds(750) && configuration.weatherBackfillInterval == .seconds(5))
        #expect(configuration.finishWait == .zero)
    }

    @Test("bad values name their key")
    func badValues() {
        for (key, value) in [("WAYPOINT_RECORD_TRIP_WEATHER_URL", "not a url"), ("WAYPOINT_RECORD_TRIP_WEATHER_URL", "ftp://host"),
                             ("WAYPOINT_RECORD_TRIP_WEATHER_TIMEOUT_MS", "0"), ("WAYPOINT_RECORD_TRIP_WEATHER_BACKFILL_SECONDS", "x"),
                             ("WAYPOINT_RECORD_TRIP_FINISH_WAIT_MS", "60001")] {
            #expect(throws: ConfigurationError.self, "\(key)=\(value)") { try RecordTripConfiguration.fromEnvironment([key: value]) }
        }
    }
}
