import CRdKafka
import Synchronization

/// Owns one `rd_kafka_t` and the ``RDKafkaClientContext`` its callbacks reach.
///
/// Two ways in: ``withLiveHandle(_:_:)`` for short non-blocking calls from any thread (held under a lock, so
/// ``destroy()`` cannot run underneath them), and ``pointer`` for blocking calls, which the owning client makes only
/// on its own serial queue or poll thread — the same places that call ``destroy()``, after stopping the poll thread.
final class RDKafkaHandle: @unchecked Sendable {  // librdkafka handles are thread-safe; `destroyed` guards lifetime.
    /// The `rd_kafka_t`; valid until ``destroy()``.
    let pointer: OpaquePointer
    /// `rd_kafka_name`, such as `waypoint#producer-1`.
    let name: String
    private let context: Unmanaged<RDKafkaClientContext>
    private let destroyed = Mutex(false)

    private init(pointer: OpaquePointer, context: Unmanaged<RDKafkaClientContext>) {
        self.pointer = pointer
        self.name = String(cString: rd_kafka_name(pointer))
        self.context = context
    }

    deinit {
        destroy()
    }

    /// Creates a client of `type` from `properties`, routing its logs and errors to `context`'s logger;
    /// `configure` installs further callbacks on the configuration before `rd_kafka_new` takes it.
    static func make(
        type: rd_kafka_type_t, properties: [String: String], context: RDKafkaClientContext,
        configure: (OpaquePointer) -> Void = { _ in }
    ) throws -> RDKafkaHandle {
        var properties = properties
        if properties["log_level"] == nil {
            properties["log_level"] = String(RDKafkaClientContext.syslogLevel(for: context.logger.logLevel))
        }
        let configuration = try RDKafkaConfig.make(properties)
        let retained = Unmanaged.passRetained(context)
        rd_kafka_conf_set_opaque(configuration, retained.toOpaque())
        RDKafkaConfig.routeLogsAndErrors(configuration)
        configure(configuration)

        var reason = [CChar](repeating: 0, count: 512)
        guard let pointer = rd_kafka_new(type, configuration, &reason, reason.count) else {
            rd_kafka_conf_destroy(configuration)  // rd_kafka_new frees the configuration only on success.
            retained.release()
            throw KafkaError(code: RD_KAFKA_RESP_ERR__INVALID_ARG, operation: "create client", reason: String(cChars: reason))
        }
        return RDKafkaHandle(pointer: pointer, context: retained)
    }

    /// Whether ``destroy()`` has run.
    var isDestroyed: Bool {
        destroyed.withLock { $0 }
    }

    /// Runs a short, non-blocking librdkafka call on the live handle; throws ``KafkaError/clientClosed(_:)`` after
    /// ``destroy()``.
    func withLiveHandle<T>(_ operation: String, _ body: (OpaquePointer) throws -> T) throws -> T {
        try destroyed.withLock { isDestroyed in
            guard !isDestroyed else { throw KafkaError.clientClosed(operation) }
            return try body(pointer)
        }
    }

    /// Destroys the handle (blocking until librdkafka's threads end) and releases the context. Idempotent.
    /// The owner must have stopped every blocking call and its poll thread first.
    func destroy() {
        let alreadyDestroyed = destroyed.withLock { isDestroyed in
            defer { isDestroyed = true }
            return isDestroyed
        }
        guard !alreadyDestroyed else { return }
        rd_kafka_destroy(pointer)
        context.release()
    }
}
