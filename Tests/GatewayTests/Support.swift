import Foundation
import PodiumClient
import PodiumMessages
import PodiumTesting
import Testing

extension RawEnvelope {
    /// The error payload of an `error` reply.
    func errorReply() throws -> ErrorReply {
        #expect(type == .error, "expected an error reply, got \(type)")
        return try decodePayload(as: ErrorReply.self)
    }
}

extension PodiumReply {
    /// The error payload of an `error` reply.
    func errorReply() throws -> ErrorReply {
        #expect(type == .error, "expected an error reply, got \(type)")
        return try #require(error?.errorReply)
    }
}

/// Polls `condition` until it holds or `limit` passes; returns whether it held.
func eventually(
    within limit: Duration = .seconds(10), _ condition: @Sendable () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(25))
    }
    return try await condition()
}

/// A valid event.
func event(_ name: String = "cactus.hit", value: Int64? = 1) -> GameEvent {
    GameEvent(name: name, value: value)
}
