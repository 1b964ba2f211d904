import ArgumentParser
import Contracts
import EventSourcing
import Foundation
import Logging
import Messaging
import ServiceKit

/// `auth` — the executable: `auth serve` (default), `auth create-admin`, `auth rotate-signing-key`.
/// Configuration comes from the environment (see ``AuthConfiguration``).
@available(macOS 10.15, macCatalyst 13, iOS 13, tvOS 13, watchOS 6, *)
public struct AuthCommandLine: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "auth",
        abstract: "Waypoint's identity service: users, credentials, roles, sessions and signing keys.",
        subcommands: [ServeCommand<AuthServer>.self, CreateAdmin.self, RotateSigningKey.self],
        defaultSubcommand: ServeCommand<AuthServer>.self)

    public init() {}

    /// Creates the first administrator, or makes an existing account an administrator. Never a public route.
    public struct CreateAdmin: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(
            commandName: "create-admin",
            abstract: "Create an administrator account, or grant admin to the account with this email.",
            discussion: "The password is read from WAYPOINT_ADMIN_PASSWORD or, when unset, from the first line of standard input.")

        @Option(help: "Username of a new account (3–20 letters and digits).")
        var username: String

        @Option(help: "Email of the account.")
        var email: String

        public init() {}

        public func run() async throws {
            let configuration = try AuthConfiguration.fromEnvironment()
            guard let password = ProcessInfo.processInfo.environment["WAYPOINT_ADMIN_PASSWORD"] ?? readLine(strippingNewline: true),
                  !password.isEmpty
            else { throw ValidationError("no password: set WAYPOINT_ADMIN_PASSWORD or pipe it on standard input") }
            let (username, email) = (username, email)
            let user = try await ServiceLauncher.run(service: configuration.service, runtime: configuration.runtime) { storage, logger in
                let server = try await AuthServer.assemble(configuration, storage: storage, logger: logger)
                defer { Task { await server.hasher.shutdown() } }
                do {
                    return try await server.commands.createAdmin(username: username, email: email, password: password)
                } catch let problem as Problem {
                    throw ValidationError(([problem.detail] + problem.fieldErrors.map { "\($0.field): \($0.message)" }).joined(separator: "; "))
                }
            }
            print("administrator \(user.username ?? email) (\(user.id.uuidString.lowercased())) is ready")
        }
    }

    /// Makes a new key sign access tokens; the previous key stays published until its tokens have expired.
    public struct RotateSigningKey: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(
            commandName: "rotate-signing-key",
            abstract: "Create a new signing key; running instances pick it up within 30 seconds.")

        public init() {}

        public func run() async throws {
            let configuration = try AuthConfiguration.fromEnvironment()
            let kid = try await ServiceLauncher.run(service: configuration.service, runtime: configuration.runtime) { storage, logger in
                let server = try await AuthServer.assemble(configuration, storage: storage, logger: logger)
                defer { Task { await server.hasher.shutdown() } }
                return try await server.keyRing.rotate()
            }
            print("new signing key \(kid)")
        }
    }
}

/// `auth serve` (``ServeCommand``): the HTTP service until SIGTERM or SIGINT, then the password hasher's threads stop.
extension AuthServer: ServableService {
    public typealias Configuration = AuthConfiguration
    public typealias Storage = ServiceStorage

    /// ``assemble(_:storage:now:logger:)`` on the system clock.
    public static func assemble(_ configuration: AuthConfiguration, storage: ServiceStorage, logger: Logger) async throws -> AuthServer {
        try await assemble(configuration, storage: storage, now: Date.init, logger: logger)
    }

    /// ``application(metrics:logger:now:onServerRunning:)`` with the shared metrics and the system clock.
    public func makeApplication(logger: Logger) throws -> ServiceApplication {
        try application(logger: logger)
    }

    /// Stops the bcrypt worker threads.
    public func shutdown() async {
        await hasher.shutdown()
    }
}

extension AuthConfiguration: StoredServiceConfiguration {}
