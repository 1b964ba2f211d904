// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Waypoint",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "EventSourcing", targets: ["EventSourcing"]),
        .library(name: "Geo", targets: ["Geo"]),
        .library(name: "RoadNetwork", targets: ["RoadNetwork"]),
        .library(name: "ReferenceData", targets: ["ReferenceData"]),
        .library(name: "Contracts", targets: ["Contracts"]),
        .library(name: "ContractTesting", targets: ["ContractTesting"]),
        .library(name: "Kafka", targets: ["Kafka"]),
        .library(name: "Messaging", targets: ["Messaging"]),
        .library(name: "ServiceKit", targets: ["ServiceKit"]),
        .executable(name: "waypoint", targets: ["WaypointCLI"]),
        .executable(name: "waypoint-bench", targets: ["WaypointBench"]),
        .executable(name: "auth", targets: ["AuthMain"]),
        .executable(name: "tour-management", targets: ["TourManagementMain"]),
        .executable(name: "analytics", targets: ["AnalyticsMain"]),
        .executable(name: "record-trip", targets: ["RecordTripMain"]),
        .executable(name: "path-review", targets: ["PathReviewMain"]),
        .executable(name: "navigation", targets: ["NavigationMain"]),
        .executable(name: "gateway", targets: ["GatewayMain"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-async-algorithms", from: "1.1.4"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
    ],
    targets: [
        // MARK: Shared kernel
        .systemLibrary(
            name: "CRdKafka",
            path: "Shared/CRdKafka",
            pkgConfig: "rdkafka",
            providers: [.apt(["librdkafka-dev"])]
        ),
        .target(
            name: "EventSourcing",
            dependencies: [
                "Contracts",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            path: "Shared/EventSourcing"
        ),
        .target(name: "Geo", path: "Shared/Geo"),
        .target(
            name: "RoadNetwork",
            dependencies: ["CZlib", "Geo", "ReferenceData", .product(name: "Crypto", package: "swift-crypto"),
                           .product(name: "Logging", package: "swift-log")],
            path: "Shared/RoadNetwork"
        ),
        // Reading the reference data in ../shared/data: gzip through the system zlib, and where the directory is.
        .systemLibrary(name: "CZlib", path: "Shared/CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .target(name: "ReferenceData", dependencies: ["CZlib"], path: "Shared/ReferenceData"),
        .target(name: "Contracts", path: "Shared/Contracts"),
        // Test support every service's tests share: backends under test, temporary directories, waiting, JSON requests.
        .target(
            name: "ServiceTesting",
            dependencies: [
                "Contracts", "Messaging", "ServiceKit", "Geo",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Yams", package: "Yams"),
            ],
            path: "Shared/ServiceTesting"
        ),
        // Golden-file helper for producer and consumer contract tests of every service.
        .target(name: "ContractTesting", dependencies: ["Contracts"], path: "Shared/ContractTesting"),

        // Swift wrapper over librdkafka: idempotent producer with delivery reports, consumer groups, mock cluster.
        .target(
            name: "Kafka",
            dependencies: [
                "CRdKafka",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Shared/Kafka"
        ),
        .target(
            name: "ServiceKit",
            dependencies: [
                "Contracts",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Shared/ServiceKit"
        ),
        .target(
            name: "Messaging",
            dependencies: [
                "EventSourcing", "Kafka", "ServiceKit",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Shared/Messaging"
        ),

        // MARK: Services
        // auth: identity, credentials, roles, sessions and signing keys (Services/Auth).
        .systemLibrary(
            name: "CLibCrypt",
            path: "Services/Auth/CLibCrypt",
            pkgConfig: "libcrypt",
            providers: [.apt(["libcrypt-dev"])]
        ),
        // Adapters with no domain logic: bcrypt, signing keys and token issuing, OpenID Connect verification, mail.
        .target(
            name: "AuthInfrastructure",
            dependencies: [
                "CLibCrypt", "Contracts", "EventSourcing", "ServiceKit",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Services/Auth/Infrastructure"
        ),
        // The auth domain (User and Session aggregates), its read models and its HTTP API.
        .target(
            name: "Auth",
            dependencies: [
                "AuthInfrastructure", "Contracts", "EventSourcing", "Messaging", "ServiceKit", "Kafka",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            path: "Services/Auth/Sources",
            resources: [.copy("openapi.yaml")]
        ),
        .executableTarget(
            name: "AuthMain",
            dependencies: ["Auth", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Services/Auth/Main"
        ),

        // tour-management: tours, stops, media, destinations and discovery (Services/TourManagement).
        .target(
            name: "TourManagement",
            dependencies: [
                "Contracts", "EventSourcing", "Geo", "Messaging", "ReferenceData", "ServiceKit",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Services/TourManagement/Sources",
            resources: [.copy("openapi.yaml")]
        ),
        .executableTarget(
            name: "TourManagementMain",
            dependencies: ["TourManagement", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Services/TourManagement/Main"
        ),

        // analytics: statistics projected from every topic; no commands, rebuildable (Services/Analytics).
        .target(
            name: "Analytics",
            dependencies: [
                "Contracts", "EventSourcing", "Kafka", "Messaging", "ServiceKit",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            path: "Services/Analytics/Sources",
            resources: [.copy("openapi.yaml")]
        ),
        .executableTarget(
            name: "AnalyticsMain",
            dependencies: ["Analytics", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Services/Analytics/Main"
        ),

        // record-trip: rides recorded and uploaded, statistics, weather, map matching, obstacle candidates
        // (Services/RecordTrip). The algorithms on a ride's samples are their own target, with no service stack.
        .target(
            name: "RecordTripAnalysis",
            dependencies: ["Geo", "RoadNetwork"],
            path: "Services/RecordTrip/Analysis"
        ),
        .target(
            name: "RecordTrip",
            dependencies: [
                "Contracts", "EventSourcing", "Geo", "Messaging", "RecordTripAnalysis", "ReferenceData", "RoadNetwork", "ServiceKit",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Services/RecordTrip/Sources",
            resources: [.copy("openapi.yaml")]
        ),
        .executableTarget(
            name: "RecordTripMain",
            dependencies: ["RecordTrip", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Services/RecordTrip/Main"
        ),

        // path-review: streets, path drafts, the review queue and the approved path network (Services/PathReview).
        .target(
            name: "PathReview",
            dependencies: [
                "Contracts", "EventSourcing", "Geo", "Messaging", "ReferenceData", "RoadNetwork", "ServiceKit",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Services/PathReview/Sources",
            resources: [.copy("openapi.yaml")]
        ),
        .executableTarget(
            name: "PathReviewMain",
            dependencies: ["PathReview", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Services/PathReview/Main"
        ),

        // navigation: ranked bike routes, turn-by-turn sessions, tour stop triggers, places (Services/Navigation).
        .target(
            name: "Navigation",
            dependencies: [
                "Contracts", "EventSourcing", "Geo", "Messaging", "ReferenceData", "RoadNetwork", "ServiceKit",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Services/Navigation/Sources",
            resources: [.copy("openapi.yaml")]
        ),
        .executableTarget(
            name: "NavigationMain",
            dependencies: ["Navigation", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Services/Navigation/Main"
        ),

        // gateway: the single public entry point — routing, edge auth, rate limits, caching, push (Services/Gateway).
        // The push stream's hub (notifications from `waypoint.notifications`, per-user buffers, SSE) is its own target.
        .target(
            name: "GatewayNotifications",
            dependencies: [
                "Contracts", "EventSourcing", "Kafka", "Messaging", "ServiceKit",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Services/Gateway/Notifications"
        ),
        .target(
            name: "Gateway",
            dependencies: [
                "Contracts", "EventSourcing", "GatewayNotifications", "Kafka", "Messaging", "ServiceKit",
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Services/Gateway/Sources",
            resources: [.copy("openapi.yaml")]
        ),
        .executableTarget(
            name: "GatewayMain",
            dependencies: ["Gateway", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Services/Gateway/Main"
        ),

        // MARK: Tools
        .executableTarget(
            name: "WaypointCLI",
            dependencies: [
                "TourManagement", "Analytics", "ReferenceData", "RoadNetwork", "Geo",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            path: "Tools/Waypoint"
        ),
        .executableTarget(
            name: "WaypointBench",
            dependencies: [
                "Auth", "AuthInfrastructure", "Contracts", "EventSourcing", "Geo", "Messaging", "Kafka", "ServiceKit", "ServiceTesting",
                "TourManagement", "Analytics", "ReferenceData", "RoadNetwork", "RecordTripAnalysis", "RecordTrip", "PathReview",
                "Navigation", "Gateway", "GatewayNotifications",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Tools/WaypointBench"
        ),
        // Test fixture: appends in a loop and reports each acknowledged append, so a test can kill -9 it.
        .executableTarget(
            name: "EventStoreCrashWriter",
            dependencies: [
                "EventSourcing",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Tests/Fixtures/EventStoreCrashWriter"
        ),

        // MARK: Tests
        .testTarget(
            name: "EventSourcingTests",
            dependencies: [
                "Contracts", "EventSourcing", "EventStoreCrashWriter", "ServiceKit", "ServiceTesting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tests/EventSourcingTests"
        ),
        .testTarget(
            name: "KafkaTests",
            dependencies: ["Kafka", "ServiceTesting", .product(name: "Logging", package: "swift-log")],
            path: "Tests/KafkaTests"
        ),
        .testTarget(
            name: "ServiceKitTests",
            dependencies: [
                "ServiceKit", "ServiceTesting",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tests/ServiceKitTests"
        ),
        .testTarget(
            name: "MessagingTests",
            dependencies: [
                "Messaging", "EventSourcing", "Kafka", "ServiceKit", "ServiceTesting",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Tests/MessagingTests"
        ),
        .testTarget(
            name: "AuthInfrastructureTests",
            dependencies: [
                "AuthInfrastructure", "ServiceKit", "ServiceTesting", "EventSourcing",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            path: "Tests/AuthInfrastructureTests"
        ),
        .testTarget(
            name: "AuthTests",
            dependencies: [
                "Auth", "AuthInfrastructure", "AuthMain", "Contracts", "ContractTesting", "EventSourcing", "Kafka", "Messaging",
                "ServiceKit", "ServiceTesting",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Tests/AuthTests"
        ),
        .testTarget(
            name: "TourManagementTests",
            dependencies: [
                "TourManagement", "TourManagementMain", "WaypointCLI", "Contracts", "ContractTesting", "EventSourcing", "Geo", "Messaging", "ReferenceData",
                "ServiceKit", "ServiceTesting",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            path: "Tests/TourManagementTests"
        ),
        .testTarget(
            name: "AnalyticsTests",
            dependencies: [
                "Analytics", "Contracts", "EventSourcing", "Messaging", "ServiceKit", "ServiceTesting",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            path: "Tests/AnalyticsTests"
        ),
        .testTarget(
            name: "GatewayTests",
            dependencies: [
                "Gateway", "GatewayNotifications", "Contracts", "EventSourcing", "Kafka", "Messaging", "ServiceKit", "ServiceTesting",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/GatewayTests"
        ),
        .testTarget(
            name: "GatewayNotificationsTests",
            dependencies: [
                "GatewayNotifications", "Contracts", "ContractTesting", "EventSourcing", "Kafka", "Messaging", "ServiceKit",
                "ServiceTesting", "TourManagement",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/GatewayNotificationsTests"
        ),
        // Ride analysis on its own (cleaning, statistics, GPX, obstacles), checked against gpxpy where it applies.
        .testTarget(
            name: "RecordTripAnalysisTests",
            dependencies: ["RecordTripAnalysis", "Geo", "RoadNetwork", "ReferenceData", "ServiceTesting"],
            path: "Tests/RecordTripAnalysisTests",
            exclude: ["Peers"]  // Python scripts of the peers, run by path (#filePath)
        ),
        .testTarget(
            name: "RecordTripTests",
            dependencies: [
                "RecordTrip", "RecordTripAnalysis", "Contracts", "ContractTesting", "EventSourcing", "Geo", "Messaging",
                "RoadNetwork", "ServiceKit", "ServiceTesting",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/RecordTripTests"
        ),
        .testTarget(
            name: "PathReviewTests",
            dependencies: [
                "PathReview", "Contracts", "ContractTesting", "EventSourcing", "Geo", "Messaging", "ReferenceData",
                "RoadNetwork", "ServiceKit", "ServiceTesting",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Tests/PathReviewTests"
        ),
        .testTarget(
            name: "NavigationTests",
            dependencies: [
                "Navigation", "Contracts", "ContractTesting", "EventSourcing", "Geo", "Kafka", "Messaging", "ReferenceData",
                "RoadNetwork", "ServiceKit", "ServiceTesting",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/NavigationTests"
        ),
        // The operator's artefacts (docker-compose.yml, deploy/) and the launcher (`waypoint up`).
        .testTarget(
            name: "DeployTests",
            dependencies: [
                "WaypointCLI", "AuthMain", "TourManagementMain", "AnalyticsMain", "RecordTripMain", "PathReviewMain", "NavigationMain", "GatewayMain",
                "ServiceTesting", "Auth", "TourManagement", "Analytics", "Messaging", "ServiceKit", "Kafka", "ReferenceData",
                .product(name: "Yams", package: "Yams"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            path: "Tests/DeployTests"
        ),
        // The platform end to end through the gateway, against the processes `waypoint up` starts (needs every executable built).
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "WaypointCLI", "Kafka", "ServiceTesting", "Geo", "AuthMain", "TourManagementMain", "AnalyticsMain", "RecordTripMain", "PathReviewMain",
                "NavigationMain", "GatewayMain",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Tests/EndToEndTests"
        ),
        .testTarget(name: "CRdKafkaTests", dependencies: ["CRdKafka"], path: "Tests/CRdKafkaTests"),
        .testTarget(name: "GeoTests", dependencies: ["Geo"], path: "Tests/GeoTests"),
        // The road network, its cache and `waypoint roads …` (in process); the pgRouting oracle needs the test PostgreSQL.
        .testTarget(
            name: "RoadNetworkTests",
            dependencies: [
                "RoadNetwork", "ReferenceData", "ServiceTesting", "WaypointCLI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Tests/RoadNetworkTests"
        ),
        // The benchmark's own helpers (the synthetic grid city); the benchmarks themselves are run, not tested.
        // The bench's helpers, and `waypoint-bench gateway` at toy sizes over the platform `waypoint up` starts (needs every executable built).
        .testTarget(
            name: "WaypointBenchTests",
            dependencies: [
                "WaypointBench", "RoadNetwork", "ReferenceData", "ServiceTesting", "WaypointCLI", "AuthMain", "TourManagementMain", "AnalyticsMain",
                "RecordTripMain", "PathReviewMain", "NavigationMain", "GatewayMain",
            ],
            path: "Tests/WaypointBenchTests"
        ),
        .testTarget(name: "ReferenceDataTests", dependencies: ["ReferenceData"], path: "Tests/ReferenceDataTests"),
        .testTarget(name: "ContractsTests", dependencies: ["Contracts", "ContractTesting"], path: "Tests/ContractsTests"),
    ],
    swiftLanguageModes: [.v6]
)
