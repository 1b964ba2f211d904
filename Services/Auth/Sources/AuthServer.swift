import AuthInfrastructure
import Contracts
import EventSourcing
import Foundation
import JWTKit
import Logging
import Messaging
import NIOCore
import ServiceKit
import ServiceLifecycle

/// The assembled `auth` service: storage, read model, keys, commands and HTTP application.
public struct AuthServer: Sendable {
    public let configuration: AuthConfiguration
    public let storage: ServiceStorage
    public let directory: AuthDirectory
    public let keyRing: SigningKeyRing
    public let commands: AuthCommands
    public let hasher: PasswordHasher

    /// Builds the service over opened storage (`ServiceStorage.withOpen`): loads or creates the signing keys and folds
    /// the log into the directory.
    public static func assemble(_ configuration: AuthConfiguration, storage: ServiceStorage, now: @escaping @Sendable () -> Date = Date.init,
                                logger: Logger = Logger(label: "waypoint.auth")) async throws -> AuthServer {
        let personalData = PersonalData(keys: storage.personalDataKeys)
        let directory = AuthDirectory(store: storage.store, open: personalData.open, logger: logger)
        try await storage.migrate(AuthMigrations.all)
        let keyStorage = storage.backend(sqlite: { database -> any SigningKeyStorage in SQLiteSigningKeyStorage(database: database) },
                                         postgres: { database -> any SigningKeyStorage in PostgresSigningKeyStorage(database: database, logger: logger) })
        let keyRing = makeKeyRing(keyStorage, now: now, logger: logger)
        try await keyRing.start()
        try await directory.sync()
        let hasher = try PasswordHasher(cost: configuration.bcryptCost)
        let issuer = AccessTokenIssuer(keyRing: keyRing, issuer: configuration.service.jwtIssuer,
                                       audience: configuration.service.jwtAudience, now: now)
        let mail: any EmailSender = if let smtp = configuration.smtp {
            SMTPEmailSender(configuration: smtp)
        } else {
            MailboxDirectorySender(directory: configuration.mailboxDirectory, from: configuration.mailFrom)
        }
        let commands = AuthCommands(store: storage.store, directory: directory, personalData: personalData, hasher: hasher,
                                    issuer: issuer, mail: mail, settings: configuration.settings, now: now, logger: logger)
        try await commands.resumeErasures()
        return AuthServer(configuration: configuration, storage: storage, directory: directory, keyRing: keyRing,
                          commands: commands, hasher: hasher)
    }

    /// The HTTP application with its background work (directory follower, relay) and clients.
    public func application(metrics: ServiceMetrics = .shared, logger: Logger? = nil, now: @escaping @Sendable () -> Date = Date.init,
                            onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }) throws -> ServiceApplication {
        let logger = logger ?? ServiceLogging.makeLogger(configuration.service)
        let readiness = Readiness()
        let directory = directory
        readiness.register("directory") {
            directory.isFailed.map { .notReady("read model stopped: \($0)") } ?? .ready
        }
        let publishing = try storage.publishing(topic: Topic.auth.name, include: AuthEvents.isPublished, logger: logger)
        let sso = configuration.ssoProviders.isEmpty ? nil : OIDCVerifier(providers: configuration.ssoProviders, keyFetchTimeout: configuration.ssoKeyFetchTimeout, now: now)
        let routes = AuthRoutes(commands: commands, directory: directory, keyRing: keyRing, sso: sso, now: now)
        let storage = storage
        return try ServiceApplication(
            configuration: configuration.service, readiness: readiness, metrics: metrics,
            keySource: RingKeySource(ring: keyRing), revokedSessions: DirectoryRevokedSessions(directory: directory),
            openAPI: try OpenAPIDocument.bundled(in: .module, service: "auth"),
            background: [directory] + publishing, logger: logger, onServerRunning: onServerRunning
        ) { serviceRoutes in
            routes.addRoutes(to: serviceRoutes)
            storage.addFeedRoutes(to: serviceRoutes, include: AuthEvents.isPublished)
        }
    }
}

private func makeKeyRing(_ storage: some SigningKeyStorage, now: @escaping @Sendable () -> Date, logger: Logger) -> SigningKeyRing {
    SigningKeyRing(storage: storage, now: now, logger: logger)
}

extension PersonalData {
    public init(keys: any PersonalDataKeyStore) {
        self = Self.over(keys)
    }

    private static func over<Keys: PersonalDataKeyStore>(_ keys: Keys) -> PersonalData {
        PersonalData(cipher: PersonalDataCipher(keys: keys))
    }
}

/// auth verifies its own access tokens against its own key ring, without fetching its JWKS over HTTP.
struct RingKeySource: AccessTokenKeySource {
    let ring: SigningKeyRing

    func publicKey(for kid: String) async throws -> Insecure.RSA.PublicKey? {
        try await StaticKeySource(keySet: await ring.publishedKeySet()).publicKey(for: kid)
    }
}

/// auth refuses the access tokens of revoked sessions from its own session store (the directory), which every
/// revocation reaches at once on this instance and within the directory's follow interval on others.
struct DirectoryRevokedSessions: RevokedSessionLookup {
    let directory: AuthDirectory

    func isRevoked(sessionId: String) -> Bool {
        guard let id = UUID(uuidString: sessionId) else { return false }
        return directory.session(id)?.revocation != nil
    }
}
