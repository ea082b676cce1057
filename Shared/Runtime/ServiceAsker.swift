import Foundation
import PodiumMessages

/// Requests a service sends to other services through the gateway, and their pending replies.
///
/// With several gateways, each request goes to the next gateway whose link is connected (any
/// gateway routes it the same way); the reply comes back on that link.
final class ServiceAsker: Sendable {
    private let links: [ServiceLink]
    private let turn = Locked(0)
    private let clock: any PodiumClock
    private let waiting = Locked([String: CheckedContinuation<RawEnvelope, Never>]())
    /// Set at shutdown: later asks fail at once instead of waiting for a gateway link that is gone.
    private let closing = Locked<ErrorReply?>(nil)

    init(links: [ServiceLink], clock: any PodiumClock) {
        precondition(!links.isEmpty, "a service has at least one gateway link")
        self.links = links
        self.clock = clock
    }

    /// The link for the next request: the connected ones in turn; all in turn when none is
    /// connected yet (the request then waits for a connection, up to its timeout).
    private func nextLink() -> ServiceLink {
        let connected = links.filter(\.isConnected)
        let pool = connected.isEmpty ? links : connected
        let index = turn.withLock { turn in
            defer { turn &+= 1 }
            return turn
        }
        return pool[index % pool.count]
    }

    func ask(_ type: MessageType, payload: JSONValue, gameId: String?, playerId: String?, timeout: Duration)
        async throws -> RawEnvelope
    {
        let id = MessageID.make()
        let request = RawEnvelope(
            type: type, id: id, gameId: gameId, playerId: playerId, timestamp: clock.nowMilliseconds, payload: payload)
        let clock = self.clock
        let timer = Task { [weak self] in
            guard (try? await clock.sleep(for: timeout)) != nil else { return }
            self?.fail(id, ErrorReply(code: .serviceTimeout, message: "\(type.serviceName) did not answer in time"))
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            if let refusal = closing.value {
                continuation.resume(returning: Self.errorEnvelope(refusal, id: id, at: clock.nowMilliseconds))
                return
            }
            waiting.withLock { $0[id] = continuation }
            let link = nextLink()
            Task {
                do {
                    try await link.send(request)
                } catch {
                    self.fail(id, ErrorReply(code: .serviceUnavailable, message: "the gateway link is closed"))
                }
            }
        }
    }

    /// Delivers a reply; returns false if nobody was waiting for it (late, or not ours).
    @discardableResult
    func complete(_ id: String, with reply: RawEnvelope) -> Bool {
        guard let continuation = waiting.withLock({ $0.removeValue(forKey: id) }) else { return false }
        continuation.resume(returning: reply)
        return true
    }

    /// Answers every waiting request with an error (at shutdown).
    func failAll(_ error: ErrorReply) {
        closing.withLock { $0 = error }
        let all = waiting.withLock { waiting in
            defer { waiting.removeAll() }
            return waiting
        }
        let now = clock.nowMilliseconds
        for (id, continuation) in all { continuation.resume(returning: Self.errorEnvelope(error, id: id, at: now)) }
    }

    private func fail(_ id: String, _ error: ErrorReply) {
        complete(id, with: Self.errorEnvelope(error, id: id, at: clock.nowMilliseconds))
    }

    private static func errorEnvelope(_ error: ErrorReply, id: String, at time: Int64) -> RawEnvelope {
        RawEnvelope(
            type: .error, correlationId: id, timestamp: time, payload: (try? WireCodec.jsonValue(error)) ?? .null)
    }
}
