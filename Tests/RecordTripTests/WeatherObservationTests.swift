import Foundation
import RecordTrip
import Testing

@Suite struct WeatherObservationTests {
    @Test func anObservationRoundTripsThroughJSON() throws {
        let observation = WeatherObservation(temperatureC: 12.5, windSpeedMps: 3.2, windDirectionDeg: 270,
                                             precipitationMm: 0, conditionCode: 3, source: "open-meteo")
        let data = try JSONEncoder().encode(observation)
        #expect(try JSONDecoder().decode(WeatherObservation.self, from: data) == observation)
    }
}
