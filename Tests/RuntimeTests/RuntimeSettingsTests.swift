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
        for (key, value) in [("PODIUM_LOG_LEVEL", "loud"), ("PODIUM_HEARTBEAT_MS", "5"), ("PODIUM_HEARTBEAT_MS", "999999")] {
            #expect {
                _ = try RuntimeSettings(service: "auth", reader: Self.reader([key: value]))
            } throws: { error in
                (error as? ConfigurationProblem)?.description.contains(key) == true
            }
        }
    }
}
