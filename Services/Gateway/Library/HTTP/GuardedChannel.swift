import HummingbirdCore
import Logging
import NIOCore

/// A server child channel with a ``RequestHeadGuard`` first in every connection's pipeline, ahead
/// of whatever `inner` sets up (HTTP/1.1 with the WebSocket upgrade).
struct GuardedChannel<Inner: ServerChildChannel>: ServerChildChannel {
    let inner: Inner
    let rules: RequestHeadRules

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Inner.Value> {
        do {
            try channel.pipeline.syncOperations.addHandler(RequestHeadGuard(rules: rules), position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return inner.setup(channel: channel, logger: logger)
    }

    func handle(value: Inner.Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}
