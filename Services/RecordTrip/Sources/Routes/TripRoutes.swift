import Contracts
import EventSourcing
import Foundation
import Hummingbird
import NIOCore
import RecordTripAnalysis
import ServiceKit

/// `POST /v1/trips/{id}/samples`: 201 when the chunk was new, 200 when it had been received already.
struct ChunkResponse: ResponseEncodable, Sendable {
    var tripId: String
    var sequence: Int
    /// Chunk sequence numbers received so far, ascending.
    var chunks: [Int]
    var fixCount: Int
    var accelerationCount: Int
}

/// The trip routes of the rider (any signed-in user) under `/v1/trips`, and the public preview.
public struct TripRoutes: Sendable {
    let commands: TripCommands
    let reviews: TripReviews
    let reads: TripReads
    let analyses: TripAnalysisQueue
    /// The longest a finish or an import waits for the analysis before answering 202.
    let finishWait: Duration

    /// The routes over the service's commands, reviews, reads and analysis queue.
    public init(commands: TripCommands, reviews: TripReviews, reads: TripReads, analyses: TripAnalysisQueue, finishWait: Duration = .seconds(3)) {
        self.commands = commands
        self.reviews = reviews
        self.reads = reads
        self.analyses = analyses
        self.finishWait = finishWait
    }

    /// The body limits of the trip routes: 64 MiB for a GPX import, 16 MiB for chunks, previews and the rest.
    public static func bodyLimits(_ limits: TripLimits = .standard) -> [BodyLimitOverride] {
        [BodyLimitOverride(method: .post, pathPrefix: "/v1/trips/import", limit: limits.maximumImportBytes),
         BodyLimitOverride(method: .post, pathPrefix: "/v1/trips", limit: limits.maximumChunkBytes)]
    }

    /// Mounts every trip route.
    public func addRoutes(to routes: ServiceRoutes) {
        routes.optionallyAuthenticated("/v1/trips").post("preview", use: preview)
        let trips = routes.authenticated("/v1/trips")
        trips.post(use: create)
        trips.get(use: list)
        trips.get("summary", use: summary)
        trips.post("import", use: importGPX)
        trips.get(":id", use: show)
        trips.delete(":id", use: delete)
        trips.post(":id/samples", use: addChunk)
        trips.post(":id/finish", use: finish)
        trips.post(":id/review", use: review)
        trips.get(":id/export.gpx", use: exportGPX)
        trips.get(":id/export.geojson", use: exportGeoJSON)
    }

    // MARK: Recording

    /// `POST /v1/trips`: 201 with the new trip.
    @Sendable func create(_ request: Request, context: ServiceRequestContext) async throws -> EditedResponse<TripResponse> {
        let (rider, metadata) = try Self.caller(context)
        let body = try await request.decode(as: CreateTripRequest.self, context: context)
        let state = try await commands.create(rider: rider, navigationSessionId: body.navigationSessionId, metadata: metadata)
        var headers = HTTPFields()
        headers[.location] = "/v1/trips/\(state.tripId!.uuidString.lowercased())"
        return EditedResponse(status: .created, headers: headers, response: TripResponse(TripView(state: state)))
    }

    /// `POST /v1/trips/{id}/samples`: 201 new chunk, 200 the same chunk again.
    @Sendable func addChunk(_ request: Request, context: ServiceRequestContext) async throws -> EditedResponse<ChunkResponse> {
        let (rider, metadata) = try Self.caller(context)
        let trip = try Self.tripID(context)
        let body = try await request.decode(as: ChunkRequest.self, context: context)
        let (state, added) = try await commands.addChunk(trip: trip, rider: rider, sequence: body.sequence, samples: body.body.samples,
                                                         metadata: metadata)
        return EditedResponse(status: added ? .created : .ok, response: ChunkResponse(
            tripId: trip.lowercased, sequence: body.sequence, chunks: state.chunks.keys.sorted(), fixCount: state.fixCount,
            accelerationCount: state.accelerationCount))
    }

    /// `POST /v1/trips/{id}/finish`: records the finish, then waits for the analysis (up to the configured wait, or
    /// less by `Prefer: wait=` / `respond-async`): 200 with the analysed trip, or 202 with the trip `analysing`.
    @Sendable func finish(_ request: Request, context: ServiceRequestContext) async throws -> EditedResponse<TripResponse> {
        let (rider, metadata) = try Self.caller(context)
        let trip = try Self.tripID(context)
        let state = try await commands.requestFinish(trip: trip, rider: rider, metadata: metadata)
        return try await analysed(state, rider: rider, wait: FinishWait.requested(request.headers, most: finishWait), done: .ok)
    }

    /// Waits up to `wait` for the analysis of the trip `state` was recorded as (no wait unless it is `analysing`); the
    /// trip with `done` when it is analysed, else 202 Accepted with a `Location` to poll and `Retry-After`.
    private func analysed(_ state: TripState, rider: UUID, wait: Duration, done: HTTPResponse.Status) async throws
        -> EditedResponse<TripResponse> {
        guard let trip = state.tripId else { throw TripError.notFound }
        if state.status == .analysing { _ = await analyses.wait(for: trip, upTo: wait) }
        let view = try await reads.view(trip, caller: rider, isAdmin: false)
        var headers = HTTPFields()
        headers[.location] = "/v1/trips/\(trip.lowercased)"
        guard view.state.status == .analysing else {
            return EditedResponse(status: done, headers: headers, response: TripResponse(view))
        }
        headers[.retryAfter] = "1"
        return EditedResponse(status: .accepted, headers: headers, response: TripResponse(view))
    }

    /// `POST /v1/trips/import`: a GPX 1.1 body becomes a trip: 201 analysed, or 202 while the analysis runs (as a finish).
    @Sendable func importGPX(_ request: Request, context: ServiceRequestContext) async throws -> EditedResponse<TripResponse> {
        let (rider, metadata) = try Self.caller(context)
        let data: Data
        do {
            data = Data(try await request.body.collect(upTo: context.maxUploadSize).readableBytesView)
        } catch is NIOTooManyBytesError {
            throw Problem.payloadTooLarge(limitBytes: context.maxUploadSize)
        }
        let document: GPXDocument
        do {
            document = try GPXReader.read(data)
        } catch {
            throw TripError.invalidGPX(error.description)
        }
        try await commands.seal.requireSealable(rider)
        let state = try await commands.importRide(document, rider: rider, metadata: metadata)
        return try await analysed(state, rider: rider, wait: FinishWait.requested(request.headers, most: finishWait), done: .created)
    }

    /// `POST /v1/trips/preview`: statistics, matching and candidates of a ride, nothing stored; no sign-in needed.
    @Sendable func preview(_ request: Request, context: ServiceRequestContext) async throws -> PreviewResponse {
        let body = try await request.decode(as: PreviewRequest.self, context: context)
        let samples = SamplesBody(fixes: body.fixes, acceleration: body.acceleration).samples
        let times = samples.fixes.map(\.time).filter(\.isFinite)
        try TripAggregate.checkLimits(fixes: samples.fixes.count, acceleration: samples.acceleration.count, first: times.min(),
                                      last: times.max(), limits: commands.limits)
        return PreviewResponse(commands.analyzer.analyse(samples))
    }

    /// `DELETE /v1/trips/{id}`: 204; removed from every read model.
    @Sendable func delete(_ request: Request, context: ServiceRequestContext) async throws -> HTTPResponse.Status {
        let (rider, metadata) = try Self.caller(context)
        try await commands.delete(trip: try Self.tripID(context), rider: rider, metadata: metadata)
        return .noContent
    }

    // MARK: Review

    /// `POST /v1/trips/{id}/review`: the reviewed trip.
    @Sendable func review(_ request: Request, context: ServiceRequestContext) async throws -> TripResponse {
        let (rider, metadata) = try Self.caller(context)
        let trip = try Self.tripID(context)
        let body = try await request.decode(as: ReviewRequestBody.self, context: context)
        _ = try await reviews.review(trip: trip, rider: rider, request: body.request, metadata: metadata)
        return TripResponse(try await reads.view(trip, caller: rider, isAdmin: false))
    }

    // MARK: Helpers

    /// The caller and the metadata their events carry.
    static func caller(_ context: ServiceRequestContext) throws -> (UUID, EventMetadata) {
        let user = try context.requireCallerID()
        return (user, EventMetadata(actorID: try context.requireIdentity().subject, traceparent: context.traceparent))
    }

    /// The `{id}` path parameter; 404 `unknown-trip` when it is not a UUID.
    static func tripID(_ context: ServiceRequestContext) throws -> UUID {
        try context.parameters.require("id", as: UUID.self, ifInvalid: TripError.notFound.problem)
    }

    /// The caller and whether they are an admin (who may read any trip).
    static func reader(_ context: ServiceRequestContext) throws -> (UUID, Bool) {
        (try context.requireCallerID(), try context.requireIdentity().role == .admin)
    }
}
