import Contracts
import EventSourcing
import Foundation
import HummingbirdTesting
@testable import RecordTrip
import RecordTripAnalysis
import RoadNetwork
import ServiceKit
import ServiceTesting
import Testing

@Suite("record-trip: the rider reviews candidates; only then are obstacles published, without the rider")
struct TripReviewTests {
    typealias App = TripApp

    /// A Krems street piece: the first edge of the network with at least two shape nodes, as a route correction.
    static var streetPiece: (nodes: [Int64], geometry: [(Double, Double)]) {
        let graph = TripTestNetwork.loaded.graph
        let edge = (0..<graph.edgeCount).first { graph.shapeNodes(of: $0).count >= 2 }!
        return (Array(graph.shapeNodes(of: edge)), graph.shape(of: edge).map { ($0.latitude, $0.longitude) })
    }

    @Test("review: every candidate decided, a missed obstacle added on the corrected route, shared as a path draft",
          arguments: TestBackend.enabled)
    func review(backend: TestBackend) async throws {
        try await App.with(backend) { client, h in
            let rider = UUID.v4()
            let token = try await App.token(rider)
            let id = try await App.create(client, token: token)
            let early = try await client.sendJSON(.post, "/v1/trips/\(id)/review", json: "{}", token: token)
            #expect(early.status == 409 && early.json["code"] as? String == "trip-not-finished")
            #expect(try await client.sendJSON(.post, "/v1/trips/\(id)/samples", json: App.chunk(0, first: 0, fixes: 60), token: token).status == 201)
            let finished = try await client.sendJSON(.post, "/v1/trips/\(id)/finish", token: token)
            // Holds with the placeholder detector (no candidate) and the real one (whatever it finds is rejected here).
            let candidates = (finished.json["candidates"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            let piece = Self.streetPiece
            let (lat, lng) = piece.geometry[0]
            let decisions = candidates.map { #"{"candidateId":"\#($0)","action":"reject"}"# }.joined(separator: ",")
            let route = #"[{"osmNodes":[\#(piece.nodes.map(String.init).joined(separator: ","))],"geometry":[\#(piece.geometry.map { #"{"lat":\#($0.0),"lng":\#($0.1)}"# }.joined(separator: ","))]}]"#
            let unknown = try await client.sendJSON(.post, "/v1/trips/\(id)/review",
                                                    json: #"{"decisions":[{"candidateId":"\#(UUID.v4())","action":"confirm"}]}"#, token: token)
            #expect(unknown.status == 422 && App.fields(unknown.json).contains("decisions[0].candidateId"))
            let invalid = try await client.sendJSON(.post, "/v1/trips/\(id)/review",
                                                    json: #"{"added":[{"position":{"lat":91,"lng":0},"kind":"crater","severity":2}],"condition":"bad"}"#,
                                                    token: token)
            #expect(invalid.status == 422 && Set(App.fields(invalid.json)) == ["added[0].position.lat", "added[0].kind", "added[0].severity", "condition"])
            #expect(try await client.sendJSON(.post, "/v1/trips/\(id)/review", json: "{}", token: try await App.token(UUID.v4())).status == 404)

            let body = #"{"decisions":[\#(decisions)],"added":[{"position":{"lat":\#(lat),"lng":\#(lng)},"kind":"pothole","severity":0.8}],"route":\#(route),"submitAsPathDraft":true,"condition":"medium"}"#
            let reviewed = try await client.sendJSON(.post, "/v1/trips/\(id)/review", json: body, token: token)
            #expect(reviewed.status == 200)
            #expect((reviewed.json["candidates"] as? [Any])?.isEmpty == true)
            let review = reviewed.json["review"] as? [String: Any]
            #expect((review?["obstacles"] as? [Any])?.count == 1 && review?["rejected"] as? Int == candidates.count)
            #expect((reviewed.json["route"] as? [String: Any])?["corrected"] as? Bool == true)
            let again = try await client.sendJSON(.post, "/v1/trips/\(id)/review", json: body, token: token)
            #expect(again.status == 409 && again.json["code"] as? String == "already-reviewed")

            let published = try await App.log(h).filter(RecordTripEvents.isPublished)
            #expect(published.map(\.eventType) == ["TripFinished", "ObstacleConfirmed", "RideSubmittedAsPathDraft"])
            let obstacle = try published[1].decode(ObstacleConfirmed.self)
            #expect(obstacle.kind == .pothole && obstacle.severity == 0.8 && !obstacle.detected)
            #expect(obstacle.osmNodes.count == 2 && piece.nodes.contains(obstacle.osmNodes[0]), "placed on the street piece's OSM nodes")
            #expect(!String(decoding: published[1].payload, as: UTF8.self).contains(rider.uuidString.lowercased()), "no rider id")
            let draft = try published[2].decode(RideSubmittedAsPathDraft.self)
            #expect(draft.pieces == [piece.nodes] && draft.condition == "medium" && draft.riderId == rider && draft.lengthM > 0)
        }
    }

    @Test("the decisions on candidates: confirm, move, retype, reject; undecided or twice-decided candidates are 422")
    func decisions() async throws {
        try await App.with { _, h in
            let reviews = h.server.reviews
            func candidate(_ kind: ObstacleCandidate.Kind) -> TripCandidate {
                TripCandidate(id: .v7(), candidate: ObstacleCandidate(time: 1, latitude: 48.41, longitude: 15.6, kind: kind, severity: 0.4,
                                                                      peakMps2: 12, speedMps: 5))
            }
            let c = [candidate(.pothole), candidate(.bump), candidate(.roughSurface), candidate(.bump)]
            let detail = TripAnalysisDetail(statistics: TripStatistics(), cleaning: CleaningCounts(), keptFixCount: 0, route: [], confidence: 0,
                                            candidates: c)
            let moved = Coordinate2D(latitude: 48.42, longitude: 15.61)
            let request = TripReviewRequest(decisions: [
                CandidateDecision(candidateId: c[0].id, action: .confirm, kind: nil, severity: nil, position: nil),
                CandidateDecision(candidateId: c[1].id, action: .move, kind: nil, severity: 0.9, position: moved),
                CandidateDecision(candidateId: c[2].id, action: .retype, kind: .pothole, severity: nil, position: nil),
                CandidateDecision(candidateId: c[3].id, action: .reject, kind: nil, severity: nil, position: nil),
            ], added: [], route: nil, submitAsPathDraft: false, condition: nil)
            let events = try await reviews.decide(request, detail: detail, trip: .v7(), rider: .v4())
            let obstacles = events.compactMap { if case .obstacle(let o) = $0 { o } else { nil } }
            #expect(obstacles.map(\.kind) == [.pothole, .bump, .pothole])
            #expect(obstacles[1].latitude == 48.42 && obstacles[1].severity == 0.9 && obstacles[0].severity == 0.4)
            #expect(obstacles.allSatisfy(\.detected) && obstacles.allSatisfy { $0.osmNodes.isEmpty }, "no route: placed by position only")
            guard case .reviewed(let reviewed)? = events.first else { Issue.record("no TripReviewed first"); return }
            #expect(reviewed.confirmed == 3 && reviewed.rejected == 1)

            var undecided = request
            undecided.decisions.removeLast()
            undecided.decisions.append(undecided.decisions[0])
            undecided.submitAsPathDraft = true
            do {
                _ = try await reviews.decide(undecided, detail: detail, trip: .v7(), rider: .v4())
                Issue.record("accepted an undecided candidate")
            } catch let problem as Problem {
                #expect(problem.status == .unprocessableContent)
                #expect(Set(problem.fieldErrors.map(\.code)) == ["duplicate", "undecided-candidate", "required"])
            }
        }
    }
}
