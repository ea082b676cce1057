import Configuration
import Foundation
import PodiumMessages
import PodiumRuntime
import PodiumTokens
import Testing

@testable import Gateway

@Suite("Gateway pure logic")
struct GatewayUnitTests {
    @Test("client frames: DEALER style, REQ style, and anything else refused")
    func framing() throws {
        let id = Data([0, 1, 2])
        let body = Data("{}".utf8)
        let dealer = try ClientFrames.parse([id, body]).get()
        #expect(!dealer.hasDelimiter)
        #expect(dealer.reply(body) == [id, body])
        let req = try ClientFrames.parse([id, Data(), body]).get()
        #expect(req.hasDelimiter)
        #expect(req.reply(body) == [id, Data(), body])
        for frames in [[id], [id, body, body], [id, Data(), body, body]] {
            guard case .failure(let rejection) = ClientFrames.parse(frames) else {
                Issue.record("accepted \(frames.count) frames")
                continue
            }
            #expect(rejection.error.code == .wrongFrameCount)
            #expect(rejection.reply(body)?.first == id)
        }
        guard case .failure(let none) = ClientFrames.parse([]) else {
            Issue.record("accepted no frames")
            return
        }
        #expect(none.reply(body) == nil)
    }

    @Test("request decoding accepts a full request and echoes the id on later errors")
    func decoding() throws {
        let ok = try RequestDecoder.decode(
            Data(
                #"{"type":"event.publish","id":"r1","version":1,"gameId":"g","playerId":"p","payload":{"name":"a"},"extra":true}"#
                    .utf8),
            maxBytes: 1000
        ).get()
        #expect(
            ok
                == ClientRequest(
                    type: .eventPublish, id: "r1", version: 1, gameId: "g", playerId: "p", payload: ["name": "a"]))
        guard
            case .failure(let rejection) = RequestDecoder.decode(
                Data(#"{"id":"r2","type":"x","version":0}"#.utf8), maxBytes: 1000)
        else {
            Issue.record("accepted version 0")
            return
        }
        #expect(rejection.requestID == "r2")
        #expect(rejection.error.code == .invalidField)
        guard case .failure(let large) = RequestDecoder.decode(Data(count: 1001), maxBytes: 1000) else {
            Issue.record("accepted an oversized body")
            return
        }
        #expect(large.error.code == .messageTooLarge)
    }

    @Test("the directory routes to live instances in turn and forgets silent ones")
    func directory() {
        var directory = ServiceDirectory()
        let one = ServiceAnnouncement(
            service: "leaderboard", instance: "l1", requestTypes: ["leaderboard.health"],
            heartbeatIntervalMilliseconds: 100)
        let two = ServiceAnnouncement(
            service: "leaderboard", instance: "l2", requestTypes: ["leaderboard.health"],
            heartbeatIntervalMilliseconds: 100)
        let before = directory.route("leaderboard.health", knownServices: ["leaderboard"])
        #expect(before == .unavailable(service: "leaderboard"))
        let unknown = directory.route("nothing.here", knownServices: ["leaderboard"])
        #expect(unknown == .unknown)
        let firstIsNew = directory.register(one, routingID: Data("l1".utf8), now: 0)
        let againIsNew = directory.register(one, routingID: Data("l1".utf8), now: 50)
        let secondIsNew = directory.register(two, routingID: Data("l2".utf8), now: 200)
        #expect(firstIsNew && !againIsNew && secondIsNew)
        let picks = (0..<4).map { _ in directory.route("leaderboard.health", knownServices: []) }
        #expect(Set(picks).count == 2, "both instances take turns")
        let other = directory.route("leaderboard.other", knownServices: ["leaderboard"])
        #expect(other == .unknown, "a connected service that did not announce a type does not have it")
        let expired = directory.expire(now: 560)
        #expect(expired.map(\.announcement.instance) == ["l1"])
        #expect(directory.connectedServices == ["leaderboard"])
        let survivor = directory.route("leaderboard.health", knownServices: [])
        #expect(survivor == .instance(Data("l2".utf8), service: "leaderboard"))
        // The gateway itself stalled for two seconds (a starved machine): heartbeats it could not
        // read are not held against l2, but silence after the stall still is.
        #expect(directory.expire(now: 600).isEmpty)
        #expect(directory.expire(now: 2600).isEmpty, "the stall is credited")
        #expect(directory.expire(now: 2700).isEmpty)
        #expect(directory.expire(now: 2800).map(\.announcement.instance) == ["l2"])
    }

    @Test("notification topics are per game and player, unguessable, and only complete ones are accepted")
    func notificationTopics() {
        let topics = NotificationTopics(secret: Array(repeating: 7, count: 32))
        let other = NotificationTopics(secret: Array(repeating: 8, count: 32))
        let alice = topics.topic(gameId: "g", playerId: "alice")
        #expect(alice == topics.topic(gameId: "g", playerId: "alice"))
        #expect(alice != topics.topic(gameId: "g", playerId: "bob"))
        #expect(alice != topics.topic(gameId: "h", playerId: "alice"))
        #expect(alice != other.topic(gameId: "g", playerId: "alice"))
        #expect(topics.topic(gameId: "g\nx", playerId: "y") != topics.topic(gameId: "g", playerId: "x\ny"))
        #expect(alice.utf8.count == NotificationTopics.topicLength)
        #expect(NotificationTopics.isAcceptableSubscription(Data(alice.utf8)))
        for refused in ["", "player/", String(alice.dropLast()), alice + "0", alice.uppercased(), "notify/g/alice"] {
            #expect(!NotificationTopics.isAcceptableSubscription(Data(refused.utf8)), "accepted \(refused)")
        }
    }

    @Test("the gateway refuses a missing, short or example secret unless in development mode")
    func secretPolicy() throws {
        func settings(_ environment: [String: String]) throws -> GatewaySettings {
            try GatewaySettings(
                reader: ConfigReader(provider: EnvironmentVariablesProvider(environmentVariables: environment)))
        }
        let tokenKey = String(repeating: "t", count: 40)
        #expect(throws: ConfigurationProblem.self) { try settings(["PODIUM_AUTH_TOKEN_KEY": tokenKey]) }
        #expect(throws: ConfigurationProblem.self) {
            try settings(["PODIUM_NOTIFICATION_SECRET": "short", "PODIUM_AUTH_TOKEN_KEY": tokenKey])
        }
        #expect(throws: ConfigurationProblem.self) {
            try settings([
                "PODIUM_NOTIFICATION_SECRET": GatewaySettings.exampleSecret, "PODIUM_AUTH_TOKEN_KEY": tokenKey,
            ])
        }
        let strong = String(repeating: "k", count: 40)
        #expect(
            try settings(["PODIUM_NOTIFICATION_SECRET": strong, "PODIUM_AUTH_TOKEN_KEY": tokenKey]).notificationSecret
                == Array(strong.utf8))
        // The token key follows the same rule: missing, short or the development key is refused.
        #expect(throws: ConfigurationProblem.self) { try settings(["PODIUM_NOTIFICATION_SECRET": strong]) }
        #expect(throws: ConfigurationProblem.self) {
            try settings(["PODIUM_NOTIFICATION_SECRET": strong, "PODIUM_AUTH_TOKEN_KEY": "short"])
        }
        #expect(throws: ConfigurationProblem.self) {
            try settings(["PODIUM_NOTIFICATION_SECRET": strong, "PODIUM_AUTH_TOKEN_KEY": SessionTokens.developmentKey])
        }
        #expect(throws: ConfigurationProblem.self) {
            try settings([
                "PODIUM_NOTIFICATION_SECRET": strong, "PODIUM_AUTH_TOKEN_KEY": tokenKey, "PODIUM_ADMIN_KEY": "short",
            ])
        }
        #expect(throws: ConfigurationProblem.self) {
            try settings([
                "PODIUM_NOTIFICATION_SECRET": strong, "PODIUM_AUTH_TOKEN_KEY": tokenKey,
                "PODIUM_GAME_SERVER_KEYS": "dash=short",
            ])
        }
        let keyed = try settings([
            "PODIUM_NOTIFICATION_SECRET": strong, "PODIUM_AUTH_TOKEN_KEY": tokenKey,
            "PODIUM_GAME_SERVER_KEYS": "dash=\(strong), other=\(tokenKey)", "PODIUM_ADMIN_KEY": strong,
        ])
        #expect(keyed.serverKeys == ["dash": strong, "other": tokenKey])
        #expect(keyed.adminKey == strong)
        let development = try settings(["PODIUM_DEVELOPMENT": "true"])
        #expect(development.notificationSecret.count == 32)
        #expect(throws: ConfigurationProblem.self) {
            try settings(["PODIUM_DEVELOPMENT": "true", "PODIUM_MAX_MESSAGE_BYTES": "10"])
        }
        #expect(throws: ConfigurationProblem.self) {
            try settings(["PODIUM_DEVELOPMENT": "true", "PODIUM_REQUEST_TIMEOUT_MS": "0"])
        }
    }
}
