import Synchronization

/// A value loaded from a read model and held in memory while the read model's version stays the same — the shape of
/// ``StreetOverlayCache`` and ``ApprovedBoxIndex``. Each ask reads the version (cheap); while it is not newer than the
/// held copy's, the copy answers; otherwise one load runs for that version and every concurrent ask waits for it. The
/// version is read before the load, so a copy is never older than the version it carries; a failed load is dropped,
/// and the next ask loads again.
final class VersionedCopy<Value: Sendable>: Sendable {
    private struct State {
        var held: (version: Int64, value: Value)?
        var loading: (version: Int64, task: Task<Value, any Error>)?
    }

    private let version: @Sendable () async throws -> Int64
    private let load: @Sendable () async throws -> Value
    private let state = Mutex(State())

    /// A copy asking `version` each time and loading with `load` when it moved.
    init(version: @escaping @Sendable () async throws -> Int64, load: @escaping @Sendable () async throws -> Value) {
        self.version = version
        self.load = load
    }

    /// The value as of now, and the version it was loaded at.
    func current() async throws -> (version: Int64, value: Value) {
        try await current(at: try await version())
    }

    /// The value at least as new as `asked` — a version the caller read itself (with others, in one statement) — and
    /// the version it was loaded at.
    func current(at asked: Int64) async throws -> (version: Int64, value: Value) {
        let (held, loading): ((version: Int64, value: Value)?, (version: Int64, task: Task<Value, any Error>)?) = state.withLock { state in
            if let held = state.held, held.version >= asked { return (held, nil) }
            if let loading = state.loading, loading.version >= asked { return (nil, loading) }
            let task = Task { [load] in try await load() }
            state.loading = (asked, task)
            return (nil, (asked, task))
        }
        if let held { return held }
        guard let loading else { preconditionFailure("either a held copy or a load") }
        do {
            let value = try await loading.task.value
            state.withLock { state in
                if loading.version > state.held?.version ?? -1 { state.held = (loading.version, value) }
                if state.loading?.task == loading.task { state.loading = nil }
            }
            return (loading.version, value)
        } catch {
            state.withLock { state in
                if state.loading?.task == loading.task { state.loading = nil }
            }
            throw error
        }
    }
}
