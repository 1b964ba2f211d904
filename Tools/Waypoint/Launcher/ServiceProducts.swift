import Foundation
import Synchronization

/// Where the service executables are, and building them: `swift build --product NAME` for each product of the catalogue
/// that this version of the package declares, into the scratch directory the running `waypoint` was built in.
public struct ServiceProducts: Sendable {
    /// Directory holding the executables (`…/.build/debug`).
    public var binDirectory: URL

    public init(binDirectory: URL) {
        self.binDirectory = binDirectory
    }

    /// The directory of the running executable: under `swift run waypoint up`, the products directory itself.
    public static func runningExecutableDirectory() -> URL {
        let path = Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent()
        return path ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }

    /// The path of `executable` when it exists and is executable.
    public func path(of executable: String) -> String? {
        let path = binDirectory.appendingPathComponent(executable).path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    /// The catalogue's executables present in ``binDirectory``.
    public func available() -> Set<String> {
        Set(ServiceCatalog.all.map(\.executable).filter { path(of: $0) != nil })
    }

    /// The package root: the nearest directory holding `Package.swift`, from `start` upwards.
    public static func packageRoot(from start: URL) -> URL? {
        var directory = start.standardizedFileURL
        for _ in 0..<16 {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path) { return directory }
            let parent = directory.deletingLastPathComponent()
            if parent.path == directory.path { return nil }
            directory = parent
        }
        return nil
    }

    /// The SwiftPM scratch directory ``binDirectory`` belongs to (`<root>/.build` for `.build/<triple>/debug`): the
    /// nearest ancestor holding `workspace-state.json`.
    public var scratchDirectory: URL? {
        var directory = binDirectory.resolvingSymlinksInPath()
        for _ in 0..<3 {
            directory = directory.deletingLastPathComponent()
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("workspace-state.json").path) { return directory }
        }
        return nil
    }

    /// Executable products the package declares (`swift package dump-package`).
    public static func declaredExecutables(packageRoot: URL, swift: String) async throws -> Set<String> {
        let output = try await Self.capture(swift, ["package", "--package-path", packageRoot.path, "dump-package"])
        guard let json = try JSONSerialization.jsonObject(with: output) as? [String: Any],
              let products = json["products"] as? [[String: Any]]
        else { return [] }
        return Set(products.compactMap { product in
            guard let type = product["type"] as? [String: Any], type["executable"] != nil else { return nil }
            return product["name"] as? String
        })
    }

    /// Builds each of `products` (`swift build --product`), with the build's own output on the console.
    /// - Throws: when a build fails.
    public func build(_ products: [String], packageRoot: URL, swift: String, console: Console) async throws {
        var common = ["build", "--package-path", packageRoot.path]
        if let scratch = scratchDirectory { common += ["--scratch-path", scratch.path] }
        if binDirectory.resolvingSymlinksInPath().lastPathComponent == "release" { common += ["-c", "release"] }
        for product in products {
            console.say("building \(product): swift \((common + ["--product", product]).joined(separator: " "))")
            let process = try ChildProcess(executable: swift, arguments: common + ["--product", product],
                                           environment: ProcessInfo.processInfo.environment, output: nil)
            let status = await process.waitForExit()
            guard status == .exited(0) else { throw LauncherError("building \(product) failed (\(status))") }
        }
    }

    /// The absolute path of `swift` on `PATH`.
    public static func swiftExecutable(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        for directory in (environment["PATH"] ?? "").split(separator: ":") {
            let path = "\(directory)/swift"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    private static func capture(_ executable: String, _ arguments: [String]) async throws -> Data {
        let collected = Collected()
        let process = try ChildProcess(executable: executable, arguments: arguments, environment: ProcessInfo.processInfo.environment) {
            collected.append($0)
        }
        let status = await process.waitForExit()
        await collected.finished()
        guard status == .exited(0) else {
            throw LauncherError("\(executable) \(arguments.joined(separator: " ")) failed (\(status)): \(String(decoding: collected.bytes, as: UTF8.self))")
        }
        // Only the JSON document: SwiftPM may print resolution messages before it.
        let bytes = collected.bytes
        return Data(bytes.drop(while: { $0 != UInt8(ascii: "{") }))
    }
}

/// Output of a short command, gathered by its reader thread.
private final class Collected: Sendable {
    private let state = Mutex<(bytes: [UInt8], done: Bool, waiter: CheckedContinuation<Void, Never>?)>(([], false, nil))

    func append(_ chunk: ArraySlice<UInt8>?) {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
            guard let chunk else {
                state.done = true
                defer { state.waiter = nil }
                return state.waiter
            }
            state.bytes += chunk
            return nil
        }
        waiter?.resume()
    }

    func finished() async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state in
                if state.done { return true }
                state.waiter = continuation
                return false
            }
            if done { continuation.resume() }
        }
    }

    var bytes: [UInt8] { state.withLock { $0.bytes } }
}

/// A launcher failure with a message meant for the operator.
public struct LauncherError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
