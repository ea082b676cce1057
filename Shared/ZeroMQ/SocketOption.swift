import CZeroMQ
import Foundation

/// A socket option Podium sets. Durations are whole milliseconds, as libzmq takes them.
public enum SocketOption: Sendable, Hashable {
    /// Messages queued for sending per peer before the socket blocks or drops (ZMQ_SNDHWM).
    case sendHighWaterMark(Int)
    /// Messages queued on receipt per peer (ZMQ_RCVHWM).
    case receiveHighWaterMark(Int)
    /// How long unsent messages are kept after close, in ms; -1 forever, 0 discard (ZMQ_LINGER).
    case lingerMilliseconds(Int)
    /// Largest inbound frame a peer may send; larger ones disconnect the peer (ZMQ_MAXMSGSIZE).
    case maxMessageSize(Int64)
    /// Interval between ZMTP heartbeat pings, ms (ZMQ_HEARTBEAT_IVL).
    case heartbeatIntervalMilliseconds(Int)
    /// Time to wait for a pong before the connection is closed, ms (ZMQ_HEARTBEAT_TIMEOUT).
    case heartbeatTimeoutMilliseconds(Int)
    /// Time-to-live the peer should apply to this side's silence, ms (ZMQ_HEARTBEAT_TTL).
    case heartbeatTTLMilliseconds(Int)
    /// The identity a ROUTER peer sees for this socket (ZMQ_ROUTING_ID).
    case routingID(Data)
    /// Adds a topic prefix filter on SUB, or accepts a subscription on a manual XPUB (ZMQ_SUBSCRIBE).
    case subscribe(Data)
    /// Removes a topic prefix filter (ZMQ_UNSUBSCRIBE).
    case unsubscribe(Data)
    /// ROUTER fails with EHOSTUNREACH instead of dropping messages for unknown peers (ZMQ_ROUTER_MANDATORY).
    case routerMandatory(Bool)
    /// A reconnecting peer with a known routing id takes over the old connection (ZMQ_ROUTER_HANDOVER).
    case routerHandover(Bool)
    /// XPUB passes every subscription message up, including duplicates (ZMQ_XPUB_VERBOSE).
    case publisherVerbose(Bool)
    /// XPUB applies subscriptions only when the owner accepts them (ZMQ_XPUB_MANUAL).
    case publisherManual(Bool)
    /// Queue messages only to completed connections (ZMQ_IMMEDIATE).
    case immediate(Bool)
    /// Initial reconnect interval, ms (ZMQ_RECONNECT_IVL).
    case reconnectIntervalMilliseconds(Int)
    /// Upper bound of the reconnect back-off, ms (ZMQ_RECONNECT_IVL_MAX).
    case reconnectIntervalMaxMilliseconds(Int)
    /// Makes the socket a CURVE server: peers must handshake with its public key (ZMQ_CURVE_SERVER).
    /// Set it, and the secret key, before binding.
    case curveServer(Bool)
    /// This side's long-term public key (ZMQ_CURVE_PUBLICKEY).
    case curvePublicKey(CurveKey)
    /// This side's long-term secret key (ZMQ_CURVE_SECRETKEY).
    case curveSecretKey(CurveKey)
    /// The server's public key, which makes the socket a CURVE client (ZMQ_CURVE_SERVERKEY).
    /// Set it, and this side's key pair, before connecting.
    case curveServerKey(CurveKey)
    /// The ZAP domain a server socket's connections are authenticated in (ZMQ_ZAP_DOMAIN): the
    /// ``ZAPHandler`` of the socket's context sees it with every handshake. Set it before binding.
    case zapDomain(String)

    func apply(to handle: UnsafeMutableRawPointer) throws {
        switch self {
        case .sendHighWaterMark(let v): try setInt(handle, ZMQ_SNDHWM, v, "ZMQ_SNDHWM")
        case .receiveHighWaterMark(let v): try setInt(handle, ZMQ_RCVHWM, v, "ZMQ_RCVHWM")
        case .lingerMilliseconds(let v): try setInt(handle, ZMQ_LINGER, v, "ZMQ_LINGER")
        case .maxMessageSize(let v):
            var value = v
            try check(zmq_setsockopt(handle, ZMQ_MAXMSGSIZE, &value, MemoryLayout<Int64>.size), "ZMQ_MAXMSGSIZE")
        case .heartbeatIntervalMilliseconds(let v): try setInt(handle, ZMQ_HEARTBEAT_IVL, v, "ZMQ_HEARTBEAT_IVL")
        case .heartbeatTimeoutMilliseconds(let v): try setInt(handle, ZMQ_HEARTBEAT_TIMEOUT, v, "ZMQ_HEARTBEAT_TIMEOUT")
        case .heartbeatTTLMilliseconds(let v): try setInt(handle, ZMQ_HEARTBEAT_TTL, v, "ZMQ_HEARTBEAT_TTL")
        case .routingID(let id): try setBytes(handle, ZMQ_ROUTING_ID, id, "ZMQ_ROUTING_ID")
        case .subscribe(let topic): try setBytes(handle, ZMQ_SUBSCRIBE, topic, "ZMQ_SUBSCRIBE")
        case .unsubscribe(let topic): try setBytes(handle, ZMQ_UNSUBSCRIBE, topic, "ZMQ_UNSUBSCRIBE")
        case .routerMandatory(let on): try setInt(handle, ZMQ_ROUTER_MANDATORY, on ? 1 : 0, "ZMQ_ROUTER_MANDATORY")
        case .routerHandover(let on): try setInt(handle, ZMQ_ROUTER_HANDOVER, on ? 1 : 0, "ZMQ_ROUTER_HANDOVER")
        case .publisherVerbose(let on): try setInt(handle, ZMQ_XPUB_VERBOSE, on ? 1 : 0, "ZMQ_XPUB_VERBOSE")
        case .publisherManual(let on): try setInt(handle, ZMQ_XPUB_MANUAL, on ? 1 : 0, "ZMQ_XPUB_MANUAL")
        case .immediate(let on): try setInt(handle, ZMQ_IMMEDIATE, on ? 1 : 0, "ZMQ_IMMEDIATE")
        case .reconnectIntervalMilliseconds(let v): try setInt(handle, ZMQ_RECONNECT_IVL, v, "ZMQ_RECONNECT_IVL")
        case .reconnectIntervalMaxMilliseconds(let v):
            try setInt(handle, ZMQ_RECONNECT_IVL_MAX, v, "ZMQ_RECONNECT_IVL_MAX")
        case .curveServer(let on): try setInt(handle, ZMQ_CURVE_SERVER, on ? 1 : 0, "ZMQ_CURVE_SERVER")
        case .curvePublicKey(let key): try setBytes(handle, ZMQ_CURVE_PUBLICKEY, Data(key.bytes), "ZMQ_CURVE_PUBLICKEY")
        case .curveSecretKey(let key): try setBytes(handle, ZMQ_CURVE_SECRETKEY, Data(key.bytes), "ZMQ_CURVE_SECRETKEY")
        case .curveServerKey(let key): try setBytes(handle, ZMQ_CURVE_SERVERKEY, Data(key.bytes), "ZMQ_CURVE_SERVERKEY")
        case .zapDomain(let domain): try setBytes(handle, ZMQ_ZAP_DOMAIN, Data(domain.utf8), "ZMQ_ZAP_DOMAIN")
        }
    }
}

/// Integer-valued options that can be read back.
public enum IntegerSocketOption: Sendable, Hashable {
    case sendHighWaterMark, receiveHighWaterMark, lingerMilliseconds, heartbeatIntervalMilliseconds
    case heartbeatTimeoutMilliseconds, reconnectIntervalMilliseconds

    var name: Int32 {
        switch self {
        case .sendHighWaterMark: ZMQ_SNDHWM
        case .receiveHighWaterMark: ZMQ_RCVHWM
        case .lingerMilliseconds: ZMQ_LINGER
        case .heartbeatIntervalMilliseconds: ZMQ_HEARTBEAT_IVL
        case .heartbeatTimeoutMilliseconds: ZMQ_HEARTBEAT_TIMEOUT
        case .reconnectIntervalMilliseconds: ZMQ_RECONNECT_IVL
        }
    }
}

private func check(_ rc: Int32, _ option: String) throws {
    if rc != 0 { throw ZMQError.last("zmq_setsockopt", option) }
}

private func setInt(_ handle: UnsafeMutableRawPointer, _ name: Int32, _ value: Int, _ label: String) throws {
    guard let narrow = Int32(exactly: value) else { throw ZMQError.invalid("zmq_setsockopt", "\(label) out of range") }
    var v = narrow
    try check(zmq_setsockopt(handle, name, &v, MemoryLayout<Int32>.size), label)
}

private func setBytes(_ handle: UnsafeMutableRawPointer, _ name: Int32, _ value: Data, _ label: String) throws {
    let rc = value.withUnsafeBytes { zmq_setsockopt(handle, name, $0.baseAddress, $0.count) }
    try check(rc, label)
}
