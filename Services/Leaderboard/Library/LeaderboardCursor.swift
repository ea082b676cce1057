import Foundation
import PodiumMessages

/// A page cursor: the last entry of the page, so the next page starts right after it even if
/// entries above moved. Opaque to clients (base64url); bound to one game, board and scope.
enum LeaderboardCursor {
    static func encode(_ entry: RankIndex.Entry, gameId: String, boardId: String, scope: TimeScope) -> String {
        let text = ["1", gameId, boardId, scope.rawValue, String(entry.value), String(entry.submittedAt), entry.playerId]
            .joined(separator: "|")
        return Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ cursor: String, gameId: String, boardId: String, scope: TimeScope) throws(ErrorReply) -> RankIndex.Entry {
        var base64 = cursor.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64.append("=") }
        guard cursor.utf8.count <= 512, let data = Data(base64Encoded: base64) else { throw malformed }
        let parts = String(decoding: data, as: UTF8.self).split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 7, parts[0] == "1", let value = Int64(parts[4]), let submittedAt = Int64(parts[5]), !parts[6].isEmpty
        else { throw malformed }
        guard parts[1] == gameId, parts[2] == boardId, parts[3] == scope.rawValue else {
            throw ErrorReply(code: .invalidField, message: "this cursor belongs to another board or scope", field: "payload.cursor")
        }
        return RankIndex.Entry(playerId: parts[6], value: value, submittedAt: submittedAt)
    }

    static let malformed = ErrorReply(code: .invalidField, message: "the cursor is malformed", field: "payload.cursor")
}
