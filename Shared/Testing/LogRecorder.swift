import Logging
import PodiumRuntime

/// Keeps what a logger writes, so that a test can check that something was logged.
public final class LogRecorder: Sendable {
    public struct Entry: Sendable {
        public var level: Logger.Level
        public var message: String
        public var metadata: [String: String]
    }

    private let entries = Locked<[Entry]>([])

    public init() {}

    /// A logger that writes here (at `level` and above).
    public func logger(level: Logger.Level = .info) -> Logger {
        var logger = Logger(label: "podium.test", factory: { _ in Handler(recorder: self) })
        logger.logLevel = level
        return logger
    }

    /// Everything logged so far.
    public var all: [Entry] { entries.withLock { $0 } }

    /// The entries whose message contains `text`.
    public func matching(_ text: String) -> [Entry] { all.filter { $0.message.contains(text) } }

    fileprivate func append(_ entry: Entry) { entries.withLock { $0.append(entry) } }

    private struct Handler: LogHandler {
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .info

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(
            level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String,
            function: String, line: UInt
        ) {
            let merged = self.metadata.merging(metadata ?? [:]) { _, new in new }
            recorder.append(Entry(level: level, message: message.description, metadata: merged.mapValues { "\($0)" }))
        }
    }
}
