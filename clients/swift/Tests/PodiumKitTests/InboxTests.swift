import Foundation
import PodiumKit
import Testing

/// The notification inbox: what a player missed while offline.
@Suite(.stack, .timeLimit(.minutes(2))) struct InboxTests {
    @Test func friendRequestsLandInTheInbox() async throws {
        let amy = try await TestStack.player("amy")
        let ben = try await TestStack.player("ben")
        try await amy.sendFriendRequest(to: ben.playerId!)
        try await ben.acceptFriendRequest(from: amy.playerId!)

        // Ben was offline: the request waits in his inbox (written as the challenge service reads it).
        let inbox = ben.inbox
        let page = try await within(.seconds(15), "friend.requested in Ben's inbox") {
            while true {
                let page = try await inbox.loadItems(kinds: [.friendRequested])
                if !page.items.isEmpty { return page }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        let item = try #require(page.items.first)
        #expect(item.kind == .friendRequested)
        #expect(item.message == "Amy wants to be your friend")
        #expect(item.details["playerId"]?.stringValue == amy.playerId)
        #expect(!item.isRead)
        #expect(item.position != nil)
        #expect(item.notification(gameId: "dash", playerId: ben.playerId).friend?.playerId == amy.playerId)
        #expect(page.unread == 1)

        // docs:begin inbox
        let unread = try await inbox.unreadCount()
        let items = try await inbox.loadItems(unreadOnly: true, limit: 20).items
        for item in items {
            print("\(item.createdDate): \(item.message)")
        }
        try await inbox.markRead(items.map(\.id))
        // docs:end inbox
        #expect(unread == 1)
        #expect(items.map(\.id) == [item.id])
        #expect(try await inbox.unreadCount() == 0)
        #expect(try await inbox.markAllRead() == 0)
        #expect(try await inbox.delete([item.id]) == 1)
        #expect(try await inbox.loadItems().items.isEmpty)

        // Amy's side: the accept, and the friends list both ways.
        let amysFriends = try await amy.loadFriendList()
        #expect(amysFriends.friends.map(\.playerId) == [ben.playerId])
        #expect(amysFriends.incoming.isEmpty && amysFriends.outgoing.isEmpty)
        let removed = try await amy.removeFriend(ben.playerId!)
        #expect(removed.state == .none)
        #expect(try await ben.loadFriends().isEmpty)
    }
}
