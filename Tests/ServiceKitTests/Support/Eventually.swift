import Foundation

/// Polls `condition` until it holds or `timeout` passes; for states reached asynchronously
/// (readiness flipping during shutdown) where no event can be awaited.
func eventually(
    timeout: Duration = .seconds(5),
    _ condition: @Sendable () async throws -> Bool
) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}
