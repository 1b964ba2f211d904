import Contracts
import EventSourcing
import Foundation
import Hummingbird
import Logging
import Messaging
import NIOCore
import ServiceKit
import ServiceTesting
import Synchronization
import Testing
import TourManagement

/// tour-management consuming `waypoint.auth`: the `guide_accounts` table, and guides' public names from `auth`'s profile
/// endpoint, cached and invalidated by the events. `auth` is a stand-in on loopback serving a real embedded feed from its
/// own `ServiceStorage` (Contracts events appended to its log) and `GET /v1/users/{id}` shaped like auth's `PublicProfile`.
@Suite("tour-management: guide accounts from waypoint.auth and public guide names")
struct GuideProfilesTests {
    static let token = "internal-token-for-guide-tests-0123"
    static let t0 = Date(timeIntervalSince1970: 1_795_341_600)

    static var quiet: Logger {
        var logger = Logger(label: "test.guide-profiles")
        logger.logLevel = .warning
        return logger
    }

    // MARK: The tests

    @Test("registration, profile update, suspension, reactivation, erasure and redelivery over the embedded feed",
          arguments: TestBackend.enabled)
    func lifecycle(backend: TestBackend) async throws {
        try await Self.withAuthStub { auth in
            try await Self.withTourManagement(backend, authURL: auth.url) { storage, consumer, profiles in
                let guide = UUID(), other = UUID()
                auth.board.set(guide, username: "anna.guide", displayName: nil)
                auth.board.set(other, username: "ben", displayName: "Ben B.")
                try await auth.append(UserRegistered(userId: guide, username: Self.sealed(guide), email: Self.sealed(guide), role: .guide,
                                                     licenceNumber: nil, method: .password, registeredAt: Self.t0))
                try await auth.append(UserRegistered(userId: other, username: Self.sealed(other), email: Self.sealed(other), role: .guide,
                                                     licenceNumber: Self.sealed(other), method: .google, registeredAt: Self.t0))
                try await auth.append(SessionStarted(sessionId: UUID(), userId: guide, method: .password, startedAt: Self.t0,
                                                     expiresAt: Self.t0.addingTimeInterval(3600)), stream: "session-\(UUID())")
                try await Self.caughtUp(consumer, auth)
                let accounts = try await Self.accounts(storage)

                // Registration: the name comes from the profile endpoint (username without a display name), then from cache.
                #expect(try await accounts.account(guide) == GuideAccount(userId: guide, role: .guide, status: .active, updatedAt: Self.t0))
                #expect(await profiles.publicGuide(guide) == PublicGuide(id: guide, name: "anna.guide"))
                #expect(await profiles.publicGuides([guide, other, guide]) == [
                    guide: PublicGuide(id: guide, name: "anna.guide"), other: PublicGuide(id: other, name: "Ben B."),
                ])
                #expect(auth.board.requests(for: guide) == 1, "the second read is served from the cache")
                #expect(profiles.cachedIDs == [guide, other])

                // Profile update: the event invalidates the entry; the next read shows the new display name.
                auth.board.set(guide, username: "anna.guide", displayName: "Anna Gruber")
                #expect(await profiles.publicGuide(guide).name == "anna.guide", "cached until auth says it changed")
                let updatedAt = Self.t0.addingTimeInterval(60)
                try await auth.append(UserProfileUpdated(userId: guide, displayName: Self.sealed(guide), avatarUrl: nil,
                                                         homeCurrency: nil, language: "de-AT", updatedAt: updatedAt))
                try await Self.caughtUp(consumer, auth)
                #expect(!profiles.cachedIDs.contains(guide))
                #expect(await profiles.publicGuide(guide).name == "Anna Gruber")
                #expect(auth.board.requests(for: guide) == 2)
                #expect(try await accounts.account(guide)?.profileVersion == 1)
                #expect(try await accounts.account(guide)?.profileUpdatedAt == updatedAt)

                // Suspension: no name, and auth is not asked (the stand-in would still answer with one).
                try await auth.append(UserSuspended(userId: guide, suspendedBy: other, suspendedAt: Self.t0.addingTimeInterval(120)))
                try await Self.caughtUp(consumer, auth)
                #expect(try await accounts.account(guide)?.status == .suspended)
                #expect(await profiles.publicGuide(guide) == PublicGuide(id: guide, name: nil))
                #expect(await profiles.publicGuides([guide, other])[guide]?.name == nil)
                #expect(auth.board.requests(for: guide) == 2, "a suspended guide's profile is never fetched")

                // Reactivation: shown again.
                try await auth.append(UserReactivated(userId: guide, reactivatedBy: other, reactivatedAt: Self.t0.addingTimeInterval(180)))
                try await Self.caughtUp(consumer, auth)
                #expect(await profiles.publicGuide(guide).name == "Anna Gruber")
                #expect(auth.board.requests(for: guide) == 3)

                // Erasure: the row is a tombstone, the cache entry is gone, the name is nil and auth is not asked.
                let erasedAt = Self.t0.addingTimeInterval(240)
                try await auth.append(UserErased(userId: guide, erasedAt: erasedAt))
                try await Self.caughtUp(consumer, auth)
                #expect(try await accounts.account(guide) == GuideAccount(userId: guide, role: nil, status: .erased, updatedAt: erasedAt))
                #expect(!profiles.cachedIDs.contains(guide))
                #expect(await profiles.publicGuide(guide) == PublicGuide(id: guide, name: nil))
                #expect(!profiles.cachedIDs.contains(guide), "nothing about an erased person is cached again")
                #expect(auth.board.requests(for: guide) == 3)

                // Redelivery of every event (a relay re-send, a rebalance) changes nothing: not the table, not the cache.
                let before = try await accounts.all()
                let cachedBefore = profiles.cachedIDs
                let published = try await auth.storage.store.readAll(after: 0, limit: 1_000).map { PublishedEvent($0, source: "auth") }
                #expect(try await Self.redeliver(published, storage: storage, profiles: profiles) == 0)
                #expect(try await accounts.all() == before)
                #expect(profiles.cachedIDs == cachedBefore)
                #expect(consumer.appliedEvents == published.count)
                #expect(await consumer.readinessCheck()() == CheckResult.ready)
            }
        }
    }

    @Test("the SQLite and PostgreSQL handlers fold the same events into the same table, and stop on an undecodable known event")
    func handlersConform() async throws {
        let other = UUID(), late = UUID(), traveller = UUID()
        var events: [PublishedEvent] = []
        func add<E: IntegrationEvent>(_ payload: E, stream: String? = nil, version: Int64) throws {
            let envelope = EventEnvelope(eventID: UUID(), streamID: stream ?? "user-\(version)", streamVersion: version,
                                         position: Int64(events.count + 1), eventType: E.eventType, schemaVersion: E.schemaVersion,
                                         payload: try EventJSON.encode(payload), metadata: EventMetadata(), recordedAt: Self.t0)
            events.append(PublishedEvent(envelope, source: "auth"))
        }
        let guide = UUID()
        let g = "user-\(guide.uuidString.lowercased())"
        try add(UserRegistered(userId: guide, username: Self.sealed(guide), email: Self.sealed(guide), role: .guide, licenceNumber: nil,
                               method: .password, registeredAt: Self.t0), stream: g, version: 1)
        try add(RoleGranted(userId: guide, role: .moderator, grantedBy: nil, grantedAt: Self.t0.addingTimeInterval(1)), stream: g, version: 2)
        try add(RoleGranted(userId: guide, role: .admin, grantedBy: nil, grantedAt: Self.t0.addingTimeInterval(2)), stream: g, version: 3)
        try add(RoleRevoked(userId: guide, role: .moderator, revokedBy: nil, revokedAt: Self.t0.addingTimeInterval(3)), stream: g, version: 4)
        try add(UserProfileUpdated(userId: guide, displayName: Self.sealed(guide), avatarUrl: nil, homeCurrency: nil, language: nil,
                                   updatedAt: Self.t0.addingTimeInterval(4)), stream: g, version: 5)
        try add(UserProfileUpdated(userId: guide, displayName: nil, avatarUrl: nil, homeCurrency: nil, language: "en",
                                   updatedAt: Self.t0.addingTimeInterval(5)), stream: g, version: 6)
        try add(UserSuspended(userId: guide, suspendedBy: nil, suspendedAt: Self.t0.addingTimeInterval(6)), stream: g, version: 7)
        try add(PasswordChanged(userId: guide, reason: .changed, changedAt: Self.t0.addingTimeInterval(7)), stream: g, version: 8)
        let o = "user-\(other.uuidString.lowercased())"
        try add(UserRegistered(userId: other, username: Self.sealed(other), email: Self.sealed(other), role: .guide, licenceNumber: nil,
                               method: .apple, registeredAt: Self.t0), stream: o, version: 1)
        try add(UserSuspended(userId: other, suspendedBy: nil, suspendedAt: Self.t0.addingTimeInterval(10)), stream: o, version: 2)
        try add(UserReactivated(userId: other, reactivatedBy: nil, reactivatedAt: Self.t0.addingTimeInterval(11)), stream: o, version: 3)
        try add(UserErased(userId: other, erasedAt: Self.t0.addingTimeInterval(12)), stream: o, version: 4)
        try add(RoleGranted(userId: other, role: .moderator, grantedBy: nil, grantedAt: Self.t0.addingTimeInterval(13)), stream: o, version: 5)
        // Registration past the topic's retention: the account is still tracked, its role unknown.
        try add(UserSuspended(userId: late, suspendedBy: nil, suspendedAt: Self.t0.addingTimeInterval(20)),
                stream: "user-\(late.uuidString.lowercased())", version: 7)
        try add(UserRegistered(userId: traveller, username: Self.sealed(traveller), email: Self.sealed(traveller), role: .traveller,
                               licenceNumber: nil, method: .password, registeredAt: Self.t0),
                stream: "user-\(traveller.uuidString.lowercased())", version: 1)
        try add(SessionRevoked(sessionId: UUID(), userId: guide, reason: .logout, revokedAt: Self.t0), stream: "session-1", version: 2)

        let expected: Set<GuideAccount> = [
            GuideAccount(userId: guide, role: .guide, grantedRoles: [.admin], status: .suspended, profileVersion: 2,
                         profileUpdatedAt: Self.t0.addingTimeInterval(5), updatedAt: Self.t0.addingTimeInterval(6)),
            GuideAccount(userId: other, role: nil, status: .erased, updatedAt: Self.t0.addingTimeInterval(12)),
            GuideAccount(userId: late, role: nil, status: .suspended, updatedAt: Self.t0.addingTimeInterval(20)),
            GuideAccount(userId: traveller, role: .traveller, status: .active, updatedAt: Self.t0),
        ]
        let delivered = events
        var tables: [TestBackend: [GuideAccount]] = [:]
        for backend in TestBackend.enabled {
            tables[backend] = try await Self.withStorage(backend) { storage in
                // Two batches, the second overlapping the first: the overlap is redelivery and is skipped.
                #expect(try await Self.redeliver(Array(delivered[..<9]), storage: storage) == 9)
                #expect(try await Self.redeliver(delivered, storage: storage) == delivered.count - 9)
                #expect(try await Self.redeliver(delivered, storage: storage) == 0)
                let rows = try await Self.accounts(storage).all()
                #expect(Set(rows) == expected, "\(backend)")

                // A known event whose payload does not decode stops the consumer; nothing of its batch is committed.
                let envelope = EventEnvelope(eventID: UUID(), streamID: "user-poison", streamVersion: 1, position: 99,
                                             eventType: UserSuspended.eventType, schemaVersion: 1, payload: Data(#"{"userId":42}"#.utf8),
                                             metadata: EventMetadata(), recordedAt: Self.t0)
                let newer = EventEnvelope(eventID: UUID(), streamID: "user-new", streamVersion: 1, position: 98,
                                          eventType: UserErased.eventType, schemaVersion: 1,
                                          payload: try EventJSON.encode(UserErased(userId: UUID(), erasedAt: Self.t0)),
                                          metadata: EventMetadata(), recordedAt: Self.t0)
                await #expect(throws: ConsumerFailure.self) {
                    try await Self.redeliver([PublishedEvent(newer, source: "auth"), PublishedEvent(envelope, source: "auth")], storage: storage)
                }
                var future = envelope
                future.schemaVersion = 2
                future.streamID = "user-future"
                await #expect(throws: ConsumerFailure.self) {
                    try await Self.redeliver([PublishedEvent(future, source: "auth")], storage: storage)
                }
                #expect(try await Self.accounts(storage).all() == rows)
                return rows
            }
        }
        if let sqlite = tables[.sqlite], let postgres = tables[.postgres] {
            #expect(sqlite == postgres, "both backends hold the same table")
        }
    }

    @Test("auth unreachable: no name, no error, and no request during the back-off")
    func authUnreachable() async throws {
        try await Self.withStorage(.sqlite) { storage in
            let profiles = GuideProfiles(authURL: URL(string: "http://127.0.0.1:9")!, accounts: try await Self.accounts(storage),
                                         requestTimeout: .milliseconds(500), logger: Self.quiet)
            let id = UUID()
            #expect(await profiles.publicGuide(id) == PublicGuide(id: id, name: nil))
            #expect(await profiles.publicGuides([id, UUID()]).values.allSatisfy { $0.name == nil })
            // One request in all (not one per guide) is what bounds the wait to one request's timeout; counted rather
            // than timed, since a shared 2-core machine under the full test run stretches any wall-clock bound.
            #expect(profiles.requestCount == 1, "after a failure, auth is left alone for the back-off")
            #expect(profiles.cachedIDs.isEmpty, "a failure is not cached")
        }
    }

    @Test("a list page fetches the uncached guides concurrently, at most maxConcurrentFetches at a time; unknown ids have no name")
    func listPage() async throws {
        try await Self.withAuthStub(delay: .milliseconds(20)) { auth in
            try await Self.withStorage(.sqlite) { storage in
                let profiles = GuideProfiles(authURL: auth.url, accounts: try await Self.accounts(storage), maxConcurrentFetches: 4,
                                             logger: Self.quiet)
                let ids = (0..<16).map { _ in UUID() }
                for (index, id) in ids.enumerated() { auth.board.set(id, username: "guide\(index)", displayName: nil) }
                let unknown = UUID()
                let page = await profiles.publicGuides(ids + [unknown])
                #expect(page.count == 17)
                #expect(page[unknown] == PublicGuide(id: unknown, name: nil))
                for (index, id) in ids.enumerated() { #expect(page[id]?.name == "guide\(index)") }
                #expect(auth.board.maxConcurrent <= 4 && auth.board.maxConcurrent >= 2)
                let requests = profiles.requestCount
                #expect(await profiles.publicGuides(ids + [unknown]) == page)
                #expect(profiles.requestCount == requests, "found and not-found answers are both cached")
            }
        }
    }

    // MARK: Support

    static func sealed(_ id: UUID) -> SealedPersonalData {
        SealedPersonalData(subject: id.uuidString.lowercased(), sealed: "AAECAwQFBgcICQoLc2VhbGVk")
    }

    /// Applies events through the consumer target of the storage's backend, as a transport would deliver them.
    @discardableResult
    static func redeliver(_ events: [PublishedEvent], storage: ServiceStorage, profiles: GuideProfiles? = nil) async throws -> Int {
        if let sqlite = storage.sqlite {
            let target = SQLiteConsumerTarget(database: sqlite, handler: SQLiteGuideAccountsHandler(profiles: profiles))
            _ = try await target.prepare()
            return try await target.apply(events)
        }
        let target = PostgresConsumerTarget(database: storage.postgres!, handler: PostgresGuideAccountsHandler(profiles: profiles))
        _ = try await target.prepare()
        return try await target.apply(events)
    }

    /// Waits until the consumer applied everything in the stand-in's log.
    static func caughtUp(_ consumer: any ConsumerService, _ auth: AuthStub) async throws {
        let head = try await auth.storage.store.headPosition()
        try await waitUntil("the consumer reached auth's position \(head)", interval: .milliseconds(5)) {
            if case .running(let positions, _) = consumer.status, positions["auth"] ?? 0 >= head { return true }
            if case .failed(let reason) = consumer.status { throw TestSetupError("consumer failed: \(reason)") }
            return false
        }
    }

    static func withStorage<T: Sendable>(_ backend: TestBackend, _ body: @Sendable (ServiceStorage) async throws -> T) async throws -> T {
        try await backend.withServiceStorage("tour-management", logger: quiet, body)
    }

    /// The reads of `guide_accounts` in `storage`, through the store the composition root opens.
    static func accounts(_ storage: ServiceStorage) async throws -> GuideAccounts {
        GuideAccounts(store: try await TourManagementStores.open(storage).guideAccounts)
    }

    /// tour-management's side, wired the way the server wires it: `GuideProfiles.make` on the given backend, the consumer
    /// running on the embedded transport (no Kafka brokers configured) against `authURL`.
    static func withTourManagement<T: Sendable>(
        _ backend: TestBackend, authURL: URL,
        _ body: @escaping @Sendable (ServiceStorage, any ConsumerService, GuideProfiles) async throws -> T
    ) async throws -> T {
        try await withStorage(backend) { storage in
            let (consumer, profiles) = try GuideProfiles.make(storage: storage, accounts: try await TourManagementStores.open(storage).guideAccounts,
                                                              authURL: authURL, internalToken: token,
                                                              options: ConsumerOptions(pollTimeout: .milliseconds(250)), logger: quiet)
            return try await withThrowingTaskGroup(of: T?.self) { group in
                group.addTask {
                    try await consumer.run()
                    return nil
                }
                group.addTask { try await body(storage, consumer, profiles) }
                defer { group.cancelAll() }
                while let result = try await group.next() {
                    if let result { return result }
                }
                throw TestSetupError("the consumer stopped before the test ended")
            }
        }
    }

    /// The `auth` stand-in: its own storage (SQLite) whose log is served as the real embedded feed, plus profiles.
    struct AuthStub: Sendable {
        let storage: ServiceStorage
        let board: ProfileBoard
        let url: URL

        func append<E: IntegrationEvent>(_ payload: E, stream: String? = nil) async throws {
            let userStream: String? = switch payload {
            case let e as UserRegistered: "user-\(e.userId.uuidString.lowercased())"
            case let e as UserProfileUpdated: "user-\(e.userId.uuidString.lowercased())"
            case let e as UserSuspended: "user-\(e.userId.uuidString.lowercased())"
            case let e as UserReactivated: "user-\(e.userId.uuidString.lowercased())"
            case let e as UserErased: "user-\(e.userId.uuidString.lowercased())"
            default: nil
            }
            let event = try NewEvent(eventType: E.eventType, schemaVersion: E.schemaVersion, encoding: payload)
            _ = try await storage.store.append([event], to: stream ?? userStream!, expectedVersion: .any)
        }
    }

    static func withAuthStub<T: Sendable>(delay: Duration = .zero, _ body: @escaping @Sendable (AuthStub) async throws -> T) async throws -> T {
        try await TestBackend.sqlite.withServiceStorage("auth", logger: quiet) { storage in
            let board = ProfileBoard(delay: delay)
            return try await LoopbackServer.run({ reportPort in
                try ServiceApplication(
                    configuration: ServiceConfiguration(serviceName: "auth", port: 0, internalToken: token, logLevel: .warning),
                    metrics: ServiceMetrics(), keySource: StaticKeySource(keys: [:]), logger: quiet,
                    onServerRunning: { reportPort($0.localAddress!.port!) }
                ) { routes in
                    storage.addFeedRoutes(to: routes)
                    routes.group("/v1/users").get(":id") { _, context -> Response in
                        await board.respond(to: try context.parameters.require("id"))
                    }
                }
            }, body: { port in
                try await body(AuthStub(storage: storage, board: board, url: URL(string: "http://127.0.0.1:\(port)")!))
            })
        }
    }
}

/// The stand-in's `GET /v1/users/{id}`: a `PublicProfile` (`id`, `username`, `displayName` when set, `role`) or 404,
/// counting requests per id and the most served at once.
final class ProfileBoard: Sendable {
    struct Profile: Sendable {
        var username: String
        var displayName: String?
    }

    private struct State {
        var profiles: [UUID: Profile] = [:]
        var requests: [UUID: Int] = [:]
        var inFlight = 0
        var maxInFlight = 0
    }

    private let state = Mutex(State())
    private let delay: Duration

    init(delay: Duration) {
        self.delay = delay
    }

    func set(_ id: UUID, username: String, displayName: String?) {
        state.withLock { $0.profiles[id] = Profile(username: username, displayName: displayName) }
    }

    func requests(for id: UUID) -> Int {
        state.withLock { $0.requests[id] ?? 0 }
    }

    var maxConcurrent: Int {
        state.withLock { $0.maxInFlight }
    }

    func respond(to rawID: String) async -> Response {
        let id = UUID(uuidString: rawID)
        let profile = state.withLock { state -> Profile? in
            if let id { state.requests[id, default: 0] += 1 }
            state.inFlight += 1
            state.maxInFlight = max(state.maxInFlight, state.inFlight)
            return id.flatMap { state.profiles[$0] }
        }
        if delay > .zero { try? await Task.sleep(for: delay) }
        state.withLock { $0.inFlight -= 1 }
        var headers = HTTPFields()
        guard let id, let profile else {
            headers[.contentType] = "application/problem+json"
            return Response(status: .notFound, headers: headers, body: .init(byteBuffer: ByteBuffer(
                string: #"{"type":"about:blank","title":"Not Found","status":404,"code":"not-found","detail":"no such user"}"#)))
        }
        var json: [String: String] = ["id": id.uuidString.lowercased(), "username": profile.username, "role": "guide"]
        json["displayName"] = profile.displayName
        headers[.contentType] = "application/json"
        let body = try! JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
