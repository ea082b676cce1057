import Foundation
import PodiumClient
import PodiumMessages
import ZeroMQ

/// The command's connection to the gateway's request endpoint: the typed ``BlockingPodiumClient``
/// over a blocking DEALER. Used from the command's own thread only (the CLI is a plain
/// synchronous program, so blocking here blocks nothing else).
final class GatewayConnection {
    let transport: BlockingDealerTransport
    let client: BlockingPodiumClient<BlockingDealerTransport>
    let gateway: GatewayOptions

    var context: ZMQContext { transport.context }
    /// CURVE client options for every socket of this run (empty without a server key): one key
    /// pair made for the run, so nothing secret is stored on the client's side.
    var curveOptions: [SocketOption] { transport.curveOptions }

    init(_ gateway: GatewayOptions) throws {
        self.gateway = gateway
        transport = try BlockingDealerTransport(
            endpoint: gateway.endpoint, curveServerKey: try gateway.curveServerKey(),
            options: [.lingerMilliseconds(500), .sendHighWaterMark(100_000), .receiveHighWaterMark(100_000)])
        // Request ids unique per run: ids of state-changing requests are idempotency keys, so a
        // later run must never repeat an earlier run's ids (process ids are reused).
        client = BlockingPodiumClient(transport: transport, idPrefix: "cli-", timeout: gateway.replyTimeout)
    }
}

/// Reading a typed reply the way every command reports it.
extension PodiumReply {
    /// The typed reply; an error reply is a ``ReplyFailure``, any other reply a ``CommandFailure``.
    func decoded() throws -> Value {
        guard isSuccess else { throw ReplyFailure(received) }
        guard let value = try? value() else {
            throw CommandFailure("the reply to \(request.type) is not a \(Value.self): \(text)")
        }
        return value
    }
}
