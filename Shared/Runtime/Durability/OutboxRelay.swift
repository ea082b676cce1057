import Foundation
import Logging
import PodiumMessages

/// Publishes a service's outbox on the bus, in sequence order, as soon as a change commits
/// (``wake()``) and at least twice a second. Starts from the outbox's end: whoever missed older
/// messages reads them with `<service>.outbox.read`.
public final class OutboxRelay: Sendable {
    public let stream: String
    let reader: any OutboxReader
    private let signal: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    public init(stream: String, reader: any OutboxReader) {
        self.stream = stream
        self.reader = reader
        (signal, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Says that new messages were committed.
    public func wake() { continuation.yield() }

    /// A page of the outbox (for `<service>.outbox.read`).
    func page(after: UInt64, limit: Int) async throws -> StreamPage {
        try await reader.outboxPage(stream: stream, after: after, limit: limit)
    }

    /// Relays until cancelled; while `isActive` is false (a standby instance) it follows the
    /// outbox without publishing, so that the owner's messages go on the bus once.
    func run(publisher: BusPublisher, logger: Logger, isActive: @escaping @Sendable () -> Bool = { true }) async {
        var relayed: UInt64
        do {
            relayed = try await reader.outboxHead()
        } catch {
            logger.error("outbox unreadable; relaying from the start", metadata: ["error": "\(error)"])
            relayed = 0
        }
        let ticker = Task { [continuation] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(500))
                continuation.yield()
            }
        }
        defer { ticker.cancel() }
        for await _ in signal {
            if Task.isCancelled { return }
            while true {
                guard let page = try? await self.page(after: relayed, limit: 1000), !page.messages.isEmpty else {
                    break
                }
                // A page goes to the bus in one hand-over, in order.
                var batch: [(topic: String, body: Data)] = []
                for message in page.messages {
                    relayed = message.envelope.sequence ?? relayed
                    guard isActive() else { continue }
                    do {
                        batch.append((message.topic, try WireCodec.encode(message.envelope)))
                    } catch {
                        logger.warning("outbox message not relayed (readers catch up)", metadata: ["error": "\(error)"])
                    }
                }
                if !batch.isEmpty, await publisher.publishRaw(batch) > 0 {
                    logger.warning("outbox messages not relayed (readers catch up)")
                }
            }
        }
    }

    /// Ends ``run(publisher:logger:)``.
    func finish() { continuation.finish() }
}
