import Foundation
import PodiumKit
import Testing

/// The flow of Tests/Integration/browser/test_game_page.py, through PodiumKit: two players
/// register and become friends, one submits a score and challenges the other, who hears of it
/// live, beats it, and both hear of the completion live. The docs' samples (between
/// `docs:begin` and `docs:end`) are run here.
@Suite(.stack, .timeLimit(.minutes(2))) struct WalkthroughTests {
    /// The configuration of the docs, and its defaults (nothing is sent).
    @Test func aConfigurationAndItsDefaults() throws {
        let serverURL = TestStack.baseURL
        // docs:begin configure
        let configuration = PodiumConfiguration(baseURL: serverURL, gameId: "dash")
        // docs:end configure
        #expect(configuration.gameId == "dash")
        #expect(configuration.socketURL.path == "/v1/socket")
        #expect(configuration.requestTimeout == .seconds(10))
        #expect(configuration.retryPolicy.maxAttempts == 4)
        #expect(configuration.credentialAccount == serverURL.absoluteString)
        #if canImport(Security)
            #expect(configuration.credentialStore is KeychainCredentialStore)
        #else
            let store = try #require(configuration.credentialStore as? FileCredentialStore)
            #expect(store.directory.path.hasSuffix("/.podium/credentials"))
        #endif
    }

    @Test func twoFriendsAndALiveScoreChallenge() async throws {
        // As the docs' configuration, with a credential store in memory: tests never write to the home folder.
        let configuration = TestStack.configuration()
        let username = TestStack.uniqueName("ann")
        let password = TestStack.password

        // docs:begin authenticate
        let ann = PodiumLocalPlayer(configuration: configuration)
        try await ann.authenticate(.register(username: username, password: password, displayName: "Ann"))
        print("signed in as \(ann.displayName ?? "?") (\(ann.playerId ?? "?"))")
        // docs:end authenticate
        #expect(ann.isAuthenticated)
        #expect(ann.displayName == "Ann")
        #expect(ann.username == username)
        let bo = try await TestStack.player("bo")
        let annId = try #require(ann.playerId)
        let boId = try #require(bo.playerId)
        #expect(annId != boId)

        // Both listen before anything happens, as the game pages do.
        let annSocket = ann.makeSocket()
        // docs:begin socket
        let socket = bo.makeSocket()
        try await socket.connect()
        // docs:end socket
        try await annSocket.connect()
        #expect(await socket.isConnected)

        // Friends: Ann asks, Bo hears of it live and accepts, Ann hears of that.
        // docs:begin friends
        try await ann.sendFriendRequest(to: boId)
        // On Bo's device, once the friend.requested notification came in:
        try await bo.acceptFriendRequest(from: annId)
        let annsFriends = try await ann.loadFriends()
        // docs:end friends
        #expect(annsFriends.map(\.playerId) == [boId])
        #expect(annsFriends.first?.displayName == "Bo")
        let requested = try await socket.next(.friendRequested)
        #expect(requested.friend == PodiumPlayer(playerId: annId, displayName: "Ann"))
        #expect(requested.message == "Ann wants to be your friend")
        #expect(requested.inboxId != nil)
        let accepted = try await annSocket.next(.friendAccepted)
        #expect(accepted.friend?.playerId == boId)

        // Bo has no score yet: his challenge is refused with conflict.
        let refused = await #expect(throws: PodiumError.self) {
            try await PodiumLeaderboard(id: "com.example.dash.highscore", for: bo).issueChallenge(to: [annId])
        }
        #expect(refused?.code == .conflict)
        #expect(refused?.status == 409)

        // Ann submits a score and challenges Bo to beat it.
        // docs:begin submit
        let boards = try await PodiumLeaderboard.loadLeaderboards(IDs: ["com.example.dash.highscore"], for: ann)
        let highScore = boards[0]
        let receipt = try await highScore.submitScore(1200, context: 3)
        print("\(highScore.title): rank \(receipt.entry.rank), beaten: \(receipt.scopesBeaten)")
        // docs:end submit
        #expect(highScore.title == "High Score")
        #expect(highScore.sortOrder == .higherIsBetter)
        #expect(highScore.type == .classic)
        #expect(receipt.improved)
        #expect(receipt.previousValue == nil)
        #expect(receipt.submittedValue == 1200)
        #expect(receipt.entry.score == 1200)
        #expect(receipt.entry.context == 3)
        #expect(receipt.entry.player.playerId == annId)
        #expect(receipt.scopesBeaten == [.today, .week, .allTime])
        #expect(!receipt.duplicate)

        // docs:begin challenge
        let challenge = try await highScore.issueChallenge(to: [boId], message: "beat this!")
        // docs:end challenge
        #expect(challenge.kind == .score)
        #expect(challenge.issuerId == annId)
        #expect(challenge.issuerValue == 1200)
        #expect(challenge.boardId == "com.example.dash.highscore")
        #expect(challenge.message == "beat this!")
        #expect(challenge.receivers.map(\.playerId) == [boId])
        #expect(challenge.receiver(boId)?.state == .pending)

        // Bo hears of it live, through the AsyncSequence.
        let heard = try await within(.seconds(15), "challenge.received on Bo's socket") {
            // docs:begin notifications
            var received: PodiumNotification?
            for try await notification in socket.notifications where notification.kind == .challengeReceived {
                received = notification
                break
            }
            // docs:end notifications
            return received
        }
        let notice = try #require(heard?.challenge)
        #expect(heard?.source == .live)
        #expect(heard?.gameId == "dash")
        #expect(heard?.playerId == boId)
        #expect(heard?.message == "\(annId) challenged you: beat this!")
        #expect(notice.challengeId == challenge.challengeId)
        #expect(notice.kind == .score)
        #expect(notice.issuerId == annId)
        #expect(notice.issuerValue == 1200)
        #expect(notice.boardId == "com.example.dash.highscore")
        #expect(notice.message == "beat this!")

        // Bo beats it; both hear of the completion live.
        let bosBoard = PodiumLeaderboard(id: "com.example.dash.highscore", for: bo)
        let bosReceipt = try await bosBoard.submitScore(1500)
        #expect(bosReceipt.entry.score == 1500)
        let completed = try await socket.next(.challengeCompleted)
        #expect(completed.challenge?.challengeId == challenge.challengeId)
        #expect(completed.message == "You completed \(annId)'s challenge (1500 against 1200)")
        let completedByBo = try await annSocket.next(.challengeCompletedByReceiver)
        #expect(completedByBo.challenge?.challengeId == challenge.challengeId)
        #expect(completedByBo.challenge?.receiverId == boId)
        #expect(completedByBo.message == "\(boId) completed your challenge (1500 against 1200)")

        let received = try await PodiumChallenge.loadReceivedChallenges(state: .completed, for: bo)
        let done = try #require(received.first { $0.challengeId == challenge.challengeId })
        #expect(done.receiver(boId)?.state == .completed)
        #expect(done.receiver(boId)?.value == 1500)
        let issued = try await PodiumChallenge.loadIssuedChallenges(for: ann)
        #expect(issued.map(\.challengeId) == [challenge.challengeId])

        await socket.disconnect()
        await annSocket.disconnect()
        #expect(await !socket.isConnected)
    }
}
