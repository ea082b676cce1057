import Logging
import PodiumMessages
import Testing
import ZeroMQ

@testable import PodiumRuntime

/// A consumer group member as the runtime drives it, against an inner consumer that keeps its
/// positions and applications in memory: each partition applied once, from its own position, and
/// a partition gained mid-stream read again from where it stood (the cluster test found events
/// skipped when the follower's position had been the other partitions').
@Suite("Partitioned consumer")
struct PartitionedConsumerTests {
    /// Positions by stream name and every message applied, by stream name.
    final class Inner: DurableConsumer {
        let positions = Locked([String: UInt64]())
        let applied = Locked([String: [UInt64]]())

        func position(of stream: String) async throws -> UInt64 { positions.value[stream] ?? 0 }

        func apply(_ message: StreamMessage, stream: String, sequence: UInt64, context: ServiceContext) async throws {
            applied.withLock { $0[stream, default: []].append(sequence) }
            positions.withLock { $0[stream] = max($0[stream] ?? 0, sequence) }
        }

        func record(positions recorded: [String: UInt64], context: ServiceContext) async throws {
            positions.withLock { all in
                for (stream, sequence) in recorded { all[stream] = max(all[stream] ?? 0, sequence) }
            }
        }

        func recover(stream: String, lost: ClosedRange<UInt64>, context: ServiceContext) async throws {}
    }

    /// Messages 1…n, message i for player "p<i mod 2>" (two keys, two partitions here).
    static func messages(_ range: ClosedRange<UInt64>) -> [(message: StreamMessage, sequence: UInt64)] {
        range.map { sequence in
            let envelope = RawEnvelope(
                type: .gameEvent, gameId: "g", playerId: "p\(sequence % 2)", timestamp: 0, publisher: "events",
                sequence: sequence, payload: .null)
            return (StreamMessage(topic: "event/g", envelope: envelope), sequence)
        }
    }

    static func context() throws -> ServiceContext {
        // Real sockets, connected to nothing: the consumer under test never sends.
        let clock = SystemClock()
        let zmq = try ZMQContext()
        let publisher = try BusPublisher(context: zmq, endpoints: [], publisherID: "test", clock: clock)
        let link = try ServiceLink(context: zmq, endpoint: "inproc://partitioned-consumer-tests", instanceID: "test")
        return ServiceContext(
            settings: RuntimeSettings(service: "test", dataDirectory: .init(fileURLWithPath: "/tmp")),
            publisher: publisher, clock: clock, logger: Logger(label: "test"),
            asker: ServiceAsker(links: [link], clock: clock), outbox: nil, streams: StreamControl(), ownership: nil)
    }

    /// A member keyed by player over two partitions, holding and serving `mine` (player p0's);
    /// `other` is player p1's.
    static func member() throws -> (
        group: PartitionedConsumer, inner: Inner, ownership: Ownership, mine: Int, other: Int
    ) {
        let map = PartitionMap(partitions: 2)
        let key: @Sendable (String, StreamMessage) -> String? = { _, message in
            PartitionKey.player(gameId: message.envelope.gameId ?? "", playerId: message.envelope.playerId ?? "")
        }
        let mine = map.partition(of: PartitionKey.player(gameId: "g", playerId: "p0"))
        let other = map.partition(of: PartitionKey.player(gameId: "g", playerId: "p1"))
        try #require(mine != other, "the two players fall into two partitions")
        let inner = Inner()
        let ownership = Ownership(isLeased: true)
        _ = ownership.update([PartitionLease(partition: mine, owner: "a", epoch: 1)])
        ownership.finishLoading([mine])
        return (PartitionedConsumer(inner, map: map, ownership: ownership, key: key), inner, ownership, mine, other)
    }

    @Test("each member applies its partitions' messages once; a partition gained behind the batch makes it read again")
    func gainedPartitionReadsAgain() async throws {
        let (group, inner, ownership, mine, other) = try Self.member()
        let context = try Self.context()

        #expect(try await group.position(of: "events") == 0)
        try await group.apply(batch: Self.messages(1...4), stream: "events", context: context)
        let mineStream = StreamName.partition("events", mine)
        let otherStream = StreamName.partition("events", other)
        #expect(inner.applied.value[mineStream] == [2, 4], "only the messages of its own partition")
        #expect(inner.applied.value[otherStream] == nil)
        #expect(group.positions(of: "events") == [mine: 4], "the batch's end, though its last message is its own")
        // Another member applied the other partition up to 1, then let it go: this one takes it.
        inner.positions.withLock { $0[otherStream] = 1 }
        _ = ownership.update([
            PartitionLease(partition: mine, owner: "a", epoch: 1),
            PartitionLease(partition: other, owner: "a", epoch: 2),
        ])
        ownership.finishLoading([other])
        // The follower still stands at 4 and hands over 5…6: message 3 of the gained partition
        // would be skipped, so the batch is refused and the stream read again from the lowest.
        await #expect(throws: PartitionBehind.self) {
            try await group.apply(batch: Self.messages(5...6), stream: "events", context: context)
        }
        #expect(try await group.position(of: "events") == 1)
        try await group.apply(batch: Self.messages(2...6), stream: "events", context: context)
        #expect(inner.applied.value[otherStream] == [3, 5], "from its own position, each once")
        #expect(inner.applied.value[mineStream] == [2, 4, 6], "nothing of its old partition twice")
        #expect(try await group.position(of: "events") == 6)
    }

    @Test("a partition gained while nothing new arrives is caught up by the follower's next catch-up")
    func gainedPartitionCaughtUpWithoutNewMessages() async throws {
        // CI found a survivor's gained partitions never applying the last score: the follower kept
        // the position it had read before they were served, and no later message came to show it.
        let (group, inner, ownership, mine, other) = try Self.member()
        let context = try Self.context()
        let stream = Self.messages(1...4).map(\.message)
        let follower = StreamFollower(stream: "events", consumer: group, context: context) { after in
            StreamPage(messages: stream.filter { ($0.envelope.sequence ?? 0) > after }, head: 4)
        }
        await follower.catchUp()
        let otherStream = StreamName.partition("events", other)
        #expect(inner.applied.value[StreamName.partition("events", mine)] == [2, 4])
        #expect(follower.status.position == 4)

        // The other member applied its partition up to 1 and stopped; this one gains it.
        inner.positions.withLock { $0[otherStream] = 1 }
        _ = ownership.update([
            PartitionLease(partition: mine, owner: "a", epoch: 1),
            PartitionLease(partition: other, owner: "a", epoch: 2),
        ])
        ownership.finishLoading([other])
        await follower.catchUp()
        #expect(inner.applied.value[otherStream] == [3], "message 3 applied for the gained partition, once")
        #expect(inner.applied.value[StreamName.partition("events", mine)] == [2, 4], "nothing of its own twice")
        #expect(follower.status.position == 4)
    }
}
