import Logging
import Metrics
import PodiumMessages

/// A durable stream's store, as retention sees it.
public protocol StreamRetention: Sendable {
    /// The oldest and newest sequences held, and the newest written before `agedBefore` (ms).
    func streamBounds(agedBefore: Int64) async throws -> StreamBounds
    /// Deletes the oldest messages up to `through`, at most `atMost` of them, in one
    /// transaction; returns how many went.
    func pruneStream(through: UInt64, atMost: Int) async throws -> Int
}

/// A receipt table, as retention sees it.
public protocol ReceiptRetention: Sendable {
    /// Deletes receipts written before `before` (ms), at most `atMost`, in one transaction.
    func pruneReceipts(before: Int64, atMost: Int) async throws -> Int
}

/// Prunes one process's durable tables by the configured retention (``RetentionSettings``):
/// its stream (the gateway's event log or a service's outbox) never past what every expected
/// reader has read, nor its newest message; its receipts by age. Runs every
/// ``RetentionSettings/interval``, in transactions of at most ``chunk`` rows so that writers
/// never wait long.
public final class Pruner: Sendable {
    public let service: String
    /// The stream's name (``StreamName``) and store, if the process has one.
    let stream: (name: String, store: any StreamRetention, table: String)?
    let receipts: (any ReceiptRetention)?
    let settings: RetentionSettings
    private let readers = Locked(StreamReaders())
    private let first = Locked<UInt64>(0)

    /// Rows deleted in one transaction.
    static let chunk = 5000

    public init(
        service: String, stream: (name: String, store: any StreamRetention, table: String)?,
        receipts: (any ReceiptRetention)?,
        settings: RetentionSettings
    ) {
        self.service = service
        self.stream = stream
        self.receipts = receipts
        self.settings = settings
    }

    /// A service read the stream after `after` (only services count: operators' reads do not hold it).
    public func noteRead(by caller: Actor, after: UInt64) {
        guard caller.kind == .service, let reader = caller.service else { return }
        readers.withLock { $0.read(by: reader, after: after) }
    }

    /// The oldest sequence the stream held at the last round (0 before the first).
    public var firstHeld: UInt64 { first.value }

    /// One round: what was deleted from the stream and from the receipts.
    @discardableResult
    public func pruneOnce(now: Int64, logger: Logger) async throws -> (stream: Int, receipts: Int) {
        var prunedStream = 0
        if let stream {
            let cutoff =
                stream.name == StreamName.events ? settings.eventCutoff(now: now) : settings.outboxCutoff(now: now)
            let bounds = try await stream.store.streamBounds(agedBefore: cutoff ?? .min)
            first.withLock { $0 = bounds.first }
            let floor = readers.value.floor(expected: StreamName.readers(of: stream.name))
            let through = cutoff == nil ? 0 : RetentionRule.pruneThrough(bounds, readersFloor: floor)
            if cutoff != nil, floor == nil, bounds.agedThrough >= bounds.first, bounds.first > 0 {
                logger.debug(
                    "retention waits for the stream's readers to read once",
                    metadata: ["stream": "\(stream.name)", "readers": "\(StreamName.readers(of: stream.name))"])
            }
            while through > 0 {
                let deleted = try await stream.store.pruneStream(through: through, atMost: Self.chunk)
                prunedStream += deleted
                if deleted < Self.chunk { break }
            }
            if prunedStream > 0 {
                first.withLock { $0 = through + 1 }
                Counter(
                    label: MetricNames.retentionPruned, dimensions: [("service", service), ("table", stream.table)]
                )
                .increment(by: Int64(prunedStream))
            }
            Gauge(label: MetricNames.streamFirst, dimensions: [("stream", stream.name)]).record(Double(first.value))
        }
        var prunedReceipts = 0
        if let receipts {
            while true {
                let deleted = try await receipts.pruneReceipts(
                    before: settings.receiptCutoff(now: now), atMost: Self.chunk)
                prunedReceipts += deleted
                if deleted < Self.chunk { break }
            }
            if prunedReceipts > 0 {
                Counter(label: MetricNames.retentionPruned, dimensions: [("service", service), ("table", "receipt")])
                    .increment(by: Int64(prunedReceipts))
            }
        }
        if prunedStream + prunedReceipts > 0 {
            logger.info(
                "retention pruned old rows",
                metadata: [
                    "stream": "\(stream?.name ?? "-")", "stream.pruned": "\(prunedStream)",
                    "stream.first": "\(first.value)",
                    "receipts.pruned": "\(prunedReceipts)",
                ])
        }
        return (prunedStream, prunedReceipts)
    }

    /// Prunes every interval until cancelled; a failed round is logged and tried again next time.
    public func run(clock: any PodiumClock, logger: Logger) async {
        while !Task.isCancelled {
            do {
                try await clock.sleep(for: settings.interval)
            } catch { return }
            do {
                try await pruneOnce(now: clock.nowMilliseconds, logger: logger)
            } catch {
                logger.warning("retention round failed; trying again later", metadata: ["error": "\(error)"])
            }
        }
    }
}
