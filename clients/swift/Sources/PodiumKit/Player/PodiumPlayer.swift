import Foundation

/// Another player as others see them (GameKit's `GKPlayer`): a stable id and a display name.
public struct PodiumPlayer: Sendable, Hashable, Codable {
    /// The player's stable, opaque id (GameKit's `gamePlayerID`).
    public var playerId: String
    /// Shown to other players; absent where the server could not look it up.
    public var displayName: String?

    public init(playerId: String, displayName: String? = nil) {
        self.playerId = playerId
        self.displayName = displayName
    }
}

/// The local player's own account (docs/PROTOCOL.md 8.10).
public struct PodiumProfile: Sendable, Equatable, Decodable {
    public var playerId: String
    public var displayName: String
    /// Absent for a device's player that has not been linked to a username.
    public var username: String?
    /// Devices whose device login returns this account.
    public var linkedDevices: Int
    public var createdDate: Date

    private enum CodingKeys: String, CodingKey { case playerId, displayName, username, linkedDevices, createdAt }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        playerId = try container.decode(String.self, forKey: .playerId)
        displayName = try container.decode(String.self, forKey: .displayName)
        username = try container.decodeIfPresent(String.self, forKey: .username)
        linkedDevices = try container.decode(Int.self, forKey: .linkedDevices)
        createdDate = Date(milliseconds: try container.decode(Int64.self, forKey: .createdAt))
    }
}

/// The local player's friends and requests (docs/PROTOCOL.md 9.3), each sorted by display name.
public struct PodiumFriendList: Sendable, Equatable, Decodable {
    public var friends: [PodiumPlayer]
    /// Players who asked the local player.
    public var incoming: [PodiumPlayer]
    /// Players the local player asked.
    public var outgoing: [PodiumPlayer]
    /// Players the local player blocked.
    public var blocked: [PodiumPlayer]
}

/// The relation with another player, from the local player's side (docs/PROTOCOL.md 9.1).
public struct PodiumFriendRelation: Sendable, Equatable, Decodable {
    /// A relation's state; unknown ones keep their raw value.
    public struct State: RawRepresentable, Sendable, Hashable, Decodable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(String.self)
        }

        public static let none = State(rawValue: "none")
        public static let outgoingRequest = State(rawValue: "outgoing_request")
        public static let incomingRequest = State(rawValue: "incoming_request")
        public static let friends = State(rawValue: "friends")
        public static let blocked = State(rawValue: "blocked")
    }

    /// The other player.
    public var playerId: String
    public var state: State
}

/// A code to share (docs/PROTOCOL.md 9.5 and 12.11): whoever enters it sends its owner a friend
/// request (`friend`) or joins its time-boxed challenge (`challenge`).
public struct PodiumInvite: Sendable, Equatable, Decodable {
    /// `XXXXX-XXXXX`; case, spaces and hyphens do not matter when it is entered.
    public var code: String
    /// `friend` or `challenge`.
    public var purpose: String
    public var challengeId: String?
    public var gameId: String?
    public var createdDate: Date
    public var expirationDate: Date
    public var revokedDate: Date?
    /// How often it was entered while it worked.
    public var uses: Int

    private enum CodingKeys: String, CodingKey {
        case code, purpose, challengeId, gameId, createdAt, expiresAt, revokedAt, uses
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        code = try container.decode(String.self, forKey: .code)
        purpose = try container.decode(String.self, forKey: .purpose)
        challengeId = try container.decodeIfPresent(String.self, forKey: .challengeId)
        gameId = try container.decodeIfPresent(String.self, forKey: .gameId)
        createdDate = Date(milliseconds: try container.decode(Int64.self, forKey: .createdAt))
        expirationDate = Date(milliseconds: try container.decode(Int64.self, forKey: .expiresAt))
        revokedDate = try container.decodeIfPresent(Int64.self, forKey: .revokedAt).map(Date.init(milliseconds:))
        uses = try container.decode(Int.self, forKey: .uses)
    }
}
