import Foundation
import PodiumMessages

/// Requests a service sends to other services through the gateway, and their pending replies.
final class ServiceAsker: Sendable {
    private let link: ServiceLink
    private let clock: any PodiumClock
    private let waiting = Locked([String: CheckedContinuation<RawEnvelope, Never>]())
    /// Set at shutdown: later asks fail at once instead of waiting for a gateway link that is gone.
    private let closing = Locked<ErrorReply?>(nil)

    init(link: ServiceLink, clock: any PodiumClock) {
        self.link = link
        self.clock = clock
    }

    func ask(_ type: MessageType, payload: JSONValue, gameId: String?, playerId: String?, timeout: Duration) async throws -> RawEnvelope {
        let id = UUID().uuidString.lowercased()
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
            Task {
                do {
                    try await self.link.send(request)
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
        RawEnvelope(type: .error, correlationId: id, timestamp: time, payload: (try? WireCodec.jsonValue(error)) ?? .null)
    }
}
