import Foundation
import PodiumMessages
import PodiumRuntime

/// The leaderboard service's logic: submissions and views over a ``LeaderboardStore``.
final class Scoreboard: Sendable {
    let catalog: GameCatalog
    let store: any LeaderboardStore
    let clock: any PodiumClock

    /// Largest metadata object, encoded.
    static let maximumMetadataBytes = 1024
    /// Most entries one `leaderboard.top` returns.
    static let maximumLimit = 200

    init(catalog: GameCatalog, store: any LeaderboardStore, clock: any PodiumClock) {
        self.catalog = catalog
        self.store = store
        self.clock = clock
    }

    func submit(_ request: RawEnvelope, _ submission: ScoreSubmission, context: ServiceContext) async throws -> ScoreReceipt {
        let board = try catalog.board(gameId: request.gameId, boardId: submission.boardId)
        let gameId = request.gameId ?? ""
        let playerId = try Self.submitter(request, board: board)
        if let minimum = board.minimum, submission.value < minimum {
            throw ErrorReply(code: .scoreOutOfBounds, message: "scores on this board are at least \(minimum)", field: "payload.value")
        }
        if let maximum = board.maximum, submission.value > maximum {
            throw ErrorReply(code: .scoreOutOfBounds, message: "scores on this board are at most \(maximum)", field: "payload.value")
        }
        var metadataText: String?
        if let metadata = submission.metadata {
            let encoded = try WireCodec.encode(metadata)
            guard encoded.count <= Self.maximumMetadataBytes else {
                throw ErrorReply(
                    code: .invalidField, message: "metadata is at most \(Self.maximumMetadataBytes) bytes of JSON", field: "payload.metadata")
            }
            metadataText = String(decoding: encoded, as: UTF8.self)
        }
        let now = clock.nowMilliseconds
        let candidate = StoredEntry(value: submission.value, context: submission.context, metadata: metadataText, submittedAt: now)
        let (previous, current) = try await store.submit(
            gameId: gameId, boardId: board.id, playerId: playerId, value: submission.value, submittedAt: now
        ) { existing in
            guard let existing else { return candidate }
            switch board.submitOperator {
            case .best:
                return board.isBetter(candidate.value, than: existing.value) ? candidate : nil
            case .latest:
                return candidate
            case .increment:
                let (sum, overflow) = existing.value.addingReportingOverflow(candidate.value)
                guard !overflow, board.maximum.map({ sum <= $0 }) ?? true, board.minimum.map({ sum >= $0 }) ?? true else {
                    throw ErrorReply(code: .scoreOutOfBounds, message: "the total would leave the board's range", field: "payload.value")
                }
                return StoredEntry(value: sum, context: candidate.context, metadata: candidate.metadata, submittedAt: now)
            }
        }
        guard let current else { throw ErrorReply(code: .internalError, message: "the score was not stored") }
        let rank = try await store.rank(gameId: gameId, boardId: board.id, playerId: playerId, sortOrder: board.sortOrder) ?? 0
        let improved = previous == nil || previous?.value != current.value || board.submitOperator == .latest && previous?.submittedAt != current.submittedAt
        let receipt = ScoreReceipt(
            boardId: board.id, playerId: playerId, improved: improved, previousValue: previous?.value,
            entry: Self.entry(playerId, current, rank: rank))
        _ = try? await context.publisher.publish(
            type: "leaderboard.score-accepted", topic: Topic(rawValue: "score/\(gameId)/\(board.id)"), payload: receipt,
            gameId: gameId, playerId: playerId, correlationId: request.correlationId ?? request.id)
        return receipt
    }

    func entry(_ request: RawEnvelope, boardId: String) async throws -> LeaderboardEntry? {
        let board = try catalog.board(gameId: request.gameId, boardId: boardId)
        guard let playerId = request.playerId else {
            throw ErrorReply(code: .missingField, message: "which player? give playerId", field: "playerId")
        }
        let top = try await store.rank(gameId: request.gameId ?? "", boardId: board.id, playerId: playerId, sortOrder: board.sortOrder)
        guard let rank = top else { return nil }
        let page = try await store.top(gameId: request.gameId ?? "", boardId: board.id, sortOrder: board.sortOrder, offset: rank - 1, limit: 1)
        return page.first.map { Self.entry($0.playerId, $0.entry, rank: rank) }
    }

    func top(_ request: RawEnvelope, boardId: String, offset: Int, limit: Int) async throws -> [LeaderboardEntry] {
        let board = try catalog.board(gameId: request.gameId, boardId: boardId)
        guard offset >= 0, offset <= 1_000_000_000 else {
            throw ErrorReply(code: .invalidField, message: "offset must be between 0 and 1000000000", field: "payload.offset")
        }
        guard (1...Self.maximumLimit).contains(limit) else {
            throw ErrorReply(code: .invalidField, message: "limit must be between 1 and \(Self.maximumLimit)", field: "payload.limit")
        }
        let rows = try await store.top(gameId: request.gameId ?? "", boardId: board.id, sortOrder: board.sortOrder, offset: offset, limit: limit)
        return rows.enumerated().map { Self.entry($1.playerId, $1.entry, rank: offset + $0 + 1) }
    }

    /// Who the score is for: the player themselves, or the player a server (or operator) names.
    /// Players may not submit to server-only boards.
    static func submitter(_ request: RawEnvelope, board: LeaderboardDefinition) throws -> String {
        switch request.actor?.kind {
        case .player?:
            guard !board.serverOnly else {
                throw ErrorReply(code: .forbidden, message: "only the game server submits scores to '\(board.id)'")
            }
            guard let playerId = request.actor?.playerId else { throw ErrorReply(code: .forbidden, message: "no player") }
            return playerId
        case .server?, .admin?:
            guard let playerId = request.playerId else {
                throw ErrorReply(code: .missingField, message: "say which player the score is for", field: "playerId")
            }
            return playerId
        default:
            throw ErrorReply(code: .forbidden, message: "scores come from players and game servers")
        }
    }

    static func entry(_ playerId: String, _ stored: StoredEntry, rank: Int) -> LeaderboardEntry {
        LeaderboardEntry(
            playerId: playerId, value: stored.value, rank: rank, context: stored.context,
            metadata: stored.metadata.flatMap { try? WireCodec.decode([String: JSONValue].self, from: Data($0.utf8)) },
            submittedAt: stored.submittedAt)
    }
}
