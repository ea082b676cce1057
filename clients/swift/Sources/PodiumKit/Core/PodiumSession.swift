import Foundation

/// A session grant (docs/PROTOCOL.md 8.2): who the player is and the tokens that prove it.
///
/// The session token is sent with every request and lives briefly (15 minutes by default); the
/// refresh token trades it for a new pair (``PodiumClient/refresh()``) and works once. PodiumKit
/// refreshes by itself when the server says `token_expired`.
public struct PodiumSession: Sendable, Equatable, Codable {
    /// The player's stable id.
    public var playerId: String
    public var displayName: String
    /// Absent for a device's player until it is linked to a username.
    public var username: String?
    public var sessionId: String
    public var sessionToken: String
    public var sessionExpiresAt: Date
    public var refreshToken: String
    public var refreshExpiresAt: Date
    /// Whether the request that gave this grant created the account.
    public var created: Bool

    private enum CodingKeys: String, CodingKey {
        case playerId, displayName, username, sessionId, sessionToken, sessionExpiresAt, refreshToken,
            refreshExpiresAt, created
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        playerId = try container.decode(String.self, forKey: .playerId)
        displayName = try container.decode(String.self, forKey: .displayName)
        username = try container.decodeIfPresent(String.self, forKey: .username)
        sessionId = try container.decode(String.self, forKey: .sessionId)
        sessionToken = try container.decode(String.self, forKey: .sessionToken)
        sessionExpiresAt = Date(milliseconds: try container.decode(Int64.self, forKey: .sessionExpiresAt))
        refreshToken = try container.decode(String.self, forKey: .refreshToken)
        refreshExpiresAt = Date(milliseconds: try container.decode(Int64.self, forKey: .refreshExpiresAt))
        created = try container.decodeIfPresent(Bool.self, forKey: .created) ?? false
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(playerId, forKey: .playerId)
        try container.encode(displayName, forKey: .displayName)
        try container.encodeIfPresent(username, forKey: .username)
        try container.encode(sessionId, forKey: .sessionId)
        try container.encode(sessionToken, forKey: .sessionToken)
        try container.encode(sessionExpiresAt.milliseconds, forKey: .sessionExpiresAt)
        try container.encode(refreshToken, forKey: .refreshToken)
        try container.encode(refreshExpiresAt.milliseconds, forKey: .refreshExpiresAt)
        try container.encode(created, forKey: .created)
    }
}

extension Date {
    /// A time of the protocol: milliseconds since the Unix epoch.
    init(milliseconds: Int64) { self.init(timeIntervalSince1970: Double(milliseconds) / 1000) }

    var milliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }
}

extension Duration {
    /// Whole milliseconds, as the protocol counts durations.
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
