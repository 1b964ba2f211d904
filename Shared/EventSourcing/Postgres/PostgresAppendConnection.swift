import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO
import Synchronization

/// One connection outside the pool, kept for the event store's single-statement appends
/// (``PostgresEventStore/commitPlanned(_:known:database:)``): a single writer's append is one round trip, and a lease
/// from `PostgresClient`'s pool around it (its state machine, and a continuation to hand the connection over) was a
/// measurable share of the client's time per append (issue 23).
///
/// Opened on first use; a connection that an error closed is replaced at the next use; ``close()`` (called when the
/// database stops running) closes it for good, after which ``use(_:)`` answers `nil` and the caller takes the pool.
final class PostgresAppendConnection: Sendable {
    private struct State: ~Copyable {
        var connection: PostgresConnection?
        var opening = false
        var closed = false
    }

    private enum Step { case use(PostgresConnection), open, none }

    private let configuration: PostgresConnection.Configuration
    private let eventLoop: any EventLoop
    private let logger: Logger
    private let state = Mutex(State())
    private static let ids = Atomic<Int>(0)

    /// A connection (opened on first use) served by `eventLoop`.
    init(configuration: PostgresConnection.Configuration, eventLoop: any EventLoop, logger: Logger) {
        self.configuration = configuration
        self.eventLoop = eventLoop
        self.logger = logger
    }

    /// Runs `body` on the connection, opening it first if needed; `nil` when there is none to use: closed for good,
    /// or being opened by a concurrent caller (the group committer sends one group at a time, so that caller is a
    /// rare race, and it takes the pool).
    func use<T>(_ body: (PostgresConnection) async throws -> T) async throws -> T? {
        let step = state.withLock { state -> Step in
            if state.closed || state.opening { return .none }
            if let connection = state.connection, !connection.isClosed { return .use(connection) }
            state.opening = true
            return .open
        }
        let connection: PostgresConnection
        switch step {
        case .none:
            return nil
        case .use(let open):
            connection = open
        case .open:
            do {
                connection = try await PostgresConnection.connect(
                    on: eventLoop, configuration: configuration,
                    id: Self.ids.add(1, ordering: .relaxed).newValue, logger: logger).get()
            } catch {
                state.withLock { $0.opening = false }
                throw error
            }
            let (previous, keep) = state.withLock { state -> (PostgresConnection?, Bool) in
                state.opening = false
                guard !state.closed else { return (nil, false) }
                let previous = state.connection
                state.connection = connection
                return (previous, true)
            }
            if let previous { try? await previous.close() }
            guard keep else {
                try? await connection.close()
                return nil
            }
        }
        return try await body(connection)
    }

    /// Closes the connection for good (the database stopped running).
    func close() async {
        let connection = state.withLock { state -> PostgresConnection? in
            state.closed = true
            defer { state.connection = nil }
            return state.connection
        }
        try? await connection?.close()
    }
}

/// One ``PostgresAppendConnection`` per event loop of NIO's shared group (the loops the services' HTTP servers run
/// their request handlers on: ServiceKit's `EventLoopTaskExecutor`).
///
/// An append from a task running on one of those loops takes that loop's connection: the statement is written, its
/// answer read and the task resumed all on the one thread — no hand-off to another thread and back, which on the
/// reference machines costs a statement more than the client's own work (docs/benchmarks.md, "What a thread hand-off
/// costs one writer"). A caller on no loop (a background task on the concurrency pool, a tool) takes the first loop's.
/// Groups are committed one after the other, so a second connection adds no concurrency on the server.
final class PostgresAppendConnections: Sendable {
    private let connections: [(loop: ObjectIdentifier, connection: PostgresAppendConnection)]

    init(configuration: PostgresConnection.Configuration, logger: Logger) {
        connections = MultiThreadedEventLoopGroup.singleton.makeIterator().map { loop in
            (ObjectIdentifier(loop as AnyObject), PostgresAppendConnection(configuration: configuration, eventLoop: loop, logger: logger))
        }
    }

    /// The connection of the loop the caller runs on, or the first.
    var current: PostgresAppendConnection {
        if let loop = MultiThreadedEventLoopGroup.currentEventLoop {
            let id = ObjectIdentifier(loop as AnyObject)
            if let match = connections.first(where: { $0.loop == id }) { return match.connection }
        }
        return connections[0].connection
    }

    /// Closes every connection for good.
    func close() async {
        for (_, connection) in connections { await connection.close() }
    }
}
