import Foundation
import PodiumMessages

/// A page cursor: the last entry of the page, so the next page starts right after it even if
/// entries above moved. Opaque to clients (base64url); bound to one game, board and scope.
enum LeaderboardCursor {
    static func encode(_ entry: RankIndex.Entry, gameId: String, boardId: String, scope: TimeScope) -> String {
        let text = [
            "1", gameId, boardId, scope.rawValue, String(entry.value), String(entry.submittedAt), entry.playerId,
        ]
        .joined(separator: "|")
        // base64url without padding, byte by byte (Foundation's string replacing cost a sixth
        // of the leaderboard's CPU under top-10 load).
        var encoded = Data(text.utf8).base64EncodedData()
        while encoded.last == UInt8(ascii: "=") { encoded.removeLast() }
        for index in encoded.indices {
            switch encoded[index] {
            case UInt8(ascii: "+"): encoded[index] = UInt8(ascii: "-")
            case UInt8(ascii: "/"): encoded[index] = UInt8(ascii: "_")
            default: break
            }
        }
        return String(decoding: encoded, as: UTF8.self)
    }

    static func decode(_ cursor: String, gameId: String, boardId: String, scope: TimeScope) throws(ErrorReply)
        -> RankIndex.Entry
    {
        guard cursor.utf8.count <= 512 else { throw malformed }
        var base64 = Data(
            cursor.utf8.map { byte in
                switch byte {
                case UInt8(ascii: "-"): UInt8(ascii: "+")
                case UInt8(ascii: "_"): UInt8(ascii: "/")
                default: byte
                }
            })
        while base64.count % 4 != 0 { base64.append(UInt8(ascii: "=")) }
        guard let data = Data(base64Encoded: base64) else { throw malformed }
        let parts = String(decoding: data, as: UTF8.self).split(separator: "|", omittingEmptySubsequences: false).map(
            String.init)
        guard parts.count == 7, parts[0] == "1", let value = Int64(parts[4]), let submittedAt = Int64(parts[5]),
            !parts[6].isEmpty
        else { throw malformed }
        guard parts[1] == gameId, parts[2] == boardId, parts[3] == scope.rawValue else {
            throw ErrorReply(
                code: .invalidField, message: "this cursor belongs to another board or scope", field: "payload.cursor")
        }
        return RankIndex.Entry(playerId: parts[6], value: value, submittedAt: submittedAt)
    }

    static let malformed = ErrorReply(code: .invalidField, message: "the cursor is malformed", field: "payload.cursor")
}
