import CZeroMQ

/// The ZeroMQ socket patterns Podium uses.
public enum SocketType: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case pair, publisher, subscriber, extendedPublisher, extendedSubscriber
    case router, dealer, push, pull, request, reply

    var rawValue: Int32 {
        switch self {
        case .pair: ZMQ_PAIR
        case .publisher: ZMQ_PUB
        case .subscriber: ZMQ_SUB
        case .extendedPublisher: ZMQ_XPUB
        case .extendedSubscriber: ZMQ_XSUB
        case .router: ZMQ_ROUTER
        case .dealer: ZMQ_DEALER
        case .push: ZMQ_PUSH
        case .pull: ZMQ_PULL
        case .request: ZMQ_REQ
        case .reply: ZMQ_REP
        }
    }

    /// Whether messages can arrive on a socket of this type (PUB and PUSH only send).
    public var canReceive: Bool {
        switch self {
        case .publisher, .push: false
        default: true
        }
    }

    /// Whether messages can be sent on a socket of this type (SUB and PULL only receive).
    public var canSend: Bool {
        switch self {
        case .subscriber, .pull: false
        default: true
        }
    }

    public var description: String {
        switch self {
        case .pair: "PAIR"
        case .publisher: "PUB"
        case .subscriber: "SUB"
        case .extendedPublisher: "XPUB"
        case .extendedSubscriber: "XSUB"
        case .router: "ROUTER"
        case .dealer: "DEALER"
        case .push: "PUSH"
        case .pull: "PULL"
        case .request: "REQ"
        case .reply: "REP"
        }
    }
}
