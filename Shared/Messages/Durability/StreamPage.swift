/// Asks for the messages of a durable stream after a position (`events.read`, `<service>.outbox.read`).
public struct StreamRead: Codable, Sendable, Equatable {
    /// Return messages with a sequence greater than this.
    public var after: UInt64
    /// At most this many (1 to ``maximumLimit``; default 500).
    public var limit: Int?

    /// Most messages one page returns.
    public static let maximumLimit = 1000

    public init(after: UInt64, limit: Int? = nil) {
        self.after = after
        self.limit = limit
    }

    /// The page size asked for, checked.
    public func checkedLimit() throws(ErrorReply) -> Int {
        let limit = self.limit ?? 500
        guard (1...Self.maximumLimit).contains(limit) else {
            throw ErrorReply(
                code: .invalidField, message: "limit must be 1-\(Self.maximumLimit)", field: "payload.limit")
        }
        return limit
    }
}

/// One message of a durable stream, exactly as it was (or would have been) published.
public struct StreamMessage: Codable, Sendable, Equatable {
    /// The bus topic.
    public var topic: String
    /// The envelope, with its stream's publisher id and sequence.
    public var envelope: RawEnvelope

    public init(topic: String, envelope: RawEnvelope) {
        self.topic = topic
        self.envelope = envelope
    }
}

/// A page of a durable stream, oldest first, and the stream's newest sequence.
public struct StreamPage: Codable, Sendable, Equatable {
    public var messages: [StreamMessage]
    /// The last sequence the stream holds (0 when empty).
    public var head: UInt64
    /// The oldest sequence the stream still holds, present once retention has pruned older ones:
    /// a reader whose position is below `first - 1` has lost messages (docs/PROTOCOL.md 15.8).
    public var first: UInt64?

    public init(messages: [StreamMessage], head: UInt64, first: UInt64? = nil) {
        self.messages = messages
        self.head = head
        self.first = first
    }
}

/// Where a follower stands in one stream (in service health).
public struct StreamStatus: Codable, Sendable, Equatable {
    /// The last sequence applied.
    public var position: UInt64
    /// The stream's last sequence, as last seen.
    public var head: UInt64
    /// Messages applied since the service started.
    public var applied: UInt64
    /// Live messages skipped because they were already applied.
    public var duplicatesSkipped: UInt64
    /// Messages read back from the stream to fill gaps.
    public var refetched: UInt64
    /// Messages pruned from the stream before this service read them (recovered from the state); absent when none.
    public var lost: UInt64?
    /// In a consumer group (a partitioned service): the last sequence applied for each partition
    /// this instance serves (keys are partition numbers); absent otherwise.
    public var partitions: [String: UInt64]?

    public init(
        position: UInt64, head: UInt64, applied: UInt64, duplicatesSkipped: UInt64, refetched: UInt64,
        lost: UInt64? = nil
    ) {
        self.lost = lost
        self.position = position
        self.head = head
        self.applied = applied
        self.duplicatesSkipped = duplicatesSkipped
        self.refetched = refetched
    }
}
