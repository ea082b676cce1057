import Foundation
import Logging
import PodiumRuntime
import ZeroMQ

/// The bus hub the services meet at: XSUB (`PODIUM_BUS_PUBLISH`, publishers connect) ⇄ XPUB
/// (`PODIUM_BUS_SUBSCRIBE`, subscribers connect), with CURVE's ZAP handler and monitors when the
/// bus is secured, and the gateway's own publisher on it. Inproc endpoints let the gateway itself
/// publish and subscribe (inproc connections take no part in CURVE).
final class BusHub: Sendable {
    /// The ZeroMQ context every gateway socket lives in.
    let context: ZMQContext
    let proxy: ZMQProxy
    /// CURVE on the bus: the ZAP handler and the bus sockets' monitors; nil on a plain bus.
    let busGuard: BusGuard?
    /// The gateway's own publisher (bus ticks, logged events).
    let publisher: BusPublisher
    /// Where publishers and subscribers connect (the bound endpoints).
    let publishEndpoint: String
    let subscribeEndpoint: String
    /// Where the gateway's own subscribers connect.
    let inprocSubscribeEndpoint: String

    /// Binds the hub; with CURVE on the bus, the ZAP handler is bound before any server socket.
    init(settings: RuntimeSettings, clock: any PodiumClock, logger: Logger) throws {
        let context = try ZMQContext()
        self.context = context
        let busGuard = try settings.busSecurity.map {
            try BusGuard(security: $0, context: context, clock: clock, logger: logger)
        }
        self.busGuard = busGuard
        let hubID = UUID().uuidString
        let input = try context.makeSocket(.extendedSubscriber)
        let output = try context.makeSocket(.extendedPublisher)
        try output.set(.sendHighWaterMark(100_000))
        try input.set(.receiveHighWaterMark(100_000))
        for option in settings.busSecurity?.hubOptions ?? [] {
            try input.set(option)
            try output.set(option)
        }
        if let busGuard {
            try input.monitor(busGuard.monitorEndpoints[0])
            try output.monitor(busGuard.monitorEndpoints[1])
        }
        try input.bind(settings.busPublishEndpoint)
        publishEndpoint = try input.lastEndpoint()
        try input.bind("inproc://podium.bus.in.\(hubID)")
        try output.bind(settings.busSubscribeEndpoint)
        subscribeEndpoint = try output.lastEndpoint()
        try output.bind("inproc://podium.bus.out.\(hubID)")
        inprocSubscribeEndpoint = "inproc://podium.bus.out.\(hubID)"
        proxy = try ZMQProxy(context: context, name: "bus", frontend: input, backend: output)
        publisher = try BusPublisher(
            context: context, endpoint: "inproc://podium.bus.in.\(hubID)", publisherID: settings.instanceID,
            clock: clock)
    }

    /// Relays until ``stop()``.
    func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.publisher.watchSubscriptions() }
            if let busGuard { group.addTask { await busGuard.run() } }
            await proxy.waitUntilFinished()
            await busGuard?.close()
            group.cancelAll()  // the publisher's subscription watch
        }
    }

    /// Closes the gateway's publisher and stops the hub.
    func stop() async {
        await publisher.close()
        await proxy.stop()
    }
}
