import PodiumMessages

/// A member of a consumer group: the instance applies a stream's messages only for the
/// partitions it serves, each partition with its own position (``StreamName/partition(_:_:)``),
/// so every message is applied once, by the owner of its key, and an instance that gains a
/// partition goes on from where the previous owner stopped.
///
/// Every instance reads the whole stream (the bus delivers every message to each of them) and
/// skips the messages of the partitions it does not serve. The position it reports to its
/// follower is the lowest of its partitions' (never below the position the service had before
/// it was partitioned), so after a restart or a change of partitions it reads again from the
/// partition furthest behind and skips what each partition already applied.
///
/// Each partition's messages are applied with the writes fenced by that partition's lease
/// (``FencedPartitions``): an instance that has just lost the partition cannot commit them
/// after its new owner read the position.
final class PartitionedConsumer: DurableConsumer {
    let inner: any DurableConsumer
    let map: PartitionMap
    let ownership: Ownership
    /// The partition key of a message of a stream; nil: partition 0's.
    let key: @Sendable (String, StreamMessage) -> String?
    /// Every message is applied in every partition (each restricted to its own data: a score is a
    /// fact for the challenges of every partition), the partitions at the same position together
    /// in one call (``StreamName/group(_:_:)``), instead of each message in its key's partition.
    let broadcast: Bool
    /// Streams applied as with ``broadcast`` although the others are keyed (account deletions
    /// for a service keyed by player and game: a player's data is in many partitions).
    let broadcastStreams: Set<String>
    /// Stream → partition → position, as last read or applied.
    private let positions = Locked<[String: [Int: UInt64]]>([:])
    /// Stream → how far this instance considered every message for the partitions it served
    /// then: the follower's position, as long as it serves the same partitions.
    private let considered = Locked<[String: (through: UInt64, partitions: Set<Int>)]>([:])
    /// Stream → when the served partitions' positions were last recorded (monotonic ms).
    private let recorded = Locked<[String: ContinuousClock.Instant]>([:])
    /// How often the positions of partitions a batch changed nothing in are recorded: they only
    /// spare a restart the reading again of messages that change nothing.
    static let recordInterval = Duration.seconds(1)

    init(
        _ inner: any DurableConsumer, map: PartitionMap, ownership: Ownership, broadcast: Bool = false,
        broadcastStreams: Set<String> = [],
        key: @escaping @Sendable (String, StreamMessage) -> String? = { _, _ in nil }
    ) {
        self.inner = inner
        self.map = map
        self.ownership = ownership
        self.broadcast = broadcast
        self.broadcastStreams = broadcastStreams
        self.key = key
    }

    /// The served partitions: a gained one may stand behind the follower's position.
    var positionBasis: [Int]? { ownership.served.keys.sorted() }

    /// Where each served partition stands in `stream`, as last read or applied.
    func positions(of stream: String) -> [Int: UInt64] {
        let served = ownership.served
        return (positions.value[stream] ?? [:]).filter { served[$0.key] != nil }
    }

    func partition(of message: StreamMessage, in stream: String) -> Int {
        key(stream, message).map { map.partition(of: $0) } ?? 0
    }

    func position(of stream: String) async throws -> UInt64 {
        let served = ownership.served.keys.sorted()
        // Before partitions, the service kept one position: every partition applied that far.
        let whole = try await inner.position(of: stream)
        var loaded: [Int: UInt64] = [:]
        for partition in served {
            loaded[partition] = max(whole, try await inner.position(of: StreamName.partition(stream, partition)))
        }
        positions.withLock { $0[stream] = loaded }
        let lowest = loaded.values.min() ?? whole
        // While it serves the same partitions, what this instance has considered is its position
        // (a partition's stored one may lag: see recordInterval).
        if let seen = considered.value[stream], seen.partitions == Set(served), seen.through > lowest {
            return seen.through
        }
        return lowest
    }

    func apply(_ message: StreamMessage, stream: String, sequence: UInt64, context: ServiceContext) async throws {
        try await apply(batch: [(message, sequence)], stream: stream, context: context)
    }

    func apply(batch: [(message: StreamMessage, sequence: UInt64)], stream: String, context: ServiceContext)
        async throws
    {
        let served = ownership.served
        var known = positions.value[stream] ?? [:]
        // A partition gained since the positions were read: read its own. If it stands before
        // this batch, the messages in between were never applied for it (the follower's position
        // was the other partitions'): the follower must read the stream again from the lowest.
        let gained = served.keys.filter { known[$0] == nil }
        if !gained.isEmpty {
            let whole = try await inner.position(of: stream)
            for partition in gained {
                known[partition] = max(whole, try await inner.position(of: StreamName.partition(stream, partition)))
            }
            let first = batch.first?.sequence ?? 0
            if let behind = gained.first(where: { known[$0]! + 1 < first }) {
                positions.withLock { $0[stream] = nil }
                throw PartitionBehind(stream: stream, partition: behind, position: known[behind]!, next: first)
            }
            positions.withLock { all in
                for partition in gained { all[stream, default: [:]][partition] = known[partition] }
            }
        }
        if broadcast || broadcastStreams.contains(stream) {
            try await applyEverywhere(
                batch, stream: stream, served: served.keys.sorted(), known: known, context: context)
            return
        }
        var groups: [Int: [(message: StreamMessage, sequence: UInt64)]] = [:]
        for item in batch {
            let partition = partition(of: item.message, in: stream)
            guard served[partition] != nil, item.sequence > (known[partition] ?? 0) else { continue }
            groups[partition, default: []].append(item)
        }
        for (partition, items) in groups.sorted(by: { $0.key < $1.key }) {
            try await FencedPartitions.$current.withValue([partition]) {
                try await inner.apply(batch: items, stream: StreamName.partition(stream, partition), context: context)
            }
            if let last = items.last?.sequence {
                positions.withLock { $0[stream, default: [:]][partition] = max($0[stream]?[partition] ?? 0, last) }
            }
        }
        // Every served partition considered the whole batch. Its stored position moves to the
        // batch's end at most once a second (one transaction for those behind), so that a
        // restart does not read far again; until then what this instance considered is kept in
        // memory (``position(of:)``).
        guard let last = batch.last?.sequence else { return }
        considered.withLock { $0[stream] = (last, Set(served.keys)) }
        let current = positions.value[stream] ?? [:]
        let behind = served.keys.filter { (current[$0] ?? 0) < last }
        guard !behind.isEmpty else { return }
        let now = ContinuousClock.now
        let due = recorded.withLock { recorded -> Bool in
            if let last = recorded[stream], now - last < Self.recordInterval { return false }
            recorded[stream] = now
            return true
        }
        guard due else { return }
        try await FencedPartitions.$current.withValue(Set(behind)) {
            try await inner.record(
                positions: Dictionary(uniqueKeysWithValues: behind.map { (StreamName.partition(stream, $0), last) }),
                context: context)
        }
        positions.withLock { all in
            for partition in behind { all[stream, default: [:]][partition] = max(all[stream]?[partition] ?? 0, last) }
        }
    }

    /// Broadcast: the partitions that stand at the same position apply the batch's messages beyond
    /// it together, fenced by all of them, their positions recorded by the consumer in the same
    /// transaction.
    private func applyEverywhere(
        _ batch: [(message: StreamMessage, sequence: UInt64)], stream: String, served: [Int], known: [Int: UInt64],
        context: ServiceContext
    ) async throws {
        let byPosition = Dictionary(grouping: served) { known[$0] ?? 0 }
        for (position, partitions) in byPosition.sorted(by: { $0.key < $1.key }) {
            let items = batch.filter { $0.sequence > position }
            guard let last = items.last?.sequence else { continue }
            try await FencedPartitions.$current.withValue(Set(partitions)) {
                try await inner.apply(batch: items, stream: StreamName.group(stream, partitions), context: context)
            }
            positions.withLock { all in
                for partition in partitions {
                    all[stream, default: [:]][partition] = max(all[stream]?[partition] ?? 0, last)
                }
            }
        }
    }

    func recover(stream: String, lost: ClosedRange<UInt64>, context: ServiceContext) async throws {
        if broadcast || broadcastStreams.contains(stream) {
            let served = ownership.served.keys.sorted()
            try await FencedPartitions.$current.withValue(Set(served)) {
                try await inner.recover(stream: StreamName.group(stream, served), lost: lost, context: context)
            }
            positions.withLock { $0[stream] = nil }
            return
        }
        for partition in ownership.served.keys.sorted() {
            try await FencedPartitions.$current.withValue([partition]) {
                try await inner.recover(stream: StreamName.partition(stream, partition), lost: lost, context: context)
            }
        }
        positions.withLock { $0[stream] = nil }
    }
}

/// A partition gained while the stream was being followed for others stands before the messages
/// at hand: the follower reads the stream again from its position (nothing is skipped).
struct PartitionBehind: Error, CustomStringConvertible {
    let stream: String
    let partition: Int
    let position: UInt64
    let next: UInt64
    var description: String {
        "partition \(partition) of \(stream) was gained at position \(position), before \(next): reading again from there"
    }
}

/// The partitions the writes of the current task touch, for a store's fencing: set around the
/// application of one partition's messages (``PartitionedConsumer``); nil: every lease held.
public enum FencedPartitions {
    @TaskLocal public static var current: Set<Int>?
}
