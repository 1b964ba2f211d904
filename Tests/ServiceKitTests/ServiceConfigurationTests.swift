import Logging
import ServiceKit
import Testing

@Suite("ServiceConfiguration reads the environment once")
struct ServiceConfigurationTests {
    @Test("an empty environment gives the documented defaults")
    func defaults() throws {
        let configuration = try ServiceConfiguration.fromEnvironment(serviceName: "tour-management", defaultPort: 8082, environment: [:])
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.port == 8082)
        #expect(configuration.maxBodyBytes == 1_048_576)
        #expect(configuration.jwksURL == "http://127.0.0.1:8081/.well-known/jwks.json")
        #expect(configuration.jwtIssuer == "waypoint-auth")
        #expect(configuration.jwtAudience == "waypoint")
        #expect(configuration.internalToken == nil)
        #expect(configuration.logLevel == .info)
        #expect(configuration.logFormat == .json)
        #expect(configuration.drainTimeout == .seconds(30))
        #expect(configuration.drainDelay == .zero)
    }

    @Test("the service-specific key wins over the generic one")
    func specificBeatsGeneric() throws {
        let environment = [
            "WAYPOINT_PORT": "9000",
            "WAYPOINT_TOUR_MANAGEMENT_PORT": "9100",
            "WAYPOINT_HOST": "0.0.0.0",
            "WAYPOINT_LOG_LEVEL": "DEBUG",
            "WAYPOINT_LOG_FORMAT": "text",
            "WAYPOINT_MAX_BODY_BYTES": "2048",
            "WAYPOINT_DRAIN_TIMEOUT_SECONDS": "12.5",
            "WAYPOINT_DRAIN_DELAY_SECONDS": "2",
            "WAYPOINT_INTERNAL_TOKEN": "0123456789abcdef-secret",
            "WAYPOINT_JWKS_URL": "http://auth:8081/.well-known/jwks.json",
        ]
        let configuration = try ServiceConfiguration.fromEnvironment(serviceName: "tour-management", environment: environment)
        #expect(configuration.port == 9100)
        #expect(configuration.host == "0.0.0.0")
        #expect(configuration.logLevel == .debug)
        #expect(configuration.logFormat == .text)
        #expect(configuration.maxBodyBytes == 2048)
        #expect(configuration.drainTimeout == .milliseconds(12_500))
        #expect(configuration.drainDelay == .seconds(2))
        #expect(configuration.internalToken == "0123456789abcdef-secret")
        #expect(configuration.jwksURL == "http://auth:8081/.well-known/jwks.json")
    }

    @Test("empty values count as unset")
    func emptyIsUnset() throws {
        let configuration = try ServiceConfiguration.fromEnvironment(serviceName: "auth", environment: ["WAYPOINT_PORT": "", "WAYPOINT_INTERNAL_TOKEN": ""])
        #expect(configuration.port == 8080)
        #expect(configuration.internalToken == nil)
    }

    @Test(
        "an invalid value is an error naming the key",
        arguments: [
            ("WAYPOINT_PORT", "eighty"),
            ("WAYPOINT_NAVIGATION_PORT", "70000"),
            ("WAYPOINT_MAX_BODY_BYTES", "0"),
            ("WAYPOINT_LOG_LEVEL", "loud"),
            ("WAYPOINT_LOG_FORMAT", "xml"),
            ("WAYPOINT_JWKS_URL", "not a url"),
            ("WAYPOINT_DRAIN_TIMEOUT_SECONDS", "-3"),
            ("WAYPOINT_DRAIN_DELAY_SECONDS", "soon"),
            ("WAYPOINT_INTERNAL_TOKEN", "short"),
        ]
    )
    func invalidValueNamesKey(key: String, value: String) {
        #expect {
            try ServiceConfiguration.fromEnvironment(serviceName: "navigation", environment: [key: value])
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.key == key && error.description.contains(key)
        }
    }

    @Test("the internal token is never echoed in the error")
    func secretNotEchoed() {
        #expect {
            try ServiceConfiguration.fromEnvironment(serviceName: "auth", environment: ["WAYPOINT_INTERNAL_TOKEN": "hunter2"])
        } throws: { error in
            !String(describing: error).contains("hunter2")
        }
    }
}
