import Foundation

/// One authentication request from libzmq (ZAP, ZeroMQ RFC 27): a peer finished the security
/// handshake on a server socket of this context and waits to be admitted.
public struct ZAPRequest: Sendable, Equatable {
    /// The server socket's ``SocketOption/zapDomain(_:)``; empty when it has none.
    public var domain: String
    /// The peer's address (an IP address for TCP).
    public var address: String
    /// `NULL`, `PLAIN` or `CURVE`.
    public var mechanism: String
    /// The mechanism's credentials: for CURVE the client's 32-byte long-term public key.
    public var credentials: [Data]
    /// The request's id, echoed in the reply.
    var requestID: Data

    /// The client's CURVE public key; nil for other mechanisms.
    public var curveKey: CurveKey? {
        guard mechanism == "CURVE", let key = credentials.first else { return nil }
        return CurveKey(bytes: [UInt8](key))
    }

    /// A request as libzmq would send it, for tests of a policy.
    public static func testing(domain: String, mechanism: String, key: CurveKey?, address: String = "127.0.0.1")
        -> ZAPRequest
    {
        ZAPRequest(
            domain: domain, address: address, mechanism: mechanism, credentials: key.map { [Data($0.bytes)] } ?? [],
            requestID: Data("1".utf8))
    }

    /// Parses the frames a ROUTER receives from libzmq's ZAP client: routing id, empty delimiter,
    /// version "1.0", request id, domain, address, identity, mechanism, credentials…
    /// Returns the reply envelope (routing id and delimiter) with the request; nil for anything else.
    static func parse(_ frames: [Data]) -> (envelope: [Data], request: ZAPRequest)? {
        guard frames.count >= 8, frames[1].isEmpty, frames[2] == Data("1.0".utf8) else { return nil }
        return (
            Array(frames[0...1]),
            ZAPRequest(
                domain: String(decoding: frames[4], as: UTF8.self), address: String(decoding: frames[5], as: UTF8.self),
                mechanism: String(decoding: frames[7], as: UTF8.self), credentials: Array(frames[8...]),
                requestID: frames[3])
        )
    }
}

/// What a ``ZAPHandler`` answers a ``ZAPRequest``.
public enum ZAPVerdict: Sendable, Equatable {
    /// Admitted; the user id is attached to the connection's messages as metadata.
    case allow(userID: String)
    /// Refused (status 400): the handshake fails and the peer's messages never reach the socket.
    case deny(reason: String)

    /// The reply frames for a request (RFC 27: version, request id, status code, status text,
    /// user id, metadata).
    func frames(for request: ZAPRequest) -> [Data] {
        switch self {
        case .allow(let userID):
            [Data("1.0".utf8), request.requestID, Data("200".utf8), Data("OK".utf8), Data(userID.utf8), Data()]
        case .deny(let reason):
            [Data("1.0".utf8), request.requestID, Data("400".utf8), Data(reason.prefix(200).utf8), Data(), Data()]
        }
    }
}

/// The ZAP handler of one ``ZMQContext``: libzmq asks it about every CURVE handshake on a
/// server socket of the context (and about NULL handshakes on sockets with a ZAP domain), and
/// admits only the peers `decide` allows.
///
/// A context has at most one: it binds `inproc://zeromq.zap.01`. Create it before the server
/// sockets accept connections, so that no handshake is decided without it (libzmq admits every
/// CURVE client that knows the server's key when no handler is bound).
public final class ZAPHandler: Sendable {
    /// The endpoint libzmq sends ZAP requests to.
    public static let endpoint = "inproc://zeromq.zap.01"

    private let socket: AsyncSocket

    public init(context: ZMQContext) throws {
        socket = try AsyncSocket(
            context: context, type: .router, name: "zap", options: [.lingerMilliseconds(0)], bind: [Self.endpoint])
    }

    /// Answers requests until ``close()``. `decide` runs once per handshake; keep it quick.
    public func run(_ decide: @Sendable (ZAPRequest) -> ZAPVerdict) async {
        while let frames = try? await socket.receive() {
            guard let (envelope, request) = ZAPRequest.parse(frames) else { continue }
            try? await socket.send(envelope + decide(request).frames(for: request))
        }
    }

    public func close() async {
        await socket.close()
    }
}
