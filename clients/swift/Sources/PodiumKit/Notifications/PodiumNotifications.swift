/// The notifications a ``PodiumSocket`` receives, as an `AsyncSequence` (GameKit's
/// `GKLocalPlayerListener`, as a sequence): live ones as they are pushed and, after a
/// reconnection, those the inbox kept meanwhile.
///
/// It ends when the socket is disconnected, and throws a ``PodiumError`` when the server ends the
/// socket for good: `session_revoked` (close code 4003), `player_banned` (4004),
/// `account_deleted` (4005), or a hello refused for another reason than an expired token. One
/// consumer at a time.
public struct PodiumNotifications: AsyncSequence, Sendable {
    public typealias Element = PodiumNotification

    let stream: AsyncThrowingStream<PodiumNotification, any Error>

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<PodiumNotification, any Error>.AsyncIterator

        public mutating func next() async throws -> PodiumNotification? { try await base.next() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: stream.makeAsyncIterator()) }
}
