import Foundation
import PodiumKit
import Testing

/// Stable error codes surface as typed `PodiumError`s with the HTTP status, the field and the request id.
@Suite(.stack, .timeLimit(.minutes(2))) struct ErrorTests {
    @Test func anUnknownBoardIsATypedError() async throws {
        let player = try await TestStack.player("uma")
        // docs:begin errors
        do {
            try await PodiumLeaderboard(id: "com.example.dash.nope", for: player).submitScore(10)
        } catch let error as PodiumError where error.code == .unknownBoard {
            print("no such board: \(error.message) (\(error.field ?? ""))")
        }
        // docs:end errors
        let error = await #expect(throws: PodiumError.self) {
            try await PodiumLeaderboard(id: "com.example.dash.nope", for: player).submitScore(10)
        }
        #expect(error?.code == .unknownBoard)
        #expect(error?.status == 404)
        #expect(error?.field == "payload.boardId")
        #expect(error?.message.isEmpty == false)
        #expect(error?.requestId?.count == 36)

        let outOfBounds = await #expect(throws: PodiumError.self) {
            try await PodiumLeaderboard(id: "com.example.dash.highscore", for: player).submitScore(-1)
        }
        #expect(outOfBounds?.code == .scoreOutOfBounds)
        #expect(outOfBounds?.status == 400)

        let unknownGame = PodiumLocalPlayer(configuration: TestStack.configuration(game: "no-such-game"))
        try await unknownGame.authenticate(.device(id: UUID().uuidString))
        let noGame = await #expect(throws: PodiumError.self) {
            try await PodiumLeaderboard.loadLeaderboards(for: unknownGame)
        }
        #expect(noGame?.code == .unknownGame)
        #expect(noGame?.field == "gameId")
    }

    @Test func loggingInWithAWrongPassword() async throws {
        let username = TestStack.uniqueName("vic")
        let player = PodiumLocalPlayer(configuration: TestStack.configuration())
        try await player.authenticate(.register(username: username, password: TestStack.password))
        let other = PodiumLocalPlayer(configuration: TestStack.configuration())
        let refused = await #expect(throws: PodiumError.self) {
            try await other.authenticate(.login(username: username, password: "not the password"))
        }
        #expect(refused?.code == .invalidCredentials)
        #expect(refused?.status == 401)
        #expect(!other.isAuthenticated)
        let taken = await #expect(throws: PodiumError.self) {
            try await other.authenticate(.register(username: username.uppercased(), password: TestStack.password))
        }
        #expect(taken?.code == .usernameTaken)
        #expect(taken?.field == "payload.username")
        try await other.authenticate(.login(username: username.uppercased(), password: TestStack.password))
        #expect(other.playerId == player.playerId)
        // Nothing without a session.
        try await other.logout()
        let anonymous = await #expect(throws: PodiumError.self) { try await other.loadFriends() }
        #expect(anonymous?.code == .unauthenticated)
    }
}
