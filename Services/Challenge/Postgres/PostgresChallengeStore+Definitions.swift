import Challenge
import Foundation
import PodiumMessages
import PostgresNIO

/// Definitions operators changed, in the `definition` table (as in SQLite).
extension PostgresChallengeStore {
    public func operatorDefinitions() async throws -> [OperatorDefinition] {
        let logger = database.logger
        return try await database.read { connection in
            var result: [OperatorDefinition] = []
            for try await (gameId, definitionId, json, removed) in try await connection.query(
                "SELECT game_id, definition_id, json, removed FROM definition ORDER BY game_id, definition_id",
                logger: logger
            ).decode((String, String, String, Bool).self) {
                result.append(
                    OperatorDefinition(
                        gameId: gameId, definitionId: definitionId,
                        definition: removed
                            ? nil : try WireCodec.decode(ChallengeDefinition.self, from: Data(json.utf8))))
            }
            return result
        }
    }

    public func saveDefinition(_ definition: ChallengeDefinition, gameId: String) async throws {
        let json = String(decoding: try WireCodec.encode(definition), as: UTF8.self)
        let logger = database.logger
        try await database.transaction { connection in
            try await connection.query(
                """
                INSERT INTO definition (game_id, definition_id, json, removed) VALUES (\(gameId), \(definition.id), \(json), false)
                ON CONFLICT (game_id, definition_id) DO UPDATE SET json = excluded.json, removed = false
                """, logger: logger)
        }
    }

    public func removeDefinition(_ definitionId: String, gameId: String) async throws {
        let logger = database.logger
        try await database.transaction { connection in
            try await connection.query(
                """
                INSERT INTO definition (game_id, definition_id, json, removed) VALUES (\(gameId), \(definitionId), '{}', true)
                ON CONFLICT (game_id, definition_id) DO UPDATE SET json = '{}', removed = true
                """, logger: logger)
        }
    }
}
