import Foundation
import Testing
import ZeroMQ

@Suite struct ExperimentTests {
    @Test func proxyStopAfterForwardingError() async throws {
        let context = try ZMQContext()
        let frontEndpoint = uniqueInproc("exp-front")
        let frontend = try context.makeSocket(.pull)
        try frontend.bind(frontEndpoint)
        let backend = try context.makeSocket(.router)
        let backEndpoint = uniqueInproc("exp-back")
        try backend.set(.routerMandatory(true))
        try backend.bind(backEndpoint)
        let proxy = try ZMQProxy(context: context, name: "exp", frontend: frontend, backend: backend)
        let push = try context.makeSocket(.push)
        defer { push.close() }
        try push.connect(frontEndpoint)
        try send(push, [bytes("unknown-peer"), bytes("x")], "msg")
        try await Task.sleep(for: .milliseconds(500))
        let dealer = try context.makeSocket(.dealer)
        defer { dealer.close() }
        try dealer.set(.routingID(bytes("peer")))
        try dealer.connect(backEndpoint)
        try await Task.sleep(for: .milliseconds(200))
        _ = try push.send([bytes("peer"), bytes("y")], wait: false)
        try await Task.sleep(for: .seconds(3))
        let r = try ZMQSocket.poll([(dealer, .readable)], timeoutMilliseconds: 2000)
        print("EXPERIMENT dealer readable after error: \(r)")
        print("EXPERIMENT calling stop")
        let t = Thread { }
        _ = t
        try await withTimeout("stop", seconds: 5) { await proxy.stop() }
        print("EXPERIMENT stop returned")
    }
}
