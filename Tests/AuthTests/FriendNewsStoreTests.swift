import AuthPostgres
import Foundation
import PodiumMessages
import PodiumRuntime
import PodiumTesting
import Testing

@testable import Auth

/// The auth store writes a friend request's news in the same transaction as the relation, and
/// only for real changes: SQLite, or PostgreSQL with `PODIUM_TEST_DATABASE_URL`.
@Suite("Friend news in the account store")
struct FriendNewsStoreTests {
    static func open(_ data: URL) async throws -> any AccountStore {
        let database = try PodiumTestStack.testDatabase(service: "auth", dataDirectory: data)
        return try await TestStores.accounts(RuntimeSettings(service: "auth", dataDirectory: data, database: database))
    }

    static func messages(_ store: any AccountStore) async throws -> [RawEnvelope] {
        try await store.durable.outboxPage(stream: StreamName.auth, after: 0, limit: 100).messages.map(\.envelope)
    }

    static func cause(_ playerId: String, game: String? = "dash", id: String) -> FriendNews.Cause {
        FriendNews.Cause(playerId: playerId, displayName: playerId.uppercased(), gameId: game, requestId: id)
    }

    @Test("a request and its accept write one message each; repeats, refusals and other changes write none; it is kept")
    func newsWithTheRelation() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent(
            "podium-friend-news-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: data) }
        let suffix = UUID().uuidString.prefix(8).lowercased()
        let (ann, ben, cat) = ("ann-\(suffix)", "ben-\(suffix)", "cat-\(suffix)")
        do {
            let store = try await Self.open(data)
            for name in [ann, ben, cat] {
                _ = try await store.createAccount(
                    playerId: name, username: name, usernameKey: name, passwordHash: "x",
                    displayName: name.uppercased(), now: 1)
            }
            #expect(
                try await store.requestFriend(from: ann, to: ben, now: 10, cause: Self.cause(ann, id: "r1"))
                    == .outgoingRequest)
            #expect(
                try await store.requestFriend(from: ann, to: ben, now: 11, cause: Self.cause(ann, id: "r2"))
                    == .outgoingRequest)
            #expect(try await Self.messages(store).count == 1, "a repeated request writes nothing")
            #expect(
                try await store.acceptFriend(playerId: ben, from: ann, now: 12, cause: Self.cause(ben, id: "a1"))
                    == .friends)
            #expect(
                try await store.acceptFriend(playerId: ben, from: ann, now: 13, cause: Self.cause(ben, id: "a2"))
                    == .friends)
            #expect(
                try await store.requestFriend(from: ann, to: ben, now: 14, cause: Self.cause(ann, id: "r3")) == .friends
            )
            // Other changes, and refused ones, write nothing.
            _ = try await store.block(playerId: cat, otherPlayerId: ann, now: 15)
            await #expect(throws: ErrorReply.self) {
                try await store.requestFriend(from: ann, to: cat, now: 16, cause: Self.cause(ann, id: "r4"))
            }
            await #expect(throws: ErrorReply.self) {
                try await store.requestFriend(
                    from: ann, to: "nobody-\(suffix)", now: 16, cause: Self.cause(ann, id: "r5"))
            }
            _ = try await store.removeFriend(playerId: ann, otherPlayerId: ben)
            #expect(try await Self.messages(store).count == 2)
            // Asking back accepts: news of an accept. A request without a game is still news.
            #expect(
                try await store.requestFriend(from: ben, to: ann, now: 20, cause: Self.cause(ben, game: nil, id: "r6"))
                    == .outgoingRequest)
            #expect(
                try await store.requestFriend(from: ann, to: ben, now: 21, cause: Self.cause(ann, id: "r7")) == .friends
            )
            await store.close()
        }

        // Reopened: the messages are there, in order, numbered 1, 2, 3, 4.
        let store = try await Self.open(data)
        defer { Task { await store.close() } }
        let messages = try await Self.messages(store)
        #expect(messages.map(\.type) == [.friendRequested, .friendAccepted, .friendRequested, .friendAccepted])
        #expect(messages.map(\.sequence) == [1, 2, 3, 4])
        #expect(messages.allSatisfy { $0.publisher == StreamName.auth })
        #expect(messages.map(\.correlationId) == ["r1", "a1", "r6", "r7"])
        #expect(messages.map(\.gameId) == ["dash", "dash", nil, "dash"])
        let updates = try messages.map { try $0.decodePayload(as: FriendRequestUpdate.self) }
        #expect(
            updates[0]
                == FriendRequestUpdate(
                    fromPlayerId: ann, fromDisplayName: ann.uppercased(), toPlayerId: ben, gameId: "dash", time: 10))
        #expect(
            updates[1]
                == FriendRequestUpdate(
                    fromPlayerId: ben, fromDisplayName: ben.uppercased(), toPlayerId: ann, gameId: "dash", time: 12))
        #expect(updates[2].gameId == nil && updates[2].toPlayerId == ann)
        #expect(updates[3].fromPlayerId == ann && updates[3].toPlayerId == ben)
        #expect(try await store.durable.outboxHead() == 4)
    }
}
