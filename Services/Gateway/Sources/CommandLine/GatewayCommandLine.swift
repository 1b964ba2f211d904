import ArgumentParser
import ServiceKit

/// `gateway` — the executable: `serve` (the default) runs the public entry point until SIGTERM or SIGINT.
public struct GatewayCommandLine: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "gateway",
        abstract: "Waypoint's public entry point: routing, edge auth, rate limits, caching, the push stream.",
        subcommands: [Serve.self],
        defaultSubcommand: Serve.self)

    /// `gateway serve`: ServiceKit's generic command over ``GatewayServer``.
    public typealias Serve = ServeCommand<GatewayServer>

    public init() {}
}
