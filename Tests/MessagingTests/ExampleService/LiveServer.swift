import Foundation
import NIOCore
import Synchronization

/// Captures the port a server bound (configured with port 0) through `onServerRunning`.
final class BoundPort: Sendable {
    private let port = Mutex<Int?>(nil)

    /// Pass this as `onServerRunning`.
    var onServerRunning: @Sendable (any Channel) async -> Void {
        { channel in self.port.withLock { $0 = channel.localAddress?.port } }
    }

    /// Waits until the server listens; returns its port.
    func wait(timeout: Duration = .seconds(20)) async throws -> Int {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let port = port.withLock({ $0 }) { return port }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw CancellationError()
    }
}
