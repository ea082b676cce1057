import Foundation
import Testing

@testable import PodiumKit

/// Notifications as the socket pushes them (docs/PROTOCOL.md 12.9, 14.1), read into typed values.
@Suite struct NotificationDecodingTests {
    private func notification(_ text: String) throws -> PodiumNotification {
        guard case .notification(let notification) = SocketRules.classify(text) else {
            throw TestFailure("not a notification: \(text)")
        }
        return notification
    }

    @Test func aChallengeCompletion() throws {
        let completed = try notification(
            #"{"correlationId":"s7","gameId":"dash","id":"n1","payload":{"details":{"boardId":"com.example.dash.highscore","challengeId":"0c6f","inboxId":"77a0","issuerId":"6f0c","issuerValue":1200,"kind":"score","message":"beat this!","receiverId":"91aa"},"kind":"challenge.completed-by-receiver","message":"91aa completed your challenge (1500 against 1200)"},"playerId":"6f0c","publisher":"challenge-0a9b","sequence":4,"timestamp":1795224060001,"type":"notification","version":1}"#
        )
        #expect(completed.kind == .challengeCompletedByReceiver)
        #expect(completed.correlationId == "s7")
        #expect(completed.gameId == "dash")
        #expect(completed.playerId == "6f0c")
        #expect(completed.inboxId == "77a0")
        #expect(completed.date == Date(timeIntervalSince1970: 1_795_224_060.001))
        #expect(completed.source == .live)
        let challenge = try #require(completed.challenge)
        #expect(challenge.challengeId == "0c6f")
        #expect(challenge.kind == .score)
        #expect(challenge.issuerValue == 1200)
        #expect(challenge.receiverId == "91aa")
        #expect(challenge.message == "beat this!")
        #expect(completed.achievement == nil)
        #expect(completed.friend == nil)
    }

    @Test func aTimedChallengeEnding() throws {
        let ended = try notification(
            #"{"gameId":"dash","id":"n2","payload":{"details":{"boardId":"com.example.dash.fastest","challengeId":"5cf3","inboxId":"705a","issuerId":"91aa","kind":"timed","message":"quick race","standings":[{"playerId":"6f0c","rank":1,"value":6000},{"playerId":"91aa","rank":2,"value":6500}]},"kind":"challenge.ended","message":"The challenge on com.example.dash.fastest has ended: 6f0c won with 6000"},"playerId":"6f0c","publisher":"challenge-0a9b","sequence":8,"timestamp":1795226768525,"type":"notification","version":1}"#
        )
        #expect(ended.kind == .challengeEnded)
        #expect(ended.correlationId == nil)
        #expect(ended.challenge?.kind == .timed)
        #expect(ended.challenge?.standings?.map(\.playerId) == ["6f0c", "91aa"])
        #expect(ended.challenge?.standings?.map(\.value) == [6000, 6500])
        #expect(ended.challenge?.standings?.first?.attempts == nil)
    }

    @Test func anAchievementAFriendAndAnUnknownKind() throws {
        let earned = try notification(
            #"{"correlationId":"0a7c","gameId":"whackacac","id":"n3","payload":{"details":{"achievementId":"com.dragonforged.whackacac.play5","earnedDescription":"You played five games.","inboxId":"b2e4","points":10,"timesEarned":1,"title":"Play Five"},"kind":"achievement.earned","message":"Achievement earned: Play Five"},"playerId":"5f35","publisher":"challenge-0a9b","sequence":7,"timestamp":1795225881495,"type":"notification","version":1}"#
        )
        #expect(
            earned.achievement
                == PodiumNotification.AchievementNotice(
                    achievementId: "com.dragonforged.whackacac.play5", title: "Play Five",
                    earnedDescription: "You played five games.", points: 10, timesEarned: 1))
        #expect(earned.challenge == nil)

        let friend = try notification(
            #"{"correlationId":"fr-1","gameId":"dash","id":"n4","payload":{"details":{"displayName":"Ada","inboxId":"5b0e","playerId":"6f0c"},"kind":"friend.requested","message":"Ada wants to be your friend"},"playerId":"91aa","timestamp":1795224500020,"type":"notification","version":1}"#
        )
        #expect(friend.friend == PodiumPlayer(playerId: "6f0c", displayName: "Ada"))

        let future = try notification(
            #"{"id":"n5","payload":{"details":{"x":[1,2.5,"y",null,true]},"kind":"quest.completed","message":"New!"},"timestamp":1,"type":"notification","version":1}"#
        )
        #expect(future.kind.rawValue == "quest.completed")
        #expect(future.details["x"] == [1, 2.5, "y", nil, true])
        #expect(future.inboxId == nil)
    }

    /// A notification caused by a request carries the request's id as its `correlationId`, like
    /// the reply: only the reply (or error) answers the request.
    @Test func onlyRepliesAndErrorsAnswerRequests() {
        let caused = SocketRules.classify(
            #"{"correlationId":"r-9","gameId":"dash","id":"n6","payload":{"details":{"service":"challenge"},"kind":"diagnostic.test","message":"hi"},"playerId":"p","timestamp":1,"type":"notification","version":1}"#
        )
        guard case .notification(let notification) = caused else {
            Issue.record("a notification was read as \(caused)")
            return
        }
        #expect(notification.correlationId == "r-9")
        let reply = SocketRules.classify(
            #"{"correlationId":"r-9","id":"m","payload":{"notificationId":"n6"},"timestamp":2,"type":"reply","version":1}"#
        )
        #expect(reply == .reply(correlationId: "r-9", payload: ["notificationId": "n6"]))
        #expect(SocketRules.classify("not json") == .other)
        #expect(SocketRules.classify(#"{"type":"reply","payload":{}}"#) == .other)
    }

    @Test func closeCodesDecideWhatComesNext() {
        #expect(SocketRules.action(closeCode: 4001, reason: nil) == .refreshThenReconnect)
        #expect(SocketRules.action(closeCode: 1001, reason: "shutting down") == .reconnect)
        #expect(SocketRules.action(closeCode: nil, reason: nil) == .reconnect)
        #expect(SocketRules.action(closeCode: 1008, reason: "read faster") == .reconnect)
        for (code, error) in [(4003, PodiumErrorCode.sessionRevoked), (4004, .playerBanned), (4005, .accountDeleted)] {
            guard case .stop(let stop) = SocketRules.action(closeCode: code, reason: "why") else {
                Issue.record("\(code) does not stop the socket")
                continue
            }
            #expect(stop.code == error)
            #expect(stop.closeCode == code)
            #expect(stop.message == "why")
        }
        #expect(SocketRules.action(helloError: PodiumError(code: .tokenExpired, message: "")) == .refreshThenReconnect)
        #expect(SocketRules.action(helloError: PodiumError(code: .serviceUnavailable, message: "")) == .reconnect)
        let unknownGame = PodiumError(code: .unknownGame, message: "no such game", field: "payload.games.0")
        #expect(SocketRules.action(helloError: unknownGame) == .stop(unknownGame))
    }
}
