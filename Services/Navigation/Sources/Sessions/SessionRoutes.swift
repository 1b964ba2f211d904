import Foundation
import Hummingbird
import ServiceKit

/// `/v1/navigation/sessions` (a signed-in rider): start, current, one session, positions, pause, resume, end.
public struct SessionRoutes: Sendable {
    let sessions: NavigationSessions
    let list: any SessionListStore
    let tours: any TourCatalogStore
    let places: NavigationPlaces

    public init(sessions: NavigationSessions, list: any SessionListStore, tours: any TourCatalogStore, places: NavigationPlaces) {
        self.sessions = sessions
        self.list = list
        self.tours = tours
        self.places = places
    }

    /// The destination joins the rider's recent locations (`navigated`); in the background, so the start never waits
    /// on it or fails for it.
    private func rememberDestination(_ state: SessionState, rider: UUID) {
        guard let destination = state.destination?.coordinate else { return }
        let places = places, logger = sessions.logger, at = state.startedAt
        Task {
            do {
                _ = try await places.remember(destination, name: state.tour?.title, kind: .navigated, for: rider, at: at)
            } catch {
                logger.notice("destination not remembered as a recent place", metadata: ["error": "\(error)"])
            }
        }
    }

    public func addRoutes(to routes: ServiceRoutes) {
        let group = routes.authenticated("/v1/navigation/sessions")
        group.post(use: start)
        group.get("current", use: current)
        group.get(":id", use: show)
        group.post(":id/positions", use: positions)
        group.post(":id/pause", use: pause)
        group.post(":id/resume", use: resume)
        group.post(":id/end", use: end)
        routes.authenticated("/v1/navigation/tour-sessions").post(use: startTour)
    }

    /// `POST /v1/navigation/tour-sessions`: guidance from `from` through the stops of a tour the traveller owns (or
    /// guides); 403 `tour-not-owned` otherwise. Positions, pause, resume and end are the session routes'.
    @Sendable func startTour(_ request: Request, context: ServiceRequestContext) async throws -> EditedResponse<SessionResponse> {
        let rider = try context.requireCallerID()
        let body = try await request.decode(as: TourSessionBody.self, context: context).checked()
        guard let tour = try await tours.navigable(body.tourId, by: rider) else { throw SessionError.tourNotNavigable }
        let state = try await sessions.startTour(tour, from: body.from, language: body.language, rider: rider)
        rememberDestination(state, rider: rider)
        return EditedResponse(status: .created, headers: [.location: "/v1/navigation/sessions/\(state.sessionId.uuidString.lowercased())"],
                              response: SessionResponse(state))
    }

    /// `POST /v1/navigation/sessions`: 201 with the session, its route and first instruction.
    @Sendable func start(_ request: Request, context: ServiceRequestContext) async throws -> EditedResponse<SessionResponse> {
        let rider = try context.requireCallerID()
        let start = try await request.decode(as: SessionStartBody.self, context: context).start()
        let state = try await sessions.start(start, rider: rider)
        rememberDestination(state, rider: rider)
        return EditedResponse(status: .created, headers: [.location: "/v1/navigation/sessions/\(state.sessionId.uuidString.lowercased())"],
                              response: SessionResponse(state))
    }

    /// `GET /v1/navigation/sessions/current`: the rider's newest session that has not ended; 404 when none.
    @Sendable func current(_ request: Request, context: ServiceRequestContext) async throws -> SessionResponse {
        let rider = try context.requireCallerID()
        guard let id = try await list.current(of: rider) else { throw Problem.notFound("no navigation session is going on", code: "no-current-session") }
        return SessionResponse(try await sessions.session(id, of: rider))
    }

    /// `GET /v1/navigation/sessions/{id}`.
    @Sendable func show(_ request: Request, context: ServiceRequestContext) async throws -> SessionResponse {
        SessionResponse(try await sessions.session(try Self.id(context), of: try context.requireCallerID()))
    }

    /// `POST /v1/navigation/sessions/{id}/positions`: answered at once with progress and any instruction due.
    @Sendable func positions(_ request: Request, context: ServiceRequestContext) async throws -> PositionsResponse {
        let rider = try context.requireCallerID()
        let id = try Self.id(context)
        let fixes = try await request.decode(as: PositionsBody.self, context: context).fixes(now: sessions.now())
        return PositionsResponse(try await sessions.track(id, rider: rider, fixes: fixes))
    }

    @Sendable func pause(_ request: Request, context: ServiceRequestContext) async throws -> SessionResponse {
        let rider = try context.requireCallerID()
        return SessionResponse(try await sessions.execute(.pause(rider: rider, at: sessions.now()), on: try Self.id(context)))
    }

    @Sendable func resume(_ request: Request, context: ServiceRequestContext) async throws -> SessionResponse {
        let rider = try context.requireCallerID()
        return SessionResponse(try await sessions.execute(.resume(rider: rider, at: sessions.now()), on: try Self.id(context)))
    }

    /// `POST /v1/navigation/sessions/{id}/end` with an optional `{ "tripId" }`: the ride handed to record-trip.
    @Sendable func end(_ request: Request, context: ServiceRequestContext) async throws -> SessionResponse {
        let rider = try context.requireCallerID()
        // The body is optional: without a Content-Type there is none to read.
        let body = request.headers[.contentType] == nil ? SessionEndBody() : try await request.decode(as: SessionEndBody.self, context: context)
        return SessionResponse(try await sessions.execute(.end(rider: rider, tripId: body.tripId, at: sessions.now()), on: try Self.id(context)))
    }

    static func id(_ context: ServiceRequestContext) throws -> UUID {
        try context.parameters.require("id", as: UUID.self, ifInvalid: SessionError.notFound.problem)
    }
}
