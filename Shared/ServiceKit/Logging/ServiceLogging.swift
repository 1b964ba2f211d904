import Logging
import Synchronization

/// Process-wide logging set-up from ``ServiceConfiguration``.
///
/// ``bootstrap(_:)`` installs the JSON (or text) handler once per process; a second call does nothing,
/// so it is safe from `main` and harmless elsewhere. Tests should not call it: they pass loggers
/// (for example with a ``JSONLogHandler`` writing to a closure) explicitly.
public enum ServiceLogging {
    private static let isBootstrapped = Mutex(false)

    /// Installs the handler chosen by `configuration.logFormat` at `configuration.logLevel`.
    ///
    /// - Returns: `true` if this call bootstrapped logging, `false` if it had already been done.
    @discardableResult
    public static func bootstrap(_ configuration: ServiceConfiguration) -> Bool {
        let first = isBootstrapped.withLock { done in
            defer { done = true }
            return !done
        }
        guard first else { return false }
        let level = configuration.logLevel
        switch configuration.logFormat {
        case .json:
            LoggingSystem.bootstrap { label in JSONLogHandler(label: label, logLevel: level) }
        case .text:
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardOutput(label: label)
                handler.logLevel = level
                return handler
            }
        }
        return true
    }

    /// A logger labelled with the service name at the configured level.
    public static func makeLogger(_ configuration: ServiceConfiguration) -> Logger {
        var logger = Logger(label: configuration.serviceName)
        logger.logLevel = configuration.logLevel
        return logger
    }
}
