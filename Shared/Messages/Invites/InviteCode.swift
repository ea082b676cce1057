/// A short code a player shares so that others can send them a friend request or join their
/// challenge without knowing their player id (docs/PROTOCOL.md 9.5).
///
/// Ten characters from an alphabet of 30 without look-alikes (no `0 O 1 I L U`), written
/// `XXXXX-XXXXX`; case, spaces and hyphens do not matter when one is entered. 30^10 ≈ 5.9 × 10^14
/// codes (about 49 bits), drawn from the system's secure random source.
public struct InviteCode: Hashable, Sendable, CustomStringConvertible {
    /// The ten characters, upper case, without the hyphen.
    public let characters: String

    public static let alphabet = Array("23456789ABCDEFGHJKMNPQRSTVWXYZ")
    public static let length = 10

    /// A new random code.
    public static func random() -> InviteCode {
        var generator = SystemRandomNumberGenerator()
        return InviteCode(
            characters: String(
                (0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }))
    }

    private init(characters: String) { self.characters = characters }

    /// The code a player typed, or nil when it cannot be one: after dropping spaces and hyphens
    /// and upper-casing, exactly ten characters of the alphabet.
    public init?(entered text: String) {
        guard text.utf8.count <= 64 else { return nil }
        let kept = text.uppercased().filter { $0 != "-" && $0 != " " }
        guard kept.count == Self.length, kept.allSatisfy({ Self.alphabet.contains($0) }) else { return nil }
        characters = kept
    }

    /// `XXXXX-XXXXX`, as shown to players.
    public var description: String {
        "\(characters.prefix(5))-\(characters.suffix(5))"
    }
}
