import Analytics
import Auth
import Foundation
import Messaging
import Testing
import TourManagement
import Yams
@testable import WaypointCLI

/// No Docker engine runs on the development machines, so docker-compose.yml and deploy/ are checked by structure.
@Suite("docker-compose.yml and deploy/: the operators' stack, checked without a Docker engine")
struct ComposeFileTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// Executables this version builds; the other services are declared under the profile `later`.
    static let built = ["auth", "tour-management", "path-review", "navigation", "record-trip", "analytics", "gateway"]
    static let later: [String] = []
    static let topics = ["waypoint.auth", "waypoint.tours", "waypoint.paths", "waypoint.navigation", "waypoint.trips",
                         "waypoint.notifications"]

    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    static func compose() throws -> [String: Any] {
        try #require(try Yams.load(yaml: text("docker-compose.yml")) as? [String: Any])
    }

    static func services() throws -> [String: [String: Any]] {
        try #require(try compose()["services"] as? [String: [String: Any]])
    }

    static func environment(_ service: [String: Any]) -> [String: String] {
        (service["environment"] as? [String: Any] ?? [:]).mapValues { "\($0)" }
    }

    static func seconds(_ value: Any?) -> Int? {
        guard let text = value as? String, text.hasSuffix("s"), let number = Int(text.dropLast()) else { return nil }
        return number
    }

    @Test("Kafka runs in KRaft mode on one node, PostGIS 15 with the database init, and a one-shot job creates the topics")
    func infrastructure() throws {
        let services = try Self.services()
        let kafka = try #require(services["kafka"])
        #expect((kafka["image"] as? String)?.hasPrefix("apache/kafka:") == true)
        let kafkaEnvironment = Self.environment(kafka)
        #expect(kafkaEnvironment["KAFKA_PROCESS_ROLES"] == "broker,controller")
        #expect(kafkaEnvironment["KAFKA_CONTROLLER_QUORUM_VOTERS"] == "1@kafka:9093")
        #expect(kafkaEnvironment.keys.allSatisfy { !$0.contains("ZOOKEEPER") })
        #expect(kafka["healthcheck"] != nil && kafka["ports"] == nil)

        let postgres = try #require(services["postgres"])
        #expect((postgres["image"] as? String)?.hasPrefix("postgis/postgis:15-3") == true)
        #expect((postgres["volumes"] as? [String])?.contains("./deploy/postgres/init:/docker-entrypoint-initdb.d:ro") == true)
        #expect(postgres["healthcheck"] != nil && postgres["ports"] == nil)

        let job = try #require(services["kafka-topics"])
        #expect((job["entrypoint"] as? [String])?.last == "/deploy/kafka/create-topics.sh")
        #expect((job["depends_on"] as? [String: [String: String]])?["kafka"]?["condition"] == "service_healthy")
        #expect(job["restart"] as? String == "no")
        let script = try Self.text("deploy/kafka/create-topics.sh")
        for topic in Self.topics { #expect(script.contains(topic), "\(topic) is created") }
        #expect(script.contains("--if-not-exists"))
    }

    @Test("one database per service, each owned by its own role, with PostGIS")
    func databases() throws {
        let script = try Self.text("deploy/postgres/init/01-service-databases.sh")
        #expect(script.contains("databases=(auth tour_management path_review navigation record_trip analytics)"))
        #expect(script.contains("CREATE DATABASE %I OWNER %I") && script.contains("CREATE EXTENSION IF NOT EXISTS postgis"))
        let services = try Self.services()
        var databases: Set<String> = []
        for name in Self.built + Self.later where name != "gateway" {
            let service = try #require(services[name])
            let url = try #require(Self.environment(service)["WAYPOINT_POSTGRES_URL"], "\(name)")
            let database = name.replacingOccurrences(of: "-", with: "_")
            #expect(url == "postgres://\(database):${WAYPOINT_SERVICE_DB_PASSWORD}@postgres:5432/\(database)")
            databases.insert(database)
        }
        #expect(databases.count == 6, "no two services share a database")
    }

    @Test("every service is built from deploy/Dockerfile with its product, waits for healthy dependencies and the topics job, and has a readiness healthcheck on its port")
    func services() throws {
        let services = try Self.services()
        for name in Self.built + Self.later {
            let service = try #require(services[name], "\(name) is declared")
            let port = 8080 + ServiceCatalog.named(name)!.portOffset
            let build = try #require(service["build"] as? [String: Any])
            #expect(build["dockerfile"] as? String == "deploy/Dockerfile" && build["target"] as? String == "runtime")
            #expect((build["args"] as? [String: Any])?["PRODUCT"] as? String == name)
            #expect((build["additional_contexts"] as? [String: String])?["reference-data"] == "../shared/data")
            let test = try #require((service["healthcheck"] as? [String: Any])?["test"] as? [String])
            #expect(test.contains("http://127.0.0.1:\(port)/health/ready"), "\(name): \(test)")
            let dependencies = try #require(service["depends_on"] as? [String: [String: String]])
            #expect(dependencies["postgres"]?["condition"] == "service_healthy")
            #expect(dependencies["kafka"]?["condition"] == "service_healthy")
            #expect(dependencies["kafka-topics"]?["condition"] == "service_completed_successfully")
            #expect(dependencies.values.allSatisfy { ["service_healthy", "service_completed_successfully"].contains($0["condition"] ?? "") })
            #expect(((service["profiles"] as? [String]) ?? []) == (Self.later.contains(name) ? ["later"] : []))
        }
        let gatewayDependencies = try #require(services["gateway"]?["depends_on"] as? [String: [String: String]])
        for upstream in ["auth", "tour-management", "path-review", "record-trip", "analytics"] {
            #expect(gatewayDependencies[upstream]?["condition"] == "service_healthy")
        }
    }

    @Test("each service gets the keys it reads: port, bind address, Kafka, internal token, personal-data key, JWKS and producer URLs")
    func environment() throws {
        let services = try Self.services()
        for name in Self.built + Self.later {
            let environment = Self.environment(try #require(services[name]))
            let segment = ServiceCatalog.named(name)!.keySegment
            #expect(environment["WAYPOINT_\(segment)_PORT"] == String(8080 + ServiceCatalog.named(name)!.portOffset), "\(name)")
            #expect(environment["WAYPOINT_HOST"] == "0.0.0.0")
            #expect(environment["WAYPOINT_KAFKA_BROKERS"] == "kafka:9092")
            #expect(environment["WAYPOINT_INTERNAL_TOKEN"]?.hasPrefix("${WAYPOINT_INTERNAL_TOKEN:?") == true)
            #expect(environment["WAYPOINT_PERSONAL_DATA_KEY"]?.hasPrefix("${WAYPOINT_PERSONAL_DATA_KEY:?") == true)
            #expect(environment["WAYPOINT_JWKS_URL"] == "http://auth:8081/.well-known/jwks.json")
            #expect(environment["WAYPOINT_AUTH_URL"] == "http://auth:8081")
            #expect(environment["WAYPOINT_TOUR_MANAGEMENT_URL"] == "http://tour-management:8082")
            #expect(environment.keys.allSatisfy { $0.hasPrefix("WAYPOINT_") }, "\(name): only Waypoint keys")
        }
        let gateway = Self.environment(try #require(services["gateway"]))
        for upstream in ServiceCatalog.upstreams {
            #expect(gateway["WAYPOINT_GATEWAY_\(upstream.keySegment)_URL"] == "http://\(upstream.name):\(8080 + upstream.portOffset)")
        }
        #expect(gateway["WAYPOINT_POSTGRES_URL"] == nil)
    }

    @Test("navigation runs as two instances on one database; the gateway balances over both and waits for both")
    func navigationInstances() throws {
        let services = try Self.services()
        let first = Self.environment(try #require(services["navigation"]))
        let second = Self.environment(try #require(services["navigation-2"]))
        #expect(first == second, "the same configuration: database, extracts, port inside its container")
        #expect(first["WAYPOINT_POSTGRES_URL"]?.hasSuffix("@postgres:5432/navigation") == true)
        #expect(((services["navigation-2"]?["build"] as? [String: Any])?["args"] as? [String: Any])?["PRODUCT"] as? String == "navigation")
        let volumes = try #require(services["navigation-2"]?["volumes"] as? [String])
        #expect(volumes.contains("navigation-2-data:/var/lib/waypoint"), "its own road cache")
        let gateway = Self.environment(try #require(services["gateway"]))
        #expect(gateway["WAYPOINT_GATEWAY_NAVIGATION_URLS"] == "http://navigation:8084,http://navigation-2:8084")
        let dependencies = try #require(services["gateway"]?["depends_on"] as? [String: [String: String]])
        #expect(dependencies["navigation-2"]?["condition"] == "service_healthy")
    }

    @Test("record-trip matches on extracts mounted read-only from ../shared/data, waits for auth, and starts with weather off")
    func recordTrip() throws {
        let service = try #require(try Self.services()["record-trip"])
        let environment = Self.environment(service)
        let mount = try #require((service["volumes"] as? [String])?.first { $0.hasPrefix("../shared/data:") })
        let parts = mount.split(separator: ":")
        #expect(parts.count == 3 && parts.last == "ro", "\(mount)")
        let extracts = try #require(environment["WAYPOINT_RECORD_TRIP_EXTRACTS"]).split(separator: ",")
        #expect(!extracts.isEmpty)
        for extract in extracts {
            #expect(extract.hasPrefix(parts[1] + "/"), "\(extract) lies in the mount")
            let file = Self.root.deletingLastPathComponent().appendingPathComponent("shared/data")
                .appendingPathComponent(String(extract.dropFirst(parts[1].count + 1)))
            #expect(FileManager.default.fileExists(atPath: file.path), "\(file.path) exists")
        }
        #expect(environment["WAYPOINT_RECORD_TRIP_WEATHER_URL"] == "")
        #expect((service["depends_on"] as? [String: [String: String]])?["auth"]?["condition"] == "service_healthy")
    }

    @Test("only the gateway publishes a port; every secret the file requires is listed in deploy/env.example")
    func portsAndSecrets() throws {
        let services = try Self.services()
        for (name, service) in services where name != "gateway" {
            #expect(service["ports"] == nil, "\(name) publishes no port")
        }
        #expect(services["gateway"]?["ports"] as? [String] == ["${WAYPOINT_GATEWAY_PUBLISHED_PORT:-8080}:8080"])
        let compose = try Self.text("docker-compose.yml")
        let example = try Self.text("deploy/env.example")
        let required = try NSRegularExpression(pattern: #"\$\{([A-Z_]+):\?"#)
            .matches(in: compose, range: NSRange(compose.startIndex..., in: compose))
            .map { String(compose[Range($0.range(at: 1), in: compose)!]) }
        #expect(Set(required) == ["WAYPOINT_INTERNAL_TOKEN", "WAYPOINT_PERSONAL_DATA_KEY", "POSTGRES_PASSWORD", "WAYPOINT_SERVICE_DB_PASSWORD"])
        for key in Set(required) { #expect(example.contains("\n\(key)="), "\(key) in deploy/env.example") }
    }

    @Test("stop grace periods are longer than the services' drain timeout (and drain delay)")
    func gracePeriods() throws {
        let services = try Self.services()
        for name in Self.built + Self.later {
            let service = try #require(services[name])
            let environment = Self.environment(service)
            let drain = try #require(Int(environment["WAYPOINT_DRAIN_TIMEOUT_SECONDS"] ?? ""), "\(name) bounds its drain")
            let grace = try #require(Self.seconds(service["stop_grace_period"]), "\(name) has a stop_grace_period")
            #expect(grace > drain, "\(name): \(grace) s grace vs \(drain) s drain")
            let delay = Int(environment["WAYPOINT_\(ServiceCatalog.named(name)!.keySegment)_DRAIN_DELAY_SECONDS"]
                            ?? environment["WAYPOINT_DRAIN_DELAY_SECONDS"] ?? "0") ?? 0
            #expect(delay < drain, "\(name): the drain delay fits in the drain timeout")
        }
    }

    @Test("deploy/Dockerfile: a Swift build stage with the -dev packages, a slim runtime with librdkafka, the reference data and a non-root user")
    func dockerfile() throws {
        let dockerfile = try Self.text("deploy/Dockerfile")
        let lines = dockerfile.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let stages = lines.filter { $0.hasPrefix("FROM ") }
        #expect(stages == ["FROM ${SWIFT_IMAGE} AS build", "FROM ${RUNTIME_IMAGE} AS runtime"])
        #expect(dockerfile.contains("ARG SWIFT_IMAGE=swift:6.") && dockerfile.contains("ARG RUNTIME_IMAGE=debian:bookworm-slim"))
        let runtimeStart = try #require(lines.firstIndex(of: "FROM ${RUNTIME_IMAGE} AS runtime"))
        let build = lines[..<runtimeStart].joined(separator: "\n"), runtime = lines[runtimeStart...].joined(separator: "\n")
        for package in ["librdkafka-dev", "libsqlite3-dev", "libpq-dev", "libcrypt-dev", "zlib1g-dev"] { #expect(build.contains(package)) }
        #expect(build.contains("swift build -c release"))
        for package in ["librdkafka1", "libsqlite3-0", "libpq5", "curl"] { #expect(runtime.contains(package)) }
        #expect(!runtime.contains("-dev "), "no build packages in the runtime image")
        #expect(runtime.contains("COPY --from=reference-data . /usr/share/waypoint/reference-data/"))
        #expect(runtime.contains("WAYPOINT_REFERENCE_DATA_DIR=/usr/share/waypoint/reference-data"))
        let users = lines[runtimeStart...].filter { $0.hasPrefix("USER ") }
        #expect(users.count == 1)
        let user = try #require(users.last?.dropFirst("USER ".count).split(separator: ":").first)
        #expect(!["root", "0"].contains(String(user)))
        #expect(lines.last?.hasPrefix("ENTRYPOINT") == true && lines.firstIndex { $0.hasPrefix("USER ") }! > runtimeStart)
        let products = try #require(lines.first { $0.hasPrefix("ARG PRODUCTS=") })
        for name in Self.built { #expect(products.contains(name), "the build stage builds \(name)") }
    }

    /// Compose's interpolation with test values: `${X:?…}` and `${X}` from `values`, `${X:-default}` the default.
    static func interpolated(_ text: String, _ values: [String: String]) throws -> String {
        let pattern = try NSRegularExpression(pattern: #"\$\{([A-Z_]+)(?::([?-])([^}]*))?\}"#)
        var result = text
        for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).reversed() {
            let name = String(text[Range(match.range(at: 1), in: text)!])
            let mode = Range(match.range(at: 2), in: text).map { String(text[$0]) }
            let fallback = Range(match.range(at: 3), in: text).map { String(text[$0]) } ?? ""
            let value = values[name] ?? (mode == "-" ? fallback : "")
            result.replaceSubrange(Range(match.range, in: result)!, with: value)
        }
        return result
    }

    @Test("the environment compose gives auth, tour-management and analytics is accepted by their own configuration readers")
    func servicesAcceptTheirEnvironment() throws {
        let secrets = ["WAYPOINT_INTERNAL_TOKEN": "compose-test-internal-token", "WAYPOINT_SERVICE_DB_PASSWORD": "0123abcd",
                       "WAYPOINT_PERSONAL_DATA_KEY": Data(repeating: 1, count: 32).base64EncodedString(), "POSTGRES_PASSWORD": "x"]
        let compose = try #require(try Yams.load(yaml: Self.interpolated(Self.text("docker-compose.yml"), secrets)) as? [String: Any])
        let services = try #require(compose["services"] as? [String: [String: Any]])
        func environment(_ name: String) throws -> [String: String] {
            let service = try #require(services[name])
            return Self.environment(service)
        }
        let auth = try AuthConfiguration.fromEnvironment(try environment("auth"))
        #expect(auth.service.port == 8081 && auth.service.host == "0.0.0.0" && auth.service.internalToken == "compose-test-internal-token")
        #expect(auth.runtime.backend == .postgres(url: "postgres://auth:0123abcd@postgres:5432/auth", schema: nil))
        #expect(auth.runtime.kafkaBrokers == "kafka:9092" && auth.runtime.personalDataKey != nil)
        #expect(auth.service.drainTimeout == .seconds(20))
        let tours = try TourManagementConfiguration.fromEnvironment(try environment("tour-management"))
        #expect(tours.service.port == 8082 && tours.authURL.absoluteString == "http://auth:8081")
        #expect(tours.service.jwksURL == "http://auth:8081/.well-known/jwks.json")
        let analytics = try AnalyticsConfiguration.fromEnvironment(try environment("analytics"))
        #expect(analytics.service.port == 8086 && analytics.runtime.kafkaBrokers == "kafka:9092")
        #expect(analytics.runtime.backend == .postgres(url: "postgres://analytics:0123abcd@postgres:5432/analytics", schema: nil))
    }
}
