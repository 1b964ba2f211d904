import Analytics
import Auth
import Foundation
import Messaging
import ServiceKit
import Testing
import TourManagement
@testable import WaypointCLI

@Suite("waypoint up: the port and environment plan")
struct LaunchPlanTests {
    static let dataDirectory = URL(fileURLWithPath: "/tmp/waypoint-plan-test", isDirectory: true)
    static let token = "internal-token-0123456789abcdef"
    static let key = Data(repeating: 7, count: 32).base64EncodedString()

    static func plan(available: Set<String> = ["auth", "tour-management", "analytics", "gateway"], kafka: String? = nil,
                     postgres: PostgresServer? = nil, only: Set<String>? = nil) -> LaunchPlan {
        LaunchPlan(.init(basePort: 18080, dataDirectory: dataDirectory, kafkaBrokers: kafka, postgres: postgres, internalToken: token,
                         personalDataKey: key,
                         referenceDataDirectory: "/srv/shared/data", available: available, only: only))
    }

    @Test("--base-port 18080 puts the gateway on 18080 and the six services on the next ports, in DESIGN's order")
    func ports() {
        let plan = Self.plan()
        #expect(plan.entries.map(\.name).sorted() == ServiceCatalog.all.map(\.name).sorted())
        let ports = Dictionary(uniqueKeysWithValues: plan.entries.map { ($0.name, $0.port) })
        #expect(ports == ["gateway": 18080, "auth": 18081, "tour-management": 18082, "path-review": 18083, "navigation": 18084,
                          "record-trip": 18085, "analytics": 18086])
        #expect(plan.gatewayURL == "http://127.0.0.1:18080")
        #expect(plan.entry("analytics")?.baseURL == "http://127.0.0.1:18086")
    }

    @Test("services without an executable are planned but not started; --only narrows the started set")
    func startedSet() {
        let plan = Self.plan()
        #expect(plan.started.map(\.name) == ["auth", "tour-management", "analytics", "gateway"])
        #expect(plan.entry("navigation")?.isBuilt == false && plan.entry("navigation")?.isStarted == false)
        let narrowed = Self.plan(only: ["auth", "analytics"])
        #expect(narrowed.started.map(\.name) == ["auth", "analytics"])
        #expect(narrowed.entry("tour-management")?.isBuilt == true)
    }

    @Test("each service reads back, with its own configuration reader, the port, data directory, URLs and secrets planned for it")
    func servicesReadThePlan() throws {
        let plan = Self.plan()
        let auth = try AuthConfiguration.fromEnvironment(plan.environment(for: plan.entry("auth")!, inheriting: [:]))
        #expect(auth.service.port == 18081 && auth.service.host == "127.0.0.1")
        #expect(auth.service.internalToken == Self.token)
        #expect(auth.runtime.backend == .sqlite(path: "/tmp/waypoint-plan-test/auth.sqlite"))
        #expect(auth.runtime.personalDataKey != nil && auth.runtime.kafkaBrokers == nil)
        #expect(auth.settings.publicBaseURL == "http://127.0.0.1:18080")

        let tours = try TourManagementConfiguration.fromEnvironment(plan.environment(for: plan.entry("tour-management")!, inheriting: [:]))
        #expect(tours.service.port == 18082)
        #expect(tours.authURL.absoluteString == "http://127.0.0.1:18081")
        #expect(tours.service.jwksURL == "http://127.0.0.1:18081/.well-known/jwks.json")
        #expect(tours.service.internalToken == Self.token)
        #expect(tours.runtime.backend == .sqlite(path: "/tmp/waypoint-plan-test/tour-management.sqlite"))

        let analytics = try AnalyticsConfiguration.fromEnvironment(plan.environment(for: plan.entry("analytics")!, inheriting: [:]))
        #expect(analytics.service.port == 18086)
        #expect(analytics.producerURL(.auth)?.absoluteString == "http://127.0.0.1:18081")
        #expect(analytics.producerURL(.tours)?.absoluteString == "http://127.0.0.1:18082")
        #expect(analytics.producerURL(.paths) == nil, "no feed URL for a producer that is not running: analytics skips the topic")
    }

    @Test("the gateway gets every upstream's URL, started or not, and requires only the started ones to be ready")
    func gatewayEnvironment() {
        let plan = Self.plan()
        let environment = plan.plannedEnvironment(for: plan.entry("gateway")!)
        #expect(environment["WAYPOINT_GATEWAY_PORT"] == "18080")
        #expect(environment["WAYPOINT_GATEWAY_PATH_REVIEW_URL"] == "http://127.0.0.1:18083")
        #expect(environment["WAYPOINT_GATEWAY_ANALYTICS_URL"] == "http://127.0.0.1:18086")
        #expect(environment["WAYPOINT_GATEWAY_REQUIRED_SERVICES"] == "auth,tour-management,analytics")
        #expect(environment["WAYPOINT_PATH_REVIEW_URL"] == nil)
        #expect(environment["WAYPOINT_JWKS_URL"] == "http://127.0.0.1:18081/.well-known/jwks.json")
        #expect(environment["WAYPOINT_GATEWAY_NOTIFICATIONS_PRODUCERS"] == "tour-management")
        // Without tour-management the push stream reads no feed, so the gateway's readiness does not wait for one.
        let narrowed = Self.plan(only: ["auth", "gateway"])
        let alone = narrowed.plannedEnvironment(for: narrowed.entry("gateway")!)
        #expect(alone["WAYPOINT_GATEWAY_NOTIFICATIONS_PRODUCERS"] == "none")
        #expect(alone["WAYPOINT_GATEWAY_REQUIRED_SERVICES"] == "auth")
        // path-review tells authors of review outcomes: its feed is read when it runs.
        let paths = Self.plan(available: ["auth", "tour-management", "path-review", "gateway"])
        #expect(paths.plannedEnvironment(for: paths.entry("gateway")!)["WAYPOINT_GATEWAY_NOTIFICATIONS_PRODUCERS"] == "tour-management,path-review")
    }

    @Test("--kafka switches every service to Kafka; the reference data directory goes to every service")
    func kafka() throws {
        let plan = Self.plan(kafka: "127.0.0.1:9092")
        for entry in plan.started {
            let environment = plan.plannedEnvironment(for: entry)
            #expect(environment["WAYPOINT_KAFKA_BROKERS"] == "127.0.0.1:9092", "\(entry.name)")
            #expect(environment["WAYPOINT_REFERENCE_DATA_DIR"] == "/srv/shared/data")
        }
        let analytics = try AnalyticsConfiguration.fromEnvironment(plan.environment(for: plan.entry("analytics")!, inheriting: [:]))
        #expect(analytics.runtime.kafkaBrokers == "127.0.0.1:9092")
    }

    @Test("--postgres gives every service with a store its own database on the server, read back by its configuration reader; not the gateway")
    func postgres() throws {
        let server = try PostgresServer(url: "postgres://wp:s%40cret@db.internal:6543/admin?sslmode=require")
        let plan = Self.plan(postgres: server)
        #expect(plan.postgresDatabases.map(\.database) == ["waypoint_auth", "waypoint_tour_management", "waypoint_analytics"])
        #expect(Set(plan.postgresDatabases.filter { $0.entry.definition.storage == .spatialDatabase }.map(\.entry.name)) == ["tour-management"])
        let inherited = ["WAYPOINT_POSTGRES_SCHEMA": "elsewhere", "WAYPOINT_AUTH_POSTGRES_URL": "postgres://other/db"]
        let auth = try AuthConfiguration.fromEnvironment(plan.environment(for: plan.entry("auth")!, inheriting: inherited))
        #expect(auth.runtime.backend == .postgres(url: "postgres://wp:s%40cret@db.internal:6543/waypoint_auth?sslmode=require", schema: nil))
        let tours = try TourManagementConfiguration.fromEnvironment(plan.environment(for: plan.entry("tour-management")!, inheriting: inherited))
        #expect(tours.runtime.backend == .postgres(url: "postgres://wp:s%40cret@db.internal:6543/waypoint_tour_management?sslmode=require",
                                                   schema: nil))
        let analytics = try AnalyticsConfiguration.fromEnvironment(plan.environment(for: plan.entry("analytics")!, inheriting: inherited))
        #expect(analytics.runtime.backend == .postgres(url: "postgres://wp:s%40cret@db.internal:6543/waypoint_analytics?sslmode=require",
                                                       schema: nil))
        let gateway = plan.environment(for: plan.entry("gateway")!, inheriting: inherited)
        #expect(!gateway.keys.contains { $0.contains("POSTGRES") }, "the gateway has no store")
        #expect(Self.plan().plannedEnvironment(for: plan.entry("auth")!).keys.allSatisfy { !$0.contains("POSTGRES") }, "SQLite without --postgres")
        let narrowed = Self.plan(postgres: try PostgresServer(url: "postgres://wp@db/", databasePrefix: "demo_"), only: ["auth", "gateway"])
        #expect(narrowed.postgresDatabases.map(\.database) == ["demo_auth"], "only the started services get a database")
    }

    @Test("the --postgres URL: the password only in the services' URLs, never in its redacted form; PGPASSWORD; maintenance database; bad URLs and prefixes refused without echoing the URL")
    func postgresServer() throws {
        let server = try PostgresServer(url: "postgresql://wp:p%3A%40ss@127.0.0.1:55432/waypoint_test")
        #expect(server.user == "wp" && server.password == "p:@ss" && server.host == "127.0.0.1" && server.port == 55432)
        #expect(server.redacted == "postgresql://wp:***@127.0.0.1:55432")
        #expect(server.maintenanceDatabase == "waypoint_test")
        #expect(server.url(database: "waypoint_auth") == "postgresql://wp:p%3A%40ss@127.0.0.1:55432/waypoint_auth")
        #expect(try PostgresServer(url: "postgres://wp@db").maintenanceDatabase == "postgres")
        #expect(try PostgresServer(url: "postgres://db").user == "postgres")

        let fromEnvironment = try PostgresServer(url: "postgres://wp@db:5433/", environment: ["PGPASSWORD": "a@b:c/d"])
        #expect(fromEnvironment.password == "a@b:c/d")
        #expect(fromEnvironment.redacted == "postgres://wp:***@db:5433")
        let url = try #require(URLComponents(string: fromEnvironment.url(database: "waypoint_auth")))
        #expect(url.password?.removingPercentEncoding == "a@b:c/d" && url.host == "db" && url.path == "/waypoint_auth")
        #expect(try PostgresServer(url: "postgres://wp:own@db", environment: ["PGPASSWORD": "other"]).password == "own", "the URL's password wins")

        for bad in ["http://wp:hunter2@db/x", "postgres://wp:hunter2@/x", "postgres://wp:hunter2@db/a/b", "postgres://wp:hunter2@db/x?sslmode=maybe", "hunter2"] {
            #expect {
                try PostgresServer(url: bad)
            } throws: { error in
                String(describing: error).hasPrefix("--postgres:") && !String(describing: error).contains("hunter2")
            }
        }
        for prefix in ["", "Waypoint_", "1st_", "way-point_", String(repeating: "x", count: 49)] {
            #expect(throws: LauncherError.self, "\(prefix)") { try PostgresServer(url: "postgres://db", databasePrefix: prefix) }
        }
        #expect(try PostgresServer(url: "postgres://db", databasePrefix: String(repeating: "x", count: 48)).databasePrefix.count == 48)
    }

    @Test("keys the launcher owns are dropped from the inherited environment in both spellings; the others pass through")
    func inheritedEnvironment() throws {
        let plan = Self.plan()
        let inherited = [
            "PATH": "/usr/bin", "WAYPOINT_POSTGRES_URL": "postgres://elsewhere/db", "WAYPOINT_TOUR_MANAGEMENT_AUTH_URL": "http://evil:1",
            "WAYPOINT_PORT": "9999", "WAYPOINT_ANALYTICS_KAFKA_BROKERS": "other:9092", "WAYPOINT_AUTH_BCRYPT_COST": "10",
            "WAYPOINT_STRIPE_API_URL": "http://stripe.test", "WAYPOINT_LOG_LEVEL": "debug",
        ]
        let environment = plan.environment(for: plan.entry("tour-management")!, inheriting: inherited)
        #expect(environment["PATH"] == "/usr/bin")
        #expect(environment["WAYPOINT_AUTH_BCRYPT_COST"] == "10" && environment["WAYPOINT_STRIPE_API_URL"] == "http://stripe.test")
        #expect(environment["WAYPOINT_LOG_LEVEL"] == "debug")
        #expect(environment["WAYPOINT_POSTGRES_URL"] == nil && environment["WAYPOINT_TOUR_MANAGEMENT_AUTH_URL"] == nil)
        #expect(environment["WAYPOINT_PORT"] == nil && environment["WAYPOINT_ANALYTICS_KAFKA_BROKERS"] == nil)
        let tours = try TourManagementConfiguration.fromEnvironment(environment)
        #expect(tours.authURL.absoluteString == "http://127.0.0.1:18081")
        #expect(tours.service.port == 18082)
        #expect(LaunchPlan.isManaged("WAYPOINT_GATEWAY_NAVIGATION_URL") && !LaunchPlan.isManaged("WAYPOINT_PAYMENTS_SUCCESS_URL"))
    }

    @Test("the SIGKILL grace period is longer than the services' drain timeout")
    func grace() {
        #expect(Self.plan().stopGracePeriod > .seconds(LaunchPlan.defaultDrainTimeoutSeconds))
        var options = Self.plan().options
        options.drainTimeoutSeconds = 5
        let plan = LaunchPlan(options)
        #expect(plan.stopGracePeriod > .seconds(5))
        #expect(plan.plannedEnvironment(for: plan.entry("auth")!)["WAYPOINT_DRAIN_TIMEOUT_SECONDS"] == "5")
    }
}

@Suite("waypoint up: several navigation instances")
struct LaunchPlanInstancesTests {
    @Test("--navigation-instances 2: a second navigation process on the next free port, same keys and database, the gateway balancing over both")
    func twoNavigationInstances() throws {
        let server = try PostgresServer(url: "postgres://waypoint:secret@127.0.0.1:5432/postgres", databasePrefix: "waypoint_")
        var options = LaunchPlan.Options(basePort: 18080, dataDirectory: LaunchPlanTests.dataDirectory, postgres: server, internalToken: "t",
                                         available: Set(ServiceCatalog.all.map(\.executable)))
        options.navigationInstances = 2
        let plan = LaunchPlan(options)
        #expect(plan.started.map(\.name) == ["auth", "tour-management", "path-review", "navigation", "navigation-2", "record-trip", "analytics", "gateway"])
        let second = try #require(plan.entry("navigation-2"))
        #expect(second.port == 18087 && second.definition.executable == "navigation")
        let first = plan.plannedEnvironment(for: plan.entry("navigation")!)
        let other = plan.plannedEnvironment(for: second)
        #expect(other["WAYPOINT_NAVIGATION_PORT"] == "18087" && first["WAYPOINT_NAVIGATION_PORT"] == "18084")
        #expect(other["WAYPOINT_NAVIGATION_POSTGRES_URL"] == first["WAYPOINT_NAVIGATION_POSTGRES_URL"], "one database")
        #expect(plan.postgresDatabases.filter { $0.entry.name.hasPrefix("navigation") }.count == 1)
        let gateway = plan.plannedEnvironment(for: plan.entry("gateway")!)
        #expect(gateway["WAYPOINT_GATEWAY_NAVIGATION_URL"] == "http://127.0.0.1:18084")
        #expect(gateway["WAYPOINT_GATEWAY_NAVIGATION_URLS"] == "http://127.0.0.1:18084,http://127.0.0.1:18087")
        #expect(gateway["WAYPOINT_GATEWAY_REQUIRED_SERVICES"]?.contains("navigation-2") == false)
        #expect(first["WAYPOINT_NAVIGATION_URL"] == "http://127.0.0.1:18084", "the feed other services read is the first instance's")
    }
}
