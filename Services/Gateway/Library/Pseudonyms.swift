import Foundation

/// How the gateway's logs keep a deleted player's records without the player (docs/PROTOCOL.md
/// 8.14): every occurrence of the player's id in a stored envelope or payload is replaced by the
/// deletion's pseudonym (`deleted-<random>`, linked to the player nowhere). Player ids are random
/// UUIDs, so an occurrence is never a coincidence.
public enum Pseudonyms {
    /// `data` with every occurrence of `playerId` replaced by `pseudonym` (as UTF-8 text).
    public static func replacing(_ playerId: String, with pseudonym: String, in data: Data) -> Data {
        guard !playerId.isEmpty, let text = String(data: data, encoding: .utf8), text.contains(playerId) else {
            return data
        }
        return Data(text.replacingOccurrences(of: playerId, with: pseudonym).utf8)
    }

    /// `text` with every occurrence of `playerId` replaced by `pseudonym`.
    public static func replacing(_ playerId: String, with pseudonym: String, in text: String) -> String {
        text.replacingOccurrences(of: playerId, with: pseudonym)
    }
}
