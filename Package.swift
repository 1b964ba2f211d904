// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Waypoint",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "EventSourcing", targets: ["EventSourcing"]),
        .library(name: "Geo", targets: ["Geo"]),
        .library(name: "Contracts", targets: ["Contracts"]),
        .library(name: "ContractTesting", targets: ["ContractTesting"]),
        .executable(name: "waypoint-bench", targets: ["WaypointBench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
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
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Shared/EventSourcing"
        ),
        .target(name: "Geo", path: "Shared/Geo"),
        .target(name: "Contracts", path: "Shared/Contracts"),
        // Golden-file helper for producer and consumer contract tests of every service.
        .target(name: "ContractTesting", dependencies: ["Contracts"], path: "Shared/ContractTesting"),

        // MARK: Tools
        .executableTarget(
            name: "WaypointBench",
            dependencies: [
                "EventSourcing",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
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
                "EventSourcing", "EventStoreCrashWriter",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Tests/EventSourcingTests"
        ),
        .testTarget(name: "CRdKafkaTests", dependencies: ["CRdKafka"], path: "Tests/CRdKafkaTests"),
        .testTarget(name: "GeoTests", dependencies: ["Geo"], path: "Tests/GeoTests"),
        .testTarget(name: "ContractsTests", dependencies: ["Contracts", "ContractTesting"], path: "Tests/ContractsTests"),
    ],
    swiftLanguageModes: [.v6]
)
