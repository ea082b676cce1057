import Configuration
import Foundation
import PodiumRuntime
import Testing
import ZeroMQ

/// Reading CURVE on the bus from the environment, and the hub's verdict on each handshake.
@Suite("Bus security settings", .enabled(if: CurveKeyPair.isAvailable, "this libzmq has no CURVE"))
struct BusSecurityTests {
    static func settings(_ service: String, _ environment: [String: String]) throws -> RuntimeSettings {
        try RuntimeSettings(service: service, reader: RuntimeSettingsTests.reader(environment))
    }

    @Test("no keys: a plain bus")
    func plain() throws {
        #expect(try Self.settings("auth", [:]).busSecurity == nil)
        #expect(try Self.settings("gateway", [:]).busSecurity == nil)
    }

    @Test("a service with its key and the hub's key; the gateway with its key and the admitted keys")
    func configured() throws {
        let hub = try CurveKeyPair.generate()
        let member = try CurveKeyPair.generate()
        let other = try CurveKeyPair.generate()
        let service = try #require(
            try Self.settings(
                "leaderboard",
                ["PODIUM_BUS_SECRET_KEY": member.secretKey.z85, "PODIUM_BUS_SERVER_KEY": hub.publicKey.z85]
            ).busSecurity)
        #expect(service.keyPair == member && service.hubKey == hub.publicKey)
        #expect(service.memberOptions == member.clientOptions(server: hub.publicKey))

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bus-keys-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try
            "# the services of host b\n\n  leaderboard-1 \(member.publicKey.z85)  \nchallenge-1\t\(other.publicKey.z85)\n"
            .write(to: file, atomically: true, encoding: .utf8)
        let secretFile = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bus-secret-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: secretFile) }
        try (hub.secretKey.z85 + "\n").write(to: secretFile, atomically: true, encoding: .utf8)
        let gateway = try #require(
            try Self.settings(
                "gateway",
                ["PODIUM_BUS_SECRET_KEY_FILE": secretFile.path, "PODIUM_BUS_ALLOWED_KEYS_FILE": file.path]
            ).busSecurity)
        #expect(gateway.keyPair == hub)
        #expect(gateway.admitted == [member.publicKey: "leaderboard-1", other.publicKey: "challenge-1"])
        #expect(gateway.hubOptions.contains(.zapDomain(BusSecurity.zapDomain)))

        let inline = try #require(
            try Self.settings(
                "gateway",
                [
                    "PODIUM_BUS_SECRET_KEY": hub.secretKey.z85,
                    "PODIUM_BUS_ALLOWED_KEYS": "a=\(member.publicKey.z85),b=\(other.publicKey.z85)",
                ]
            ).busSecurity)
        #expect(inline.admitted == [member.publicKey: "a", other.publicKey: "b"])
    }

    @Test("half a configuration or a bad key refuses to start")
    func refused() throws {
        let hub = try CurveKeyPair.generate()
        let member = try CurveKeyPair.generate()
        let cases: [(String, [String: String], String)] = [
            ("auth", ["PODIUM_BUS_SECRET_KEY": member.secretKey.z85], "PODIUM_BUS_SERVER_KEY"),
            ("auth", ["PODIUM_BUS_SERVER_KEY": hub.publicKey.z85], "PODIUM_BUS_SECRET_KEY"),
            (
                "auth", ["PODIUM_BUS_SECRET_KEY": "not a key", "PODIUM_BUS_SERVER_KEY": hub.publicKey.z85],
                "40-character"
            ),
            (
                "auth", ["PODIUM_BUS_SECRET_KEY": member.secretKey.z85, "PODIUM_BUS_SERVER_KEY": "short"],
                "PODIUM_BUS_SERVER_KEY"
            ),
            ("gateway", ["PODIUM_BUS_SECRET_KEY": hub.secretKey.z85], "PODIUM_BUS_ALLOWED_KEYS"),
            ("gateway", ["PODIUM_BUS_ALLOWED_KEYS": "a=\(member.publicKey.z85)"], "PODIUM_BUS_SECRET_KEY"),
            (
                "gateway",
                ["PODIUM_BUS_SECRET_KEY": hub.secretKey.z85, "PODIUM_BUS_ALLOWED_KEYS": "a:\(member.publicKey.z85)"],
                "name and"
            ),
            (
                "gateway",
                [
                    "PODIUM_BUS_SECRET_KEY": hub.secretKey.z85,
                    "PODIUM_BUS_ALLOWED_KEYS": "a=\(member.publicKey.z85),b=\(member.publicKey.z85)",
                ],
                "same key"
            ),
            (
                "gateway",
                [
                    "PODIUM_BUS_SECRET_KEY_FILE": "/nonexistent/bus.key",
                    "PODIUM_BUS_ALLOWED_KEYS": "a=\(member.publicKey.z85)",
                ], "cannot read"
            ),
            (
                "gateway",
                [
                    "PODIUM_BUS_SECRET_KEY": hub.secretKey.z85, "PODIUM_BUS_SERVER_KEY": hub.publicKey.z85,
                    "PODIUM_BUS_ALLOWED_KEYS": "a=\(member.publicKey.z85)",
                ],
                "for services"
            ),
            (
                "auth",
                [
                    "PODIUM_BUS_SECRET_KEY": member.secretKey.z85, "PODIUM_BUS_SERVER_KEY": hub.publicKey.z85,
                    "PODIUM_BUS_ALLOWED_KEYS": "a=\(member.publicKey.z85)",
                ],
                "for the gateway"
            ),
        ]
        for (service, environment, mention) in cases {
            let error = #expect(throws: ConfigurationProblem.self, "\(service) \(environment.keys.sorted())") {
                try Self.settings(service, environment)
            }
            #expect(
                error?.description.contains(mention) == true, "\(error?.description ?? "-") should mention \(mention)")
            #expect(
                error.map {
                    !$0.description.contains(member.secretKey.z85) && !$0.description.contains(hub.secretKey.z85)
                } ?? true)
        }
    }

    @Test("the hub admits only its keys on the bus domain, and leaves other domains to their sockets")
    func verdicts() throws {
        let hub = try CurveKeyPair.generate()
        let member = try CurveKeyPair.generate()
        let security = BusSecurity(keyPair: hub, admitted: [member.publicKey: "leaderboard-1"])
        func request(_ domain: String, _ mechanism: String, _ key: CurveKey?) -> ZAPRequest {
            ZAPRequest.testing(domain: domain, mechanism: mechanism, key: key)
        }
        #expect(
            security.verdict(for: request(BusSecurity.zapDomain, "CURVE", member.publicKey))
                == .allow(userID: "leaderboard-1"))
        #expect(
            security.verdict(for: request(BusSecurity.zapDomain, "CURVE", try CurveKeyPair.generate().publicKey))
                == .deny(reason: "unknown key"))
        #expect(
            security.verdict(for: request(BusSecurity.zapDomain, "NULL", nil)) == .deny(reason: "the bus needs CURVE"))
        #expect(
            security.verdict(for: request("", "CURVE", try CurveKeyPair.generate().publicKey)) == .allow(userID: ""))
    }

    @Test("a bus endpoint leaves the machine unless it is loopback or inproc")
    func reach() {
        #expect(!RuntimeSettings.leavesMachine("tcp://127.0.0.1:5560"))
        #expect(!RuntimeSettings.leavesMachine("tcp://localhost:5560"))
        #expect(!RuntimeSettings.leavesMachine("inproc://bus"))
        #expect(RuntimeSettings.leavesMachine("tcp://10.0.0.2:5560"))
        #expect(RuntimeSettings.leavesMachine("tcp://gateway:5560"))
        #expect(RuntimeSettings.leavesMachine("tcp://*:5560"))
    }
}
