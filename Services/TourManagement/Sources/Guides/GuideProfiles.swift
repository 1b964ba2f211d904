import AsyncHTTPClient
import Contracts
import Foundation
import Logging
import Messaging
import NIOCore
import Synchronization

/// How a guide appears on public tour pages: the public name `auth` serves, or nil when it may not (or cannot) be shown.
public struct PublicGuide: Codable, Sendable, Hashable {
    public var id: UUID
    /// The profile's `displayName` when set, else its `username`; nil for suspended, erased and unknown accounts, and
    /// while `auth` cannot be reached.
    public var name: String?

    public init(id: UUID, name: String?) {
        self.id = id
        self.name = name
    }
}

/// Guides' public names for tour pages, asked of `auth` (`GET {authURL}/v1/users/{id}`, its `PublicProfile`) and kept in
/// memory for ``timeToLive``. Names never reach tour-management's database, so erasing a person needs only the
/// in-memory entry dropped (and `auth` forgetting them).
///
/// - The `waypoint.auth` consumer (``SQLiteGuideAccountsHandler`` / ``PostgresGuideAccountsHandler``) invalidates an
///   entry on `UserRegistered`, `UserProfileUpdated`, `UserSuspended` and `UserReactivated`, and drops it on
///   `UserErased`.
/// - Accounts that `guide_accounts` marks suspended or erased are never fetched: their name is nil.
/// - `auth` unreachable, slow (over ``requestTimeout``) or answering anything but 200/404: the name is nil, logged at
///   debug, never an error; for ``unavailableBackoff`` afterwards no request is tried, so pages do not each wait for the
///   timeout while `auth` is down. Such results are not cached.
/// - A fetch that an invalidation overtakes answers its caller but is not cached.
public final class GuideProfiles: Sendable {
    /// `auth`'s base URL.
    public let authURL: URL
    /// How long a fetched profile (or a 404) is kept.
    public let timeToLive: Duration
    /// The deadline of one profile request.
    public let requestTimeout: Duration
    /// How long no request is tried after `auth` could not be reached.
    public let unavailableBackoff: Duration
    /// Most profile requests in flight for one ``publicGuides(_:)`` call.
    public let maxConcurrentFetches: Int
    /// Most cached entries; beyond, the entries closest to expiry are dropped.
    public let capacity: Int
    let accounts: GuideAccounts
    let httpClient: HTTPClient
    let logger: Logger
    private let state = Mutex(State())

    private struct Entry {
        var name: String?
        var expires: ContinuousClock.Instant
    }

    private struct State {
        var entries: [UUID: Entry] = [:]
        /// Fetches in flight by user id, with their token; an invalidation removes the id so the result is not cached.
        var inFlight: [UUID: UInt64] = [:]
        var nextToken: UInt64 = 0
        var unavailableUntil: ContinuousClock.Instant?
        var requests = 0
    }

    private enum Fetched {
        case found(String)
        case notFound
        case unavailable(String)
    }

    public init(authURL: URL, accounts: GuideAccounts, httpClient: HTTPClient = .shared, timeToLive: Duration = .seconds(600),
                requestTimeout: Duration = .seconds(2), unavailableBackoff: Duration = .seconds(5), maxConcurrentFetches: Int = 8,
                capacity: Int = 10_000, logger: Logger = Logger(label: "waypoint.tour-management.guide-profiles")) {
        self.authURL = authURL
        self.accounts = accounts
        self.httpClient = httpClient
        self.timeToLive = timeToLive
        self.requestTimeout = requestTimeout
        self.unavailableBackoff = unavailableBackoff
        self.maxConcurrentFetches = max(1, maxConcurrentFetches)
        self.capacity = max(1, capacity)
        self.logger = logger
    }

    /// The `waypoint.auth` consumer that keeps `guide_accounts` and this cache current, and the profiles themselves.
    /// Run `consumer` as a background service and register it with readiness (`readiness.register(consumer)`).
    ///
    /// - Parameters:
    ///   - accounts: `guide_accounts` on the configured backend (``TourManagementStores/guideAccounts``).
    ///   - authURL: `auth`'s base URL (`ServiceEndpoints.baseURL(of: "auth")`, i.e. `WAYPOINT_AUTH_URL`): profiles, and
    ///     the embedded feed when Kafka is not configured.
    ///   - internalToken: The internal token `auth`'s embedded feed requires (`WAYPOINT_INTERNAL_TOKEN`).
    public static func make(storage: ServiceStorage, accounts: any GuideAccountStore, authURL: URL, internalToken: String?,
                            options: ConsumerOptions = ConsumerOptions(),
                            logger: Logger) throws -> (consumer: any ConsumerService, profiles: GuideProfiles) {
        let profiles = GuideProfiles(authURL: authURL, accounts: GuideAccounts(store: accounts), logger: logger)
        let consumer = try storage.consuming(.auth, producerURL: authURL, internalToken: internalToken,
                                             sqlite: SQLiteGuideAccountsHandler(profiles: profiles),
                                             postgres: PostgresGuideAccountsHandler(profiles: profiles), options: options, logger: logger)
        return (consumer, profiles)
    }

    // MARK: Reading

    /// The guide as a public page shows them. Never throws: whatever goes wrong, the name is nil.
    public func publicGuide(_ id: UUID) async -> PublicGuide {
        await publicGuides([id])[id] ?? PublicGuide(id: id, name: nil)
    }

    /// ``publicGuide(_:)`` for a list page: one `guide_accounts` read, then at most ``maxConcurrentFetches`` profile
    /// requests at a time for the guides not cached. Every id of `ids` is in the answer.
    public func publicGuides(_ ids: [UUID]) async -> [UUID: PublicGuide] {
        var result: [UUID: PublicGuide] = [:]
        var missing: [UUID] = []
        let now = ContinuousClock.now
        state.withLock { state in
            for id in Set(ids) {
                if let entry = state.entries[id], entry.expires > now {
                    result[id] = PublicGuide(id: id, name: entry.name)
                } else {
                    missing.append(id)
                }
            }
        }
        guard !missing.isEmpty else { return result }

        let known: [UUID: GuideAccount]
        do {
            known = try await accounts.accounts(missing)
        } catch {
            // The account table is only a shortcut: without it, auth's 404 still hides suspended and erased accounts.
            logger.debug("guide_accounts unavailable; asking auth", metadata: ["error": "\(error)"])
            known = [:]
        }
        var toFetch: [UUID] = []
        for id in missing {
            switch known[id]?.status {
            case .suspended?, .erased?:
                result[id] = PublicGuide(id: id, name: nil)
            case .active?, nil:
                toFetch.append(id)
            }
        }
        if !toFetch.isEmpty, let until = state.withLock({ $0.unavailableUntil }), until > .now {
            for id in toFetch { result[id] = PublicGuide(id: id, name: nil) }
            return result
        }
        await withTaskGroup(of: PublicGuide.self) { group in
            var pending = toFetch[...]
            func startNext() {
                guard let id = pending.popFirst() else { return }
                group.addTask { PublicGuide(id: id, name: await self.fetchAndCache(id)) }
            }
            for _ in 0..<min(maxConcurrentFetches, pending.count) { startNext() }
            for await guide in group {
                result[guide.id] = guide
                startNext()
            }
        }
        return result
    }

    // MARK: Invalidation (the waypoint.auth consumer)

    /// Forgets the cached profile of `id`: the next read asks `auth` again.
    public func invalidate(_ id: UUID) {
        state.withLock { state in
            state.entries[id] = nil
            state.inFlight[id] = nil
        }
    }

    /// Drops everything held in memory about `id` (the person was erased).
    public func forget(_ id: UUID) {
        invalidate(id)
    }

    func apply(_ effect: GuideCacheEffect, to id: UUID) {
        switch effect {
        case .none: return
        case .invalidate: invalidate(id)
        case .forget: forget(id)
        }
    }

    // MARK: Introspection (operators, tests)

    /// The ids with a cached entry (fresh or expired).
    public var cachedIDs: Set<UUID> {
        state.withLock { Set($0.entries.keys) }
    }

    /// Profile requests sent to `auth` so far.
    public var requestCount: Int {
        state.withLock { $0.requests }
    }

    // MARK: Fetching

    private func fetchAndCache(_ id: UUID) async -> String? {
        let token = state.withLock { state -> UInt64 in
            state.nextToken += 1
            state.inFlight[id] = state.nextToken
            state.requests += 1
            return state.nextToken
        }
        let fetched = await fetch(id)
        return state.withLock { state -> String? in
            let current = state.inFlight[id] == token
            if current { state.inFlight[id] = nil }
            switch fetched {
            case .found(let name):
                if current { store(name, for: id, in: &state) }
                return name
            case .notFound:
                if current { store(nil, for: id, in: &state) }
                return nil
            case .unavailable:
                state.unavailableUntil = .now + unavailableBackoff
                return nil
            }
        }
    }

    private func store(_ name: String?, for id: UUID, in state: inout State) {
        let now = ContinuousClock.now
        if state.entries[id] == nil, state.entries.count >= capacity {
            state.entries = state.entries.filter { $0.value.expires > now }
            if state.entries.count >= capacity {
                let drop = state.entries.sorted { $0.value.expires < $1.value.expires }.prefix(max(1, capacity / 10)).map(\.key)
                for key in drop { state.entries[key] = nil }
            }
        }
        state.entries[id] = Entry(name: name, expires: now + timeToLive)
    }

    private func fetch(_ id: UUID) async -> Fetched {
        var base = authURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        var request = HTTPClientRequest(url: "\(base)/v1/users/\(id.uuidString.lowercased())")
        request.headers.add(name: "Accept", value: "application/json")
        let outcome: Fetched
        do {
            let milliseconds = requestTimeout.components.seconds * 1000 + requestTimeout.components.attoseconds / 1_000_000_000_000_000
            let response = try await httpClient.execute(request, timeout: .milliseconds(milliseconds))
            let body = try await response.body.collect(upTo: 64 * 1024)
            switch response.status.code {
            case 200:
                let profile = try JSONDecoder().decode(PublicProfile.self, from: Data(buffer: body))
                outcome = .found(profile.publicName)
            case 404:
                outcome = .notFound
            default:
                outcome = .unavailable("status \(response.status.code)")
            }
        } catch {
            outcome = .unavailable("\(error)")
        }
        if case .unavailable(let reason) = outcome {
            logger.debug("guide profile unavailable; showing no name", metadata: [
                "user.id": "\(id.uuidString.lowercased())", "auth.url": "\(base)", "error": "\(reason)"])
        }
        return outcome
    }
}

/// `auth`'s `PublicProfile` (`Services/Auth/Sources/openapi.yaml`): `id`, `username` and `role` always, `displayName` and
/// `avatarUrl` when set. Read tolerantly: only the name fields matter here.
struct PublicProfile: Decodable {
    var id: String
    var username: String
    var displayName: String?

    var publicName: String {
        if let displayName, !displayName.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { return displayName }
        return username
    }
}
