import Logging

/// Process-wide logging setup; only executables' `main` call it.
public enum PodiumLogging {
    /// One line per event on standard error, metadata as `key=value`.
    public static func bootstrap(level: Logger.Level) {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}
