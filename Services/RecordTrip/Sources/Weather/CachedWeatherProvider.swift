/// Any ``WeatherProvider`` behind a cache per ``WeatherCell`` (0.1° cell and UTC hour).
///
/// - Concurrent lookups in one cell and hour share one upstream call: the first starts it, the others await it.
/// - An observation is kept for ``successLifetime`` (default 6 h: the past does not change, but the forecast API revises
///   the last hours for a while); a failure only for ``failureLifetime`` (default 30 s), long enough that a burst of
///   finishing rides does not hammer a provider that is down, short enough that the retry worker gets through soon.
/// - At most ``capacity`` cells are kept (default 10,000, a few MB); beyond that the oldest inserted go first.
///
/// The upstream is asked for the cell's centre at the start of the hour, so every lookup in a cell and hour gets the
/// same answer whoever asked first.
public actor CachedWeatherProvider<Upstream: WeatherProvider>: WeatherProvider {
    /// The provider asked on a miss.
    public nonisolated let upstream: Upstream
    /// Most cells kept.
    public nonisolated let capacity: Int
    /// How long an observation is served from the cache.
    public nonisolated let successLifetime: Duration
    /// How long a failure is answered from the cache without asking again.
    public nonisolated let failureLifetime: Duration
    /// Upstream calls started so far (for tests and diagnostics).
    public private(set) var upstreamCalls = 0
    /// Lookups that joined an upstream call already in flight instead of starting one (for tests and diagnostics).
    public private(set) var joinedCalls = 0

    private enum State {
        case pending(Task<WeatherObservation, any Error>)
        case done(Result<WeatherObservation, WeatherError>, until: ContinuousClock.Instant)
    }

    private struct Entry {
        var state: State
        var generation: UInt64
    }

    private let now: @Sendable () -> ContinuousClock.Instant
    private var entries: [WeatherCell: Entry] = [:]
    private var insertionOrder: [(cell: WeatherCell, generation: UInt64)] = []
    private var oldest = 0
    private var nextGeneration: UInt64 = 0

    /// A cache over `upstream` keeping at most `capacity` (≥ 1) cells. `now` is the clock lifetimes are measured on.
    public init(upstream: Upstream, capacity: Int = 10_000, successLifetime: Duration = .seconds(6 * 3600),
                failureLifetime: Duration = .seconds(30),
                now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }) {
        self.upstream = upstream
        self.capacity = max(1, capacity)
        self.successLifetime = successLifetime
        self.failureLifetime = failureLifetime
        self.now = now
    }

    /// Cells held now (pending, answered or failed).
    public var count: Int { entries.count }

    /// The weather of the cell and hour holding the place and time, from the cache or one shared upstream call.
    public func observation(latitude: Double, longitude: Double, time: Double) async throws -> WeatherObservation {
        let cell = try WeatherCell(latitude: latitude, longitude: longitude, time: time)
        switch entries[cell]?.state {
        case .pending(let task)?:
            joinedCalls += 1
            return try await Self.outcome(of: task).get()
        case .done(let result, let until)? where now() < until:
            return try result.get()
        default:
            return try await ask(cell).get()
        }
    }

    /// Starts the upstream call for `cell`, records it while pending and its outcome when done.
    private func ask(_ cell: WeatherCell) async -> Result<WeatherObservation, WeatherError> {
        let upstream = self.upstream
        // Unstructured on purpose: the lookup that started it may be cancelled while others still wait for it.
        let task = Task<WeatherObservation, any Error> {
            try await upstream.observation(latitude: cell.centreLatitude, longitude: cell.centreLongitude, time: cell.hourStart)
        }
        upstreamCalls += 1
        let generation = insert(cell, .pending(task))
        let result = await Self.outcome(of: task)
        // Evicted or replaced meanwhile: answer, but do not resurrect the entry.
        if entries[cell]?.generation == generation {
            let lifetime = if case .success = result { successLifetime } else { failureLifetime }
            entries[cell]?.state = .done(result, until: now() + lifetime)
        }
        return result
    }

    private static func outcome(of task: Task<WeatherObservation, any Error>) async -> Result<WeatherObservation, WeatherError> {
        do {
            return .success(try await task.value)
        } catch let error as WeatherError {
            return .failure(error)
        } catch {
            return .failure(.unreachable(String(describing: error)))
        }
    }

    /// Stores `state` for `cell` and evicts the oldest cells beyond ``capacity``; returns the entry's generation.
    private func insert(_ cell: WeatherCell, _ state: State) -> UInt64 {
        nextGeneration += 1
        entries[cell] = Entry(state: state, generation: nextGeneration)
        insertionOrder.append((cell, nextGeneration))
        while entries.count > capacity, oldest < insertionOrder.count {
            let (victim, generation) = insertionOrder[oldest]
            oldest += 1
            if entries[victim]?.generation == generation { entries[victim] = nil }
        }
        // Keep the order list proportional to the cache: a cell asked again after expiry leaves a stale record behind.
        if insertionOrder.count > 2 * capacity + 1024 {
            insertionOrder = insertionOrder[oldest...].filter { entries[$0.cell]?.generation == $0.generation }
            oldest = 0
        }
        return nextGeneration
    }
}
