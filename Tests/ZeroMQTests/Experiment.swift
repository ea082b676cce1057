import Foundation
import Testing
import ZeroMQ

@Suite struct ExperimentTests {
    @Test(arguments: [false, true], [0, 1000, 3000])
    func proxyStopAfterForwardingError(withDealer: Bool, pauseMs: Int) async throws {
        let context = try ZMQContext()
        let frontEndpoint = uniqueInproc("exp-front")
        let backEndpoint = uniqueInproc("exp-back")
        let frontend = try context.makeSocket(.pull)
        try frontend.bind(frontEndpoint)
        let backend = try context.makeSocket(.router)
        try backend.set(.routerMandatory(true))
        try backend.bind(backEndpoint)
        let proxy = try ZMQProxy(context: context, name: "exp", frontend: frontend, backend: backend)
        let push = try context.makeSocket(.push)
        defer { push.close() }
        try push.connect(frontEndpoint)
        try send(push, [bytes("unknown-peer"), bytes("x")], "msg")
        let dealer = try context.makeSocket(.dealer)
        defer { dealer.close() }
        if withDealer {
            try dealer.set(.routingID(bytes("peer")))
            try dealer.connect(backEndpoint)
            try await Task.sleep(for: .milliseconds(200))
            _ = try push.send([bytes("peer"), bytes("y")], wait: false)
        }
        try await Task.sleep(for: .milliseconds(pauseMs))
        try await withTimeout("stop after \(pauseMs) dealer \(withDealer)", seconds: 5) { await proxy.stop() }
    }
}
