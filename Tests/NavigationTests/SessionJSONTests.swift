import Contracts
import Foundation
@testable import Navigation
import ServiceKit
import ServiceTesting
import Testing

/// The position update's event (`PositionsTracked`) and answer (`PositionsResponse`) write their own JSON
/// (``JSONWritable``): the event byte for byte what `ContractJSON` writes (its canonical form, which idempotent retries
/// compare), the answer the same members and values as the service's `JSONEncoder` (which fixes no member order) — over
/// random sessions: instructions with and without a modifier, names
/// with quotes and slashes, absent offsets and next steps, stops reached. (Debug builds also check every event and
/// answer of every other test.)
@Suite("navigation: the position update's JSON equals JSONEncoder's")
struct SessionJSONTests {
    static func instruction(_ random: inout SeededGenerator) -> IssuedInstruction {
        IssuedInstruction(stepIndex: Int.random(in: 0...40, using: &random), phase: ["depart", "alert", "pre-turn", "now", "arrive"].randomElement(using: &random)!,
                          text: ["Turn left onto Ringstraße", "In 200 m, turn right onto \"Obere Landstraße\"", "Continue on B3/E55", "You have arrived"]
                              .randomElement(using: &random)!,
                          maneuver: ["turn", "depart", "roundabout", "arrive"].randomElement(using: &random)!,
                          modifier: Bool.random(using: &random) ? nil : ["left", "slight right", "straight"].randomElement(using: &random)!,
                          distance: (Double.random(in: 0...500, using: &random) * 10).rounded() / 10)
    }

    static func state(_ random: inout SeededGenerator) -> SessionState {
        var route = SessionRouteMatchTests.route(around: (48.41, 15.61), count: 60, seed: random.next())
        var along = 0.0
        route.steps = (0..<Int.random(in: 1...8, using: &random)).map { index in
            defer { along += 40 }
            return SessionRoute.Step(kind: index == 0 ? "depart" : "turn", modifier: Bool.random(using: &random) ? nil : "left", exit: nil,
                                     name: Bool.random(using: &random) ? "" : "Wiener Straße/\(index)", ref: Bool.random(using: &random) ? nil : "B3",
                                     wayClass: "residential", latitude: 48.41, longitude: 15.61, bearingBefore: 0, bearingAfter: 90,
                                     distance: 40, duration: 8, along: along, final: false)
        }
        var state = SessionState()
        state.exists = true
        state.route = route
        state.along = Double.random(in: 0...route.distance, using: &random)
        state.ridden = state.along * 1.1
        state.offset = Bool.random(using: &random) ? nil : Double.random(in: 0...30, using: &random)
        state.targetsReached = Int.random(in: 0...2, using: &random)
        state.reroutes = Int.random(in: 0...3, using: &random)
        state.status = [.active, .arrived].randomElement(using: &random)!
        return state
    }

    @Test("PositionsTracked: the writer's bytes are ContractJSON's, for 500 random events")
    func tracked() throws {
        var random = SeededGenerator(seed: 4_711)
        for _ in 0..<500 {
            let event = PositionsTracked(sessionId: UUID(), riderId: UUID(), fixes: Int.random(in: 1...100, using: &random),
                                         lastFixAt: Date(timeIntervalSince1970: 1_795_341_600 + Double(Int.random(in: 0...86_400_000, using: &random)) / 1_000),
                                         along: Double.random(in: 0...20_000, using: &random), ridden: Double.random(in: 0...20_000, using: &random),
                                         offRouteStreak: Int.random(in: 0...3, using: &random), wrongWayStreak: Int.random(in: 0...3, using: &random),
                                         targetsReached: Int.random(in: 0...3, using: &random),
                                         announced: (0..<Int.random(in: 0...12, using: &random)).map { "\($0):alert" }.sorted(),
                                         instruction: Bool.random(using: &random) ? nil : Self.instruction(&random),
                                         offset: Bool.random(using: &random) ? nil : (Double.random(in: 0...80, using: &random) * 10).rounded() / 10)
            let written = try #require(event.jsonBytes(style: .contract))
            #expect(Data(written) == (try ContractJSON.encoder.encode(event)))
            // Read back, it writes the same bytes again (dates at the log's microseconds).
            #expect(try ContractJSON.decode(PositionsTracked.self, from: Data(written)).jsonBytes(style: .contract) == written)
        }
    }

    @Test("PositionsResponse: the writer says what the service encoder says (in declaration order), for 500 random answers; a reroute is left to JSONEncoder")
    func answer() throws {
        var random = SeededGenerator(seed: 815)
        for _ in 0..<500 {
            let state = Self.state(&random)
            let answer = TrackAnswer(state: state, applied: Int.random(in: 1...5, using: &random),
                                     instruction: Bool.random(using: &random) ? nil : Self.instruction(&random), rerouted: nil,
                                     rerouteFailed: Bool.random(using: &random), arrived: state.status == .arrived,
                                     stopsReached: Bool.random(using: &random) ? [] : [UUID(), UUID()])
            let response = PositionsResponse(answer)
            let written = try #require(response.jsonBytes(style: .service))
            let expected = try ServiceJSON.makeEncoder().encode(response)
            #expect(JSONOutput.equivalent(Data(written), expected), "\(String(decoding: written, as: UTF8.self))\n\(String(decoding: expected, as: UTF8.self))")
            #expect(String(decoding: written, as: UTF8.self).hasPrefix(#"{"sessionId":""#))
        }
        var state = Self.state(&random)
        state.reroutes = 1
        let rerouted = PositionsResponse(TrackAnswer(state: state, applied: 1, instruction: nil, rerouted: .offRoute, rerouteFailed: false, arrived: false))
        #expect(rerouted.jsonBytes(style: .service) == nil)
    }

    /// A number as a phone might write it: integer, fraction, exponent, negative zero.
    static func number(_ value: Double, _ random: inout SeededGenerator) -> String {
        switch Int.random(in: 0...4, using: &random) {
        case 0: return String(value)
        case 1: return String(format: "%.6f", value)
        case 2: return String(format: "%e", value)
        case 3: return String(Int(value.rounded()))
        default: return value == 0 ? "-0.0" : String(value)
        }
    }

    @Test("the position body's fast reader gives exactly what JSONDecoder gives, for 2,000 random bodies")
    func fastReaderEqualsDecoder() throws {
        var random = SeededGenerator(seed: 99)
        let decoder = ServiceJSON.makeDecoder()
        let stamps = ["2027-01-15T08:00:00.000Z", "2027-01-15T08:00:00Z", "2027-01-15T08:00:00.123456Z", "2026-11-27T23:59:59.999Z"]
        for _ in 0..<2_000 {
            let fixes = (0..<Int.random(in: 0...4, using: &random)).map { _ -> String in
                var members = ["\"lat\":\(Self.number(Double.random(in: -90...90, using: &random), &random))",
                               "\"lng\":\(Self.number(Double.random(in: -180...180, using: &random), &random))",
                               "\"time\":\"\(stamps.randomElement(using: &random)!)\""]
                if Bool.random(using: &random) { members.append("\"accuracy\":\(Self.number(Double.random(in: 0...50, using: &random), &random))") }
                if Bool.random(using: &random) { members.append("\"speed\":\(Self.number(Double.random(in: 0...15, using: &random), &random))") }
                if Bool.random(using: &random) { members.append("\"course\":\(Self.number(Double.random(in: 0..<360, using: &random), &random))") }
                members.shuffle(using: &random)
                let space = Bool.random(using: &random) ? " " : ""
                return "{\(space)" + members.joined(separator: ",\(space)") + "\(space)}"
            }
            let body = Data(#"{"fixes":["# .utf8 + Data(fixes.joined(separator: ",").utf8) + Data("]}\n".utf8))
            let fast = try #require(PositionsBody.readFast(body), "\(String(decoding: body, as: UTF8.self))")
            #expect(fast == (try decoder.decode(PositionsBody.self, from: body)), "\(String(decoding: body, as: UTF8.self))")
        }
    }

    @Test("bodies outside the strict shape are left to JSONDecoder", arguments: [
        #"{"fixes":[{"lat":48.4,"lng":15.6,"time":"2027-01-15T08:00:00Z","speed":null}]}"#,
        #"{"fixes":[{"lat":48.4,"lng":15.6,"time":"2027-01-15T08:00:00Z","extra":1}]}"#,
        #"{"fixes":[{"lat":48.4,"lat":48.5,"lng":15.6,"time":"2027-01-15T08:00:00Z"}]}"#,
        #"{"fixes":[],"fixes":[]}"#,
        #"{"fixes":[{"lat":48.4,"lng":15.6,"time":"2027-01-15T08:00:00\u005A"}]}"#,
        #"{"fixes":[{"lat":48.4,"lng":15.6,"time":"yesterday"}]}"#,
        #"{"fixes":[{"lat":48.4,"lng":15.6}]}"#,
        #"{"fixes":[{"lat":"48.4","lng":15.6,"time":"2027-01-15T08:00:00Z"}]}"#,
        #"{"fixes":[{"lat":1e999,"lng":15.6,"time":"2027-01-15T08:00:00Z"}]}"#,
        #"{"fixes":[{"lat":48.4,"lng":15.6,"time":"2027-01-15T08:00:00Z"}]} x"#,
        #"{"fixes":[{"lat":48.4,"lng":15.6,"time":"2027-01-15T08:00:00Z"}"#,
        #"{"lat":48.4,"lng":15.6,"time":"2027-01-15T08:00:00Z"}"#,
        #"[]"#,
        "",
    ])
    func refused(_ body: String) {
        #expect(PositionsBody.readFast(Data(body.utf8)) == nil)
    }
}
