import Foundation
import PodiumMessages

/// Requests a service sends to other services through the gateway, and their pending replies.
final class ServiceAsker: Sendable {
    private let link: ServiceLink
    private let clock: any PodiumClock
    private let waiting = Locked([String: CheckedContinuation<RawEnvelope, Never>]())

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
        let all = waiting.withLock { waiting in
            defer { waiting.removeAll() }
            return Array(waiting.keys)
        }
        for id in all { fail(id, error) }
    }

    private func fail(_ id: String, _ error: ErrorReply) {
        complete(
            id,
            with: RawEnvelope(
                type: .error, correlationId: id, timestamp: clock.nowMilliseconds,
                payload: (try? WireCodec.jsonValue(error)) ?? .null))
    }
}
