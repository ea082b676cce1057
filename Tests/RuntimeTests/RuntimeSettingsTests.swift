import Configuration
import Foundation
import PodiumRuntime
import Testing

@Suite("Runtime settings")
struct RuntimeSettingsTests {
    static func reader(_ environment: [String: String]) -> ConfigReader {
        ConfigReader(provider: EnvironmentVariablesProvider(environmentVariables: environment))
    }

    @Test("defaults apply when nothing is set")
    func defaults() throws {
        let settings = try RuntimeSettings(service: "auth", reader: Self.reader([:]))
        #expect(settings.dataDirectory.lastPathComponent == ".podium")
        #expect(settings.busPublishEndpoint == "tcp://127.0.0.1:5560")
        #expect(settings.busSubscribeEndpoint == "tcp://127.0.0.1:5561")
        #expect(settings.busServicesEndpoint == "tcp://127.0.0.1:5562")
        #expect(settings.heartbeatInterval == .seconds(1))
        #expect(settings.logLevel == .info)
        #expect(!settings.developmentMode)
        #expect(settings.instanceID.hasPrefix("auth-"))
    }

    @Test("environment variables override the defaults")
    func overrides() throws {
        let settings = try RuntimeSettings(
            service: "challenge",
            reader: Self.reader([
                "PODIUM_DATA": "/var/lib/podium", "PODIUM_INSTANCE_ID": "challenge-a",
                "PODIUM_BUS_PUBLISH": "tcp://gateway:5560", "PODIUM_BUS_SUBSCRIBE": "tcp://gateway:5561",
                "PODIUM_BUS_SERVICES": "tcp://gateway:5562", "PODIUM_HEARTBEAT_MS": "250",
                "PODIUM_LOG_LEVEL": "DEBUG", "PODIUM_DEVELOPMENT": "true",
            ]))
        #expect(settings.dataDirectory.path == "/var/lib/podium")
        #expect(settings.instanceID == "challenge-a")
        #expect(settings.busPublishEndpoint == "tcp://gateway:5560")
        #expect(settings.busSubscribeEndpoint == "tcp://gateway:5561")
        #expect(settings.busServicesEndpoint == "tcp://gateway:5562")
        #expect(settings.heartbeatInterval == .milliseconds(250))
        #expect(settings.logLevel == .debug)
        #expect(settings.developmentMode)
    }

    @Test("unusable values are refused with a message naming the variable")
    func refusals() {
        for (key, value) in [
            ("PODIUM_LOG_LEVEL", "loud"), ("PODIUM_HEARTBEAT_MS", "5"), ("PODIUM_HEARTBEAT_MS", "999999"),
        ] {
            #expect {
                _ = try RuntimeSettings(service: "auth", reader: Self.reader([key: value]))
            } throws: { error in
                (error as? ConfigurationProblem)?.description.contains(key) == true
            }
        }
    }

    @Test("a service takes one bus endpoint of each kind per gateway; the gateway binds one of each")
    func severalHubs() throws {
        let hubs = [
            "PODIUM_BUS_PUBLISH": "tcp://10.0.0.2:5560, tcp://10.0.0.3:5560",
            "PODIUM_BUS_SUBSCRIBE": "tcp://10.0.0.2:5561,tcp://10.0.0.3:5561",
            "PODIUM_BUS_SERVICES": "tcp://10.0.0.2:5562,tcp://10.0.0.3:5562",
        ]
        let settings = try RuntimeSettings(service: "leaderboard", reader: Self.reader(hubs))
        #expect(settings.busPublishEndpoints == ["tcp://10.0.0.2:5560", "tcp://10.0.0.3:5560"])
        #expect(settings.busSubscribeEndpoints == ["tcp://10.0.0.2:5561", "tcp://10.0.0.3:5561"])
        #expect(settings.busServicesEndpoints == ["tcp://10.0.0.2:5562", "tcp://10.0.0.3:5562"])
        #expect(
            try RuntimeSettings(service: "auth", reader: Self.reader([:])).busServicesEndpoints == [
                "tcp://127.0.0.1:5562"
            ])

        var uneven = hubs
        uneven["PODIUM_BUS_SERVICES"] = "tcp://10.0.0.2:5562"
        let error = #expect(throws: ConfigurationProblem.self) {
            try RuntimeSettings(service: "leaderboard", reader: Self.reader(uneven))
        }
        #expect(error?.description.contains("one of each per gateway") == true)
        let gateway = #expect(throws: ConfigurationProblem.self) {
            try RuntimeSettings(service: "gateway", reader: Self.reader(hubs))
        }
        #expect(gateway?.description.contains("the gateway binds one bus endpoint") == true)
        #expect(throws: ConfigurationProblem.self) {
            try RuntimeSettings(service: "auth", reader: Self.reader(["PODIUM_BUS_PUBLISH": " , "]))
        }
    }
}
