import Foundation
import PodiumMessages
import PodiumRuntime

/// The notification inbox of every kind (docs/PROTOCOL.md 14.5): what the challenge service
/// sends is kept first and sent after, and so are the notifications it makes from the other
/// services' durable streams (an achievement earned, a player pushed out of a top 10, a friend
/// request made or accepted) and an operator's notices. A client that was offline catches up from here.
final class ChallengeInbox: Sendable {
    let store: any ChallengeStore
    let clock: any PodiumClock
    /// How long items are kept (`PODIUM_INBOX_RETENTION_DAYS`).
    let retentionMilliseconds: Int64
    /// When the inbox was last pruned (monotonic).
    private let lastPrune = Locked<Int64>(0)
    static let pruneMilliseconds: Int64 = 60_000

    init(store: any ChallengeStore, clock: any PodiumClock, retentionDays: Int = 90) {
        self.store = store
        self.clock = clock
        retentionMilliseconds = Int64(retentionDays) * 86_400_000
    }

    /// The inbox items a stream message makes besides challenge completions.
    func notices(for envelope: RawEnvelope, fact: StreamFact?, context: ServiceContext) async -> [AddressedInboxItem] {
        guard let gameId = envelope.gameId, let playerId = envelope.playerId else { return [] }
        let time = clock.nowMilliseconds
        switch fact {
        case .earned(let earned):
            let item = InboxItem(
                id: InboxItems.newItemID(), kind: MessageType.achievementEarned.rawValue,
                message: "Achievement earned: \(earned.title)",
                details: [
                    "achievementId": .string(earned.achievementId), "title": .string(earned.title),
                    "earnedDescription": .string(earned.earnedDescription), "points": .integer(Int64(earned.points)),
                    "timesEarned": .integer(Int64(earned.timesEarned)),
                ],
                createdAt: time, read: false, correlationId: envelope.correlationId)
            return [(gameId, playerId, item)]
        case .score(let receipt):
            guard let pushed = receipt.pushedOutOfTop else { return [] }
            let title =
                (try? await ServiceQuestions.board(receipt.boardId, gameId: gameId, context: context).title)
                ?? receipt.boardId
            let item = InboxItem(
                id: InboxItems.newItemID(), kind: "leaderboard.left-top",
                message: "You dropped out of the top \(InboxItems.topSize) of \(title)",
                details: [
                    "boardId": .string(receipt.boardId), "rank": .integer(Int64(InboxItems.topSize + 1)),
                    "by": .string(playerId),
                ],
                createdAt: time, read: false, correlationId: envelope.correlationId)
            return [(gameId, pushed, item)]
        case .friend(let update, let accepted):
            return [
                InboxItems.friendNotice(
                    update, accepted: accepted, gameId: gameId, time: time, cause: envelope.correlationId)
            ]
        case .event, nil:
            return []
        }
    }

    /// `inbox.list`: a page of the player's items, with the unread count.
    func list(_ request: RawEnvelope, _ query: InboxListQuery) async throws -> InboxList {
        let (gameId, playerId) = try Challenges.player(request)
        let items = try await store.inbox(
            gameId: gameId, playerId: playerId,
            page: InboxPageRequest(
                after: query.after, before: query.before, unreadOnly: query.unreadOnly, kinds: query.kinds,
                limit: query.limit))
        let unread = try await store.unreadCount(gameId: gameId, playerId: playerId)
        // Newest-first pages continue below their last item while they come back full.
        let more = query.after == nil && items.count == query.limit
        return InboxList(items: items, nextBefore: more ? items.last?.position : nil, unread: unread)
    }

    /// `inbox.read`: some items, or all of them.
    func markRead(_ request: RawEnvelope, _ selection: InboxSelection) async throws -> InboxMarked {
        let (gameId, playerId) = try Challenges.player(request)
        return InboxMarked(
            marked: try await store.markRead(
                gameId: gameId, playerId: playerId, ids: selection.all ? nil : selection.ids))
    }

    /// `inbox.delete`: the player's own items only.
    func delete(_ request: RawEnvelope, _ selection: InboxSelection) async throws -> InboxDeleted {
        let (gameId, playerId) = try Challenges.player(request)
        guard !selection.all else {
            throw ErrorReply(code: .invalidField, message: "inbox.delete takes ids, not all", field: "payload.all")
        }
        return InboxDeleted(
            deleted: try await store.deleteFromInbox(gameId: gameId, playerId: playerId, ids: selection.ids))
    }

    /// `inbox.admin.notify`: an operator's notice to one player, kept and sent.
    func operatorNotice(_ request: RawEnvelope, _ notice: OperatorNotice, context: ServiceContext) async throws
        -> InboxItem
    {
        guard let gameId = request.gameId else {
            throw ErrorReply(code: .missingField, message: "give the gameId", field: "gameId")
        }
        guard let playerId = notice.playerId ?? request.playerId else {
            throw ErrorReply(code: .missingField, message: "name the player with playerId", field: "playerId")
        }
        guard Identifiers.isValidID(playerId) else {
            throw ErrorReply(code: .invalidField, message: "playerId is not a player id", field: "payload.playerId")
        }
        let text = notice.message.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...512).contains(text.count),
            !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && $0 != "\n" })
        else {
            throw ErrorReply(
                code: .invalidField, message: "the message is 1-512 characters without control characters",
                field: "payload.message")
        }
        let details = notice.details ?? [:]
        guard (try WireCodec.encode(details)).count <= 2048 else {
            throw ErrorReply(
                code: .invalidField, message: "details are at most 2048 bytes of JSON", field: "payload.details")
        }
        guard !(try await context.call(AuthRequests.players, ProfileLookup(playerIds: [playerId]))).players.isEmpty
        else {
            throw ErrorReply(code: .unknownPlayer, message: "no player \(playerId)", field: "playerId")
        }
        // The item's id comes from the request's, so that a resend (a reply lost on the way)
        // finds the notice already kept and sends nothing again.
        let requestId = request.correlationId ?? request.id
        let item = InboxItem(
            id: InboxItems.noticeID(gameId: gameId, playerId: playerId, requestId: requestId), kind: "operator.notice",
            message: text,
            details: details, createdAt: clock.nowMilliseconds, read: false, correlationId: requestId)
        guard let kept = try await store.addToInboxIfAbsent(item, gameId: gameId, playerId: playerId) else {
            await publish(item, to: playerId, gameId: gameId, context: context)
            return item
        }
        // A resend: the notice kept answers; the same id with another notice is refused.
        guard kept.message == item.message, kept.details == item.details else {
            throw ErrorReply(
                code: .idReused, message: "this request id already sent another notice to this player", field: "id")
        }
        return kept
    }

    /// Removes items older than the retention (`PODIUM_INBOX_RETENTION_DAYS`), about once a minute.
    func prune(context: ServiceContext) async {
        let monotonic = clock.monotonicMilliseconds
        guard monotonic - lastPrune.value >= Self.pruneMilliseconds else { return }
        lastPrune.withLock { $0 = monotonic }
        do {
            let removed = try await store.pruneInbox(createdBefore: clock.nowMilliseconds - retentionMilliseconds)
            if removed > 0 {
                context.logger.info(
                    "inbox items past their retention removed", metadata: ["inbox.removed": "\(removed)"])
            }
        } catch {
            context.logger.error("inbox pruning failed", metadata: ["error": "\(error)"])
        }
    }

    /// `challenge.inbox`: the challenge kinds of the inbox, as before the inbox kept every kind.
    func challengeKinds(_ request: RawEnvelope, after: Int64?, unreadOnly: Bool) async throws -> InboxPage {
        let (gameId, playerId) = try Challenges.player(request)
        let items = try await store.inbox(
            gameId: gameId, playerId: playerId,
            page: InboxPageRequest(after: after, unreadOnly: unreadOnly, kindPrefix: "challenge."))
        return InboxPage(items: items)
    }

    /// `challenge.inbox.read`: the items named.
    func markRead(_ request: RawEnvelope, ids: [String]?) async throws -> InboxMarked {
        let (gameId, playerId) = try Challenges.player(request)
        return InboxMarked(marked: try await store.markRead(gameId: gameId, playerId: playerId, ids: ids))
    }

    /// `inbox.unread`: how many of the player's items are unread.
    func unread(_ request: RawEnvelope) async throws -> InboxUnread {
        let (gameId, playerId) = try Challenges.player(request)
        return InboxUnread(unread: try await store.unreadCount(gameId: gameId, playerId: playerId))
    }

    /// Keeps an item about `challenge` in the player's inbox, then sends it.
    func keepAndSend(
        _ playerId: String, gameId: String, kind: String, message: String, challenge: ChallengeDetail,
        context: ServiceContext,
        extra: [String: JSONValue] = [:]
    ) async {
        let item = InboxItems.challenge(
            kind: kind, message: message, challenge: challenge, at: clock.nowMilliseconds, extra: extra)
        do {
            try await store.addToInbox(item, gameId: gameId, playerId: playerId)
        } catch {
            context.logger.error("inbox write failed", metadata: ["error": "\(error)"])
        }
        await publish(item, to: playerId, gameId: gameId, context: context)
    }

    /// Sends an inbox item to the player's subscribers (a notification may be missed; the inbox keeps it).
    func publish(_ item: InboxItem, to playerId: String, gameId: String, context: ServiceContext) async {
        _ = try? await context.publisher.publish(
            type: .notification, topic: .notification(gameId: gameId, playerId: playerId),
            payload: PlayerNotification(
                kind: item.kind, message: item.message,
                details: item.details.merging(["inboxId": .string(item.id)]) { _, real in real }),
            gameId: gameId, playerId: playerId, correlationId: item.correlationId)
    }
}
