import Contracts
import Foundation
import Hummingbird
import RoadNetwork
import ServiceKit

/// An instruction as a client reads it.
struct InstructionResponse: Codable, Sendable {
    var stepIndex: Int
    var phase: String
    var text: String
    var maneuver: String
    var modifier: String?
    var distanceM: Double

    init(_ instruction: IssuedInstruction) {
        stepIndex = instruction.stepIndex
        phase = instruction.phase
        text = instruction.text
        maneuver = instruction.maneuver
        modifier = instruction.modifier
        distanceM = instruction.distance
    }
}

/// Where the rider stands on the route.
struct ProgressResponse: Codable, Sendable {
    /// The rider's position on the route, `[lng, lat]`.
    var snapped: [Double]?
    /// Metres from the route of the newest usable fix.
    var offRouteM: Double?
    var alongM: Double
    var distanceRemainingM: Double
    var durationRemainingS: Double
    var riddenM: Double
    var currentStep: Int
    var nextStep: Int?
    var nextManeuver: String?
    var nextModifier: String?
    var nextRoad: String?
    var distanceToNextManeuverM: Double?
    var targetsReached: Int

    init(_ state: SessionState) {
        let route = state.route
        snapped = route.point(at: state.along).map(RouteGeometry.position)
        offRouteM = state.offset
        alongM = RouteGeometry.rounded(state.along, 1)
        distanceRemainingM = RouteGeometry.rounded(max(0, route.distance - state.along), 1)
        durationRemainingS = route.steps.isEmpty ? 0 : RouteGeometry.rounded(route.remainingDuration(from: state.along), 1)
        riddenM = RouteGeometry.rounded(state.ridden, 1)
        currentStep = route.steps.isEmpty ? 0 : route.stepIndex(at: state.along)
        let next = currentStep + 1
        if route.steps.indices.contains(next) {
            let step = route.steps[next]
            nextStep = next
            nextManeuver = step.kind
            nextModifier = step.modifier
            nextRoad = step.name.isEmpty ? step.ref : step.name
            distanceToNextManeuverM = RouteGeometry.rounded(max(0, step.along - state.along), 1)
        }
        targetsReached = state.targetsReached
    }
}

/// A session's route: its geometry (polyline6) and steps with their instructions.
struct SessionRouteResponse: Codable, Sendable {
    struct Step: Codable, Sendable {
        var index: Int
        var maneuver: String
        var modifier: String?
        var location: [Double]
        var name: String
        var distanceM: Double
        var durationS: Double
        var alongM: Double
        var instruction: String
    }

    var distanceM: Double
    var durationS: Double
    var geometry: String
    var steps: [Step]

    init(_ route: SessionRoute, language: InstructionLanguage) {
        distanceM = RouteGeometry.rounded(route.distance, 1)
        durationS = RouteGeometry.rounded(route.duration, 1)
        if case .polyline6(let text) = RouteGeometry(route.points.map { RoadPoint(latitude: $0[0], longitude: $0[1]) }, format: .polyline6) {
            geometry = text
        } else {
            geometry = ""
        }
        steps = route.steps.enumerated().map { index, step in
            Step(index: index, maneuver: step.kind, modifier: step.modifier, location: RouteGeometry.position(RoadPoint(latitude: step.latitude, longitude: step.longitude)),
                 name: step.name, distanceM: RouteGeometry.rounded(step.distance, 1), durationS: RouteGeometry.rounded(step.duration, 1),
                 alongM: RouteGeometry.rounded(step.along, 1),
                 instruction: route.routeStep(index).map { StepInstructions.text($0, language: language, finalArrival: step.final) } ?? "")
        }
    }
}

/// A tour session's tour and where the traveller stands in it.
struct TourResponse: Codable, Sendable {
    struct Stop: Codable, Sendable {
        var stopId: String
        var name: String
        var location: [Double]
        var triggerRadiusM: Double
        var reached: Bool
    }

    var tourId: String
    var title: String
    var stops: [Stop]

    init(_ plan: TourPlan, reached: [UUID]) {
        tourId = plan.tourId.uuidString.lowercased()
        title = plan.title
        stops = plan.stops.map { Stop(stopId: $0.stopId.uuidString.lowercased(), name: $0.name, location: RouteGeometry.position(RoadPoint(latitude: $0.latitude, longitude: $0.longitude)),
                                      triggerRadiusM: $0.radius, reached: reached.contains($0.stopId)) }
    }
}

/// A session as `GET`, start, pause, resume and end answer it.
struct SessionResponse: ResponseEncodable, Sendable {
    var id: String
    var kind: String
    var status: String
    var language: String
    var alternative: Int
    var reroutes: Int
    var fixes: Int
    var startedAt: Date
    var endedAt: Date?
    var tripId: String?
    var route: SessionRouteResponse
    var progress: ProgressResponse
    var instruction: InstructionResponse?
    var tour: TourResponse?

    init(_ state: SessionState) {
        id = state.sessionId.uuidString.lowercased()
        kind = state.kind.rawValue
        status = state.status.rawValue
        language = state.language
        alternative = state.alternative
        reroutes = state.reroutes
        fixes = state.fixes
        startedAt = state.startedAt
        endedAt = state.endedAt
        tripId = state.tripId?.uuidString.lowercased()
        route = SessionRouteResponse(state.route, language: InstructionLanguage(rawValue: state.language) ?? .en)
        progress = ProgressResponse(state)
        instruction = state.lastInstruction.map(InstructionResponse.init)
        tour = state.tour.map { TourResponse($0, reached: state.stopsReached) }
    }
}

/// The answer to a batch of fixes: at once, with what is due.
struct PositionsResponse: JSONWritableResponse, Sendable {
    var sessionId: String
    var status: String
    var applied: Int
    var progress: ProgressResponse
    /// The instruction due now (also pushed on the rider's stream); absent when nothing new is due.
    var instruction: InstructionResponse?
    var arrived: Bool
    /// `off-route` or `wrong-way` when this batch rerouted; the new route is in `route`.
    var rerouted: String?
    var rerouteFailed: Bool
    var reroutes: Int
    var route: SessionRouteResponse?
    /// Tour stops reached in this batch (each also pushed as `tour.stop-reached`).
    var stopsReached: [String]

    init(_ answer: TrackAnswer) {
        stopsReached = answer.stopsReached.map { $0.uuidString.lowercased() }
        sessionId = answer.state.sessionId.uuidString.lowercased()
        status = answer.state.status.rawValue
        applied = answer.applied
        progress = ProgressResponse(answer.state)
        instruction = answer.instruction.map(InstructionResponse.init)
        arrived = answer.arrived
        rerouted = answer.rerouted?.rawValue
        rerouteFailed = answer.rerouteFailed
        reroutes = answer.state.reroutes
        route = answer.rerouted == nil ? nil : SessionRouteResponse(answer.state.route, language: InstructionLanguage(rawValue: answer.state.language) ?? .en)
    }
}

// The position update's answer writes itself (``JSONWritableResponse``): it is the one answer sent for every fix of
// every session, and `JSONEncoder` was the largest cost of the request after the HTTP stack. The members are written
// in declaration order as the synthesised `Encodable` writes them; debug builds check every answer against it.

extension InstructionResponse: JSONWritable {
    static var jsonStyle: JSONOutput.Style { .service }

    func write(to output: inout JSONOutput) {
        output.object { output in
            output.member("stepIndex", stepIndex)
            output.member("phase", phase)
            output.member("text", text)
            output.member("maneuver", maneuver)
            output.member("modifier", modifier)
            output.member("distanceM", distanceM)
        }
    }
}

extension ProgressResponse: JSONWritable {
    static var jsonStyle: JSONOutput.Style { .service }

    func write(to output: inout JSONOutput) {
        output.object { output in
            if let snapped { output.member("snapped", snapped) }
            output.member("offRouteM", offRouteM)
            output.member("alongM", alongM)
            output.member("distanceRemainingM", distanceRemainingM)
            output.member("durationRemainingS", durationRemainingS)
            output.member("riddenM", riddenM)
            output.member("currentStep", currentStep)
            output.member("nextStep", nextStep)
            output.member("nextManeuver", nextManeuver)
            output.member("nextModifier", nextModifier)
            output.member("nextRoad", nextRoad)
            output.member("distanceToNextManeuverM", distanceToNextManeuverM)
            output.member("targetsReached", targetsReached)
        }
    }
}

extension PositionsResponse {
    func write(to output: inout JSONOutput) {
        // A reroute's answer carries the whole new route: rare, and left to `JSONEncoder`.
        guard route == nil else { return output.fail() }
        output.object { output in
            output.member("sessionId", sessionId)
            output.member("status", status)
            output.member("applied", applied)
            output.member("progress", progress)
            output.member("instruction", instruction)
            output.member("arrived", arrived)
            output.member("rerouted", rerouted)
            output.member("rerouteFailed", rerouteFailed)
            output.member("reroutes", reroutes)
            output.member("stopsReached", stopsReached)
        }
    }
}
