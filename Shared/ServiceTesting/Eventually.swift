/// Polls `condition` every `interval` until it holds or `timeout` passes, then checks it once more; returns whether it
/// held. For states reached asynchronously where no event can be awaited: a read model catching up, a consumer going
/// live, readiness flipping during shutdown. A condition that throws counts as "not yet" (a table its consumer has not
/// created, a server not yet listening); the check at the deadline throws its error, so a failure says why.
///
/// Assert on the result, e.g. `#expect(try await eventually(timeout: .seconds(30)) { hub.status == .live })`, or use
/// ``waitUntil(_:timeout:interval:_:)`` to fail with a message naming what was awaited.
@discardableResult
public func eventually(
    timeout: Duration = .seconds(20),
    interval: Duration = .milliseconds(20),
    _ condition: () async throws -> Bool
) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if (try? await condition()) == true { return true }
        try await Task.sleep(for: interval)
    }
    return try await condition()
}

/// Waits until `condition` holds (polling as ``eventually(timeout:interval:_:)`` does); throws ``WaitTimeout`` naming
/// `what` if it does not within `timeout`. `what` reads as the state awaited: "the consumer is live".
public func waitUntil(
    _ what: String,
    timeout: Duration = .seconds(20),
    interval: Duration = .milliseconds(20),
    _ condition: () async throws -> Bool
) async throws {
    guard try await eventually(timeout: timeout, interval: interval, condition) else { throw WaitTimeout(what, after: timeout) }
}

/// Polls `read` until `done` holds for what it returns, and returns that value; throws ``WaitTimeout`` naming `what` if
/// it never does within `timeout`. For answers that trail the log, e.g. "until a GET lists two reviews":
/// `try await waitUntil("the list has two reviews", reading: { try await get(uri) }, until: { $0.count == 2 })`.
public func waitUntil<Value>(
    _ what: String,
    timeout: Duration = .seconds(20),
    interval: Duration = .milliseconds(20),
    reading read: () async throws -> Value,
    until done: (Value) throws -> Bool
) async throws -> Value {
    var last: Value?
    try await waitUntil(what, timeout: timeout, interval: interval) {
        let value = try await read()
        last = value
        return try done(value)
    }
    return last!
}

/// A state a test waited for did not come about in time.
public struct WaitTimeout: Error, CustomStringConvertible {
    /// The state awaited, as the test named it.
    public let what: String
    /// How long the test waited.
    public let timeout: Duration

    /// A timeout waiting for `what` after `timeout`.
    public init(_ what: String, after timeout: Duration) {
        self.what = what
        self.timeout = timeout
    }

    public var description: String { "timed out after \(timeout) waiting until \(what)" }
}
