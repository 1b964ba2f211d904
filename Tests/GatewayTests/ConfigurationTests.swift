import Foundation
import Gateway
import ServiceKit
import ArgumentParser
import Testing

@Suite("Configuration: environment keys, defaults and limits")
struct ConfigurationTests {
    @Test("defaults: port 8080, every service at its local port, 100/600 per minute, 30 s cache, 5 s timeout")
    func defaults() throws {
        let configuration = try GatewayConfiguration.fromEnvironment([:])
        #expect(configuration.service.port == 8080)
        #expect(configuration.service.serviceName == "gateway")
        #expect(configuration.service.maxBodyBytes == 1_048_576)
        #expect(configuration.mediaMaxBodyBytes == 104_857_600)
        #expect(configuration.endpoints.baseURL(of: "auth")?.absoluteString == "http://127.0.0.1:8081")
        #expect(configuration.endpoints.baseURL(of: "path-review")?.absoluteString == "http://127.0.0.1:8083")
        #expect(configuration.endpoints.baseURL(of: "analytics")?.absoluteString == "http://127.0.0.1:8086")
        #expect(configuration.authRatePerMinute == 100)
        #expect(configuration.ratePerMinute == 600)
        #expect(configuration.cacheTTL == .seconds(30))
        #expect(configuration.timeout(of: "auth") == .seconds(5))
        #expect(configuration.circuitFailureThreshold == 5)
        #expect(configuration.circuitOpenDuration == .seconds(30))
        #expect(configuration.clientIdleTimeout == .seconds(75), "longer than a recording phone's minute between uploads")
        #expect(configuration.requiredServices == ["auth", "tour-management", "analytics"])
        #expect(configuration.corsOrigins.isEmpty)
        #expect(configuration.proxyFastPath)
    }

    @Test("gateway-specific keys win over generic ones; JWKS follows auth's URL")
    func specificKeysWin() throws {
        let configuration = try GatewayConfiguration.fromEnvironment([
            "WAYPOINT_PORT": "9000", "WAYPOINT_GATEWAY_PORT": "9090",
            "WAYPOINT_AUTH_URL": "http://auth.generic:1", "WAYPOINT_GATEWAY_AUTH_URL": "http://auth.internal:8081/",
            "WAYPOINT_GATEWAY_RATE_PER_MINUTE": "60", "WAYPOINT_GATEWAY_AUTH_RATE_PER_MINUTE": "10",
            "WAYPOINT_GATEWAY_CACHE_TTL_SECONDS": "300", "WAYPOINT_GATEWAY_UPSTREAM_TIMEOUT_SECONDS": "2.5",
            "WAYPOINT_GATEWAY_ANALYTICS_TIMEOUT_SECONDS": "10", "WAYPOINT_GATEWAY_CORS_ORIGINS": "https://app.example, https://admin.example",
            "WAYPOINT_GATEWAY_REQUIRED_SERVICES": "auth", "WAYPOINT_GATEWAY_CLIENT_IDLE_TIMEOUT_SECONDS": "12",
            "WAYPOINT_PROXY_FAST_PATH": "on", "WAYPOINT_GATEWAY_PROXY_FAST_PATH": "OFF",
        ])
        #expect(configuration.service.port == 9090)
        #expect(configuration.endpoints.baseURL(of: "auth")?.absoluteString == "http://auth.internal:8081")
        #expect(configuration.service.jwksURL == "http://auth.internal:8081/.well-known/jwks.json")
        #expect(configuration.ratePerMinute == 60)
        #expect(configuration.authRatePerMinute == 10)
        #expect(configuration.cacheTTL == .seconds(300))
        #expect(configuration.timeout(of: "auth") == .milliseconds(2500))
        #expect(configuration.timeout(of: "analytics") == .seconds(10))
        #expect(configuration.corsOrigins == ["https://app.example", "https://admin.example"])
        #expect(configuration.requiredServices == ["auth"])
        #expect(configuration.clientIdleTimeout == .seconds(12))
        #expect(!configuration.proxyFastPath)
    }

    @Test("a cache TTL above 5 minutes stops start-up, naming the key")
    func cacheTTLAboveFiveMinutesIsRejected() {
        #expect(throws: ConfigurationError.self) { try GatewayConfiguration.fromEnvironment(["WAYPOINT_GATEWAY_CACHE_TTL_SECONDS": "301"]) }
        do {
            _ = try GatewayConfiguration.fromEnvironment(["WAYPOINT_GATEWAY_CACHE_TTL_SECONDS": "600"])
        } catch {
            #expect("\(error)".contains("WAYPOINT_GATEWAY_CACHE_TTL_SECONDS"))
        }
    }

    @Test("invalid values stop start-up: unknown required service, bad URL, negative rate")
    func invalidValuesAreRejected() {
        for environment in [["WAYPOINT_GATEWAY_REQUIRED_SERVICES": "auth,billing"], ["WAYPOINT_GATEWAY_NAVIGATION_URL": "not a url"],
                            ["WAYPOINT_GATEWAY_RATE_PER_MINUTE": "-1"], ["WAYPOINT_GATEWAY_UPSTREAM_TIMEOUT_SECONDS": "0"],
                            ["WAYPOINT_GATEWAY_PROXY_FAST_PATH": "maybe"]] {
            #expect(throws: ConfigurationError.self, "\(environment)") { try GatewayConfiguration.fromEnvironment(environment) }
        }
    }
}

@Suite("The gateway executable")
struct CommandLineTests {
    @Test("`gateway` with no arguments runs `serve`")
    func serveIsTheDefaultCommand() throws {
        let command = try GatewayCommandLine.parseAsRoot([])
        #expect(command is GatewayCommandLine.Serve)
        #expect(try GatewayCommandLine.parseAsRoot(["serve"]) is GatewayCommandLine.Serve)
    }
}
