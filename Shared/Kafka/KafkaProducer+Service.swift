import ServiceLifecycle

extension KafkaProducer: Service {
    /// Runs until graceful shutdown (or cancellation), then flushes and shuts the producer down.
    ///
    /// List the producer before the services that send through it in a `ServiceGroup`: they stop first, so their
    /// last messages are flushed here.
    public func run() async throws {
        try? await gracefulShutdown()
        await shutdown()
    }
}
