import Challenge
import Foundation
import GRDB
import PodiumMessages

/// Definitions operators changed, in the `definition` table: a row per game and id, its JSON,
/// or `removed`.
extension SQLiteChallengeStore {
    public func operatorDefinitions() async throws -> [OperatorDefinition] {
        try await database.read { db in
            try Row.fetchAll(
                try db.cachedStatement(
                    sql: "SELECT game_id, definition_id, json, removed FROM definition ORDER BY game_id, definition_id")
            ).map { row in
                let json: String = row["json"]
                let removed: Bool = row["removed"]
                return OperatorDefinition(
                    gameId: row["game_id"], definitionId: row["definition_id"],
                    definition: removed ? nil : try WireCodec.decode(ChallengeDefinition.self, from: Data(json.utf8)))
            }
        }
    }

    public func saveDefinition(_ definition: ChallengeDefinition, gameId: String) async throws {
        let json = String(decoding: try WireCodec.encode(definition), as: UTF8.self)
        try await database.write { db in
            try db.cachedStatement(
                sql: """
                    INSERT INTO definition (game_id, definition_id, json, removed) VALUES (?, ?, ?, 0)
                    ON CONFLICT(game_id, definition_id) DO UPDATE SET json = excluded.json, removed = 0
                    """
            ).execute(arguments: [gameId, definition.id, json])
        }
    }

    public func removeDefinition(_ definitionId: String, gameId: String) async throws {
        try await database.write { db in
            try db.cachedStatement(
                sql: """
                    INSERT INTO definition (game_id, definition_id, json, removed) VALUES (?, ?, '{}', 1)
                    ON CONFLICT(game_id, definition_id) DO UPDATE SET json = '{}', removed = 1
                    """
            ).execute(arguments: [gameId, definitionId])
        }
    }
}
