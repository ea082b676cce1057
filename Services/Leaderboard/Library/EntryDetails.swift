import PodiumMessages
import PodiumRuntime

/// Stored details (context, metadata) of the entries views show, read from the store for many
/// requests at once: the ids concurrent requests need go into one read per board (or a few),
/// those that come while a read is out form the next one (``GroupCommit``).
final class EntryDetails: Sendable {
    struct Read: Sendable {
        let gameId: String
        let boardId: String
        let playerIds: [String]
    }

    private let reads: GroupCommit<Read, Result<[String: StoredEntry], StoreReadFailed>>

    /// A batched read failed; each request of the batch throws the store's error.
    struct StoreReadFailed: Error {
        let error: any Error
    }

    init(store: any LeaderboardStore) {
        reads = GroupCommit(maximumBatch: 256, service: "leaderboard", queue: "entry-details") { batch in
            var byBoard: [String: (gameId: String, boardId: String, ids: Set<String>)] = [:]
            for read in batch {
                byBoard["\(read.gameId)\u{0}\(read.boardId)", default: (read.gameId, read.boardId, [])].ids.formUnion(
                    read.playerIds)
            }
            var found: [String: Result<[String: StoredEntry], StoreReadFailed>] = [:]
            for (key, board) in byBoard {
                do {
                    found[key] = .success(
                        try await store.entries(
                            gameId: board.gameId, boardId: board.boardId, playerIds: Array(board.ids)))
                } catch {
                    found[key] = .failure(StoreReadFailed(error: error))
                }
            }
            return batch.map { read in
                (found["\(read.gameId)\u{0}\(read.boardId)"] ?? .success([:])).map { entries in
                    var own: [String: StoredEntry] = [:]
                    for id in read.playerIds { own[id] = entries[id] }
                    return own
                }
            }
        }
    }

    /// The stored entries of these players on the board (players without one are left out).
    func entries(gameId: String, boardId: String, playerIds: [String]) async throws -> [String: StoredEntry] {
        switch await reads.submit(Read(gameId: gameId, boardId: boardId, playerIds: playerIds)) {
        case .success(let entries): return entries
        case .failure(let failure): throw failure.error
        }
    }
}
