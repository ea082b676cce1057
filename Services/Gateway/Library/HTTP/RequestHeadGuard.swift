import NIOCore

/// The first handler of every HTTP connection: it reads the raw bytes ahead of the HTTP decoder
/// and bounds what a client may do before its request head is complete, which Hummingbird leaves
/// unbounded while it waits to see whether a connection upgrades to a WebSocket (a head sent
/// halfway held its connection for good, an oversized one got no answer, and either held a
/// graceful shutdown):
///
/// - a head must complete within ``RequestHeadRules/headTimeout`` of its first byte, else `408`
///   and the connection closes; a connection that sends nothing at all is closed after
///   ``RequestHeadRules/silentTimeout`` (as a kept-alive one is after the idle timeout);
/// - a head of more than ``RequestHeadRules/maxHeadBytes`` or with more than
///   ``RequestHeadRules/maxFields`` fields is answered `431` and the connection closes;
/// - when a graceful shutdown starts, a connection between requests or in a head closes at once,
///   any other after ``RequestHeadRules/shutdownGrace`` at the latest.
///
/// Where the stream stands comes from ``RequestHeadScanner`` (a value type, tested without
/// sockets); the bytes go on to the decoder unchanged.
final class RequestHeadGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let rules: RequestHeadRules
    private var scanner: RequestHeadScanner
    private var headTimer: Scheduled<Void>?
    /// The head (by how many came before it) the head timer runs for.
    private var timedHead: Int?
    private var refused = false
    private var shuttingDown = false

    init(rules: RequestHeadRules = .init()) {
        self.rules = rules
        self.scanner = RequestHeadScanner(rules: rules)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        // Connecting and sending nothing holds a connection too: closed, without an answer.
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        headTimer = context.eventLoop.scheduleTask(in: rules.silentTimeout) {
            let (handler, context) = bound.value
            guard handler.scanner.headsCompleted == 0, handler.scanner.headBytes == 0 else { return }
            context.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        headTimer?.cancel()
    }

    func channelInactive(context: ChannelHandlerContext) {
        headTimer?.cancel()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        let buffer = unwrapInboundIn(data)
        if case .refuse(let refusal) = scanner.read(buffer.readableBytesView) {
            refuse(refusal, context: context)
            return
        }
        if !scanner.isAwaitingHead {
            headTimer?.cancel()
            timedHead = nil
        } else if scanner.headBytes > 0, timedHead != scanner.headsCompleted {
            // A later head began: its clock starts (between requests the idle timeout applies).
            startHeadTimer(context: context)
        }
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent, !shuttingDown {
            shuttingDown = true
            if scanner.isAwaitingHead {
                // No request accepted on it that is not answered: nothing to finish.
                context.close(promise: nil)
            } else {
                // A request, a body or a WebSocket: Hummingbird finishes it, within the grace.
                let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
                context.eventLoop.scheduleTask(in: rules.shutdownGrace) { bound.value.close(promise: nil) }
            }
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func startHeadTimer(context: ChannelHandlerContext) {
        headTimer?.cancel()
        let head = scanner.headsCompleted
        timedHead = head
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        headTimer = context.eventLoop.scheduleTask(in: rules.headTimeout) {
            let (handler, context) = bound.value
            guard handler.scanner.isAwaitingHead, handler.scanner.headsCompleted == head else { return }
            handler.refuse(.headTimeout, context: context)
        }
    }

    /// Answers the refusal as a problem and closes the connection.
    private func refuse(_ refusal: RequestHeadScanner.Refusal, context: ChannelHandlerContext) {
        guard !refused else { return }
        refused = true
        headTimer?.cancel()
        RequestLimits.countRefusal(refusal.limit)
        let buffer = context.channel.allocator.buffer(bytes: refusal.response(rules: rules))
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(buffer)).whenComplete { _ in bound.value.close(promise: nil) }
    }
}
