import Configuration
import Foundation
import PodiumMessages
import PodiumRuntime
import Testing
import ZeroMQ

@testable import Gateway

/// The request limits' pure parts: whole-message checks, in-flight counts per connection, settings.
@Suite("Request limits (pure)")
struct RequestLimitUnitTests {
    let id = Data([0, 0, 0, 1])

    @Test("a message with too many frames is refused even when the receiver kept only the first")
    func tooManyFrames() throws {
        let kept = [id, Data(), Data("{}".utf8)]
        let message = ZMQMessage(frames: kept, peerAddress: nil, frameCount: 10_000, byteCount: 10_000)
        guard case .failure(let rejection) = ClientFrames.parse(message, maxBytes: 1 << 20) else {
            Issue.record("accepted 10000 frames")
            return
        }
        #expect(rejection.error.code == .wrongFrameCount)
        #expect(rejection.error.message.contains("9999"))
        #expect(rejection.reply(Data("x".utf8)) == [id, Data(), Data("x".utf8)])
    }

    @Test("a message whose frames together exceed the limit is refused as too large")
    func wholeMessageTooLarge() throws {
        let body = Data(repeating: UInt8(ascii: "a"), count: 600)
        guard case .failure(let rejection) = ClientFrames.parse(ZMQMessage(frames: [id, body]), maxBytes: 500) else {
            Issue.record("accepted 604 bytes with a limit of 500")
            return
        }
        #expect(rejection.error.code == .messageTooLarge)
        #expect(rejection.reply(Data())?.first == id)
        #expect((try? ClientFrames.parse(ZMQMessage(frames: [id, body]), maxBytes: 604).get()) != nil)
    }

    @Test("requests in flight are counted per connection, and forgotten when answered or expired")
    func inFlightPerConnection() {
        var pending = PendingRequests()
        let ann = ClientConnection(key: .init(transport: .zeromq, id: Data([1])), peer: nil) { _ in }
        let bob = ClientConnection(key: .init(transport: .zeromq, id: Data([2])), peer: nil) { _ in }
        func entry(_ client: ClientConnection, _ id: String, deadline: Int64) -> PendingRequests.Entry {
            .init(origin: .client(client, requestID: id), service: "s", serviceRoutingID: Data(), deadline: deadline)
        }
        pending.add(entry(ann, "a1", deadline: 100), internalID: "i1")
        pending.add(entry(ann, "a2", deadline: 200), internalID: "i2")
        pending.add(entry(bob, "b1", deadline: 100), internalID: "i3")
        #expect(pending.inFlight(fromConnection: ann.key) == 2)
        #expect(pending.inFlight(fromConnection: bob.key) == 1)
        _ = pending.complete(internalID: "i1")
        #expect(pending.inFlight(fromConnection: ann.key) == 1)
        _ = pending.expire(now: 150)
        #expect(pending.inFlight(fromConnection: bob.key) == 0)
        #expect(pending.inFlight(fromConnection: ann.key) == 1)
        _ = pending.drain()
        #expect(pending.inFlight(fromConnection: ann.key) == 0)
    }

    static func settings(_ extra: [String: String]) throws -> GatewaySettings {
        try GatewaySettings(
            reader: ConfigReader(
                provider: EnvironmentVariablesProvider(
                    environmentVariables: ["PODIUM_DEVELOPMENT": "true"].merging(extra) { $1 })))
    }

    @Test("rate limits and the in-flight share come from the environment, with defaults")
    func limitSettings() throws {
        let defaults = try Self.settings([:])
        #expect(defaults.connectionRateLimit == GatewaySettings.defaultConnectionRateLimit)
        #expect(defaults.playerRateLimit == GatewaySettings.defaultPlayerRateLimit)
        #expect(defaults.maxInFlightPerConnection == 1000)
        #expect(defaults.curveKeyPair == nil)
        let tuned = try Self.settings([
            "PODIUM_RATE_CONNECTION_PER_SECOND": "50", "PODIUM_RATE_CONNECTION_BURST": "100",
            "PODIUM_RATE_PLAYER_PER_SECOND": "0.5", "PODIUM_RATE_PLAYER_BURST": "5",
            "PODIUM_MAX_IN_FLIGHT_PER_CONNECTION": "16",
        ])
        #expect(tuned.connectionRateLimit == RateLimit(perSecond: 50, burst: 100))
        #expect(tuned.playerRateLimit == RateLimit(perSecond: 0.5, burst: 5))
        #expect(tuned.maxInFlightPerConnection == 16)
        for (name, value) in [
            ("PODIUM_RATE_CONNECTION_PER_SECOND", "0"), ("PODIUM_RATE_PLAYER_PER_SECOND", "-3"),
            ("PODIUM_RATE_PLAYER_BURST", "0.5"), ("PODIUM_MAX_IN_FLIGHT_PER_CONNECTION", "0"),
        ] {
            #expect(throws: ConfigurationProblem.self, "\(name)=\(value)") { try Self.settings([name: value]) }
        }
    }

    @Test(
        "PODIUM_CURVE_SECRET_KEY: a Z85 secret key gives the pair; anything else is refused",
        .enabled(if: CurveKeyPair.isAvailable))
    func curveSettings() throws {
        let pair = try CurveKeyPair.generate()
        #expect(try Self.settings(["PODIUM_CURVE_SECRET_KEY": pair.secretKey.z85]).curveKeyPair == pair)
        #expect(try Self.settings(["PODIUM_CURVE_SECRET_KEY": ""]).curveKeyPair == nil)
        for bad in ["not-a-key", String(pair.secretKey.z85.dropLast()), String(repeating: "~", count: 40)] {
            #expect(throws: ConfigurationProblem.self, "\(bad)") { try Self.settings(["PODIUM_CURVE_SECRET_KEY": bad]) }
        }
    }
}
