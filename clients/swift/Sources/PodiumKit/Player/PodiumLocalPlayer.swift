import Foundation

/// The player on this device, shaped like GameKit's `GKLocalPlayer`: authenticate once, then
/// load and submit through the GameKit-shaped types (``PodiumLeaderboard``, ``PodiumAchievement``,
/// ``PodiumChallenge``), manage friends and the inbox, and listen on a ``PodiumSocket``.
///
/// ```swift
/// let player = PodiumLocalPlayer(configuration: PodiumConfiguration(baseURL: url, gameId: "dash"))
/// try await player.authenticate(.device(id: deviceId))
/// ```
///
/// Unlike `GKLocalPlayer.local` it is not a singleton: keep the one your game makes (several can
/// exist side by side, one per account, as in tests). Its properties are read without `await`.
public final class PodiumLocalPlayer: Sendable {
    /// How to authenticate (GameKit's `authenticateHandler` does one of these for you).
    public enum Authentication: Sendable {
        /// The device's anonymous player (docs/PROTOCOL.md 8.5): the first login with a device id
        /// creates the account, later ones return it. Use a random id kept on the device.
        case device(id: String, displayName: String? = nil)
        /// A new account with a username and password (8.3).
        case register(username: String, password: String, displayName: String? = nil)
        /// An existing account (8.4).
        case login(username: String, password: String)
        /// The session kept in the credential store by an earlier launch, resumed with one refresh.
        case storedSession
    }

    /// The connection to the server, for what the GameKit-shaped types do not cover
    /// (``PodiumClient/call(_:gameId:payload:idempotencyKey:)``).
    public let client: PodiumClient

    public init(configuration: PodiumConfiguration) {
        client = PodiumClient(configuration: configuration)
    }

    public var configuration: PodiumConfiguration { client.configuration }
    /// The game of the configuration: every game request is about it.
    public var gameId: String { client.configuration.gameId }

    /// Whether a session is open (GameKit's `isAuthenticated`).
    public var isAuthenticated: Bool { client.currentSession != nil }
    /// The player's stable id (GameKit's `gamePlayerID`); nil before authenticating.
    public var playerId: String? { client.currentSession?.playerId }
    public var displayName: String? { client.currentSession?.displayName }
    public var username: String? { client.currentSession?.username }
    /// The player as others see them.
    public var player: PodiumPlayer? {
        client.currentSession.map { PodiumPlayer(playerId: $0.playerId, displayName: $0.displayName) }
    }

    /// Logs in (or creates the account) and keeps the session, and its refresh token in the
    /// credential store.
    @discardableResult
    public func authenticate(_ method: Authentication) async throws -> PodiumSession {
        switch method {
        case .device(let id, let displayName):
            return try await client.authenticate(
                .post(
                    "sessions", "device",
                    body: .compact(["deviceId": .string(id), "displayName": displayName.map(PodiumJSON.string)])))
        case .register(let username, let password, let displayName):
            return try await client.authenticate(
                Endpoint.post(
                    "accounts",
                    body: .compact([
                        "username": .string(username), "password": .string(password),
                        "displayName": displayName.map(PodiumJSON.string),
                    ])
                ).resend(.onlyIfNotApplied))
        case .login(let username, let password):
            return try await client.authenticate(
                Endpoint.post("sessions", body: ["username": .string(username), "password": .string(password)])
                    .resend(.onlyIfNotApplied))
        case .storedSession:
            return try await client.restoreSession()
        }
    }

    /// Ends the session on the server and forgets it, here and in the credential store.
    public func logout() async throws { try await client.logout() }

    /// The player's own account.
    public func loadProfile() async throws -> PodiumProfile { try await client.send(.get("me")) }

    /// Changes the name other players see.
    @discardableResult
    public func setDisplayName(_ displayName: String) async throws -> PodiumProfile {
        try await client.send(.post("me", "display-name", body: ["displayName": .string(displayName)]))
    }

    /// Gives a device's player a username and password, to log in elsewhere too (8.7).
    @discardableResult
    public func link(username: String, password: String) async throws -> PodiumProfile {
        try await client.send(
            .post("me", "link", body: ["username": .string(username), "password": .string(password)]))
    }

    /// The notification inbox of the configured game (docs/PROTOCOL.md 14.5).
    public var inbox: PodiumInbox { PodiumInbox(player: self, gameId: gameId) }

    /// A WebSocket for the player's live notifications in `games` (the configured game by
    /// default). Call ``PodiumSocket/connect()`` to open it. With `catchUpFromInbox` (the
    /// default), what the inbox kept while the socket was reconnecting is passed on too.
    public func makeSocket(games: [String]? = nil, catchUpFromInbox: Bool = true) -> PodiumSocket {
        PodiumSocket(client: client, games: games ?? [gameId], catchUpFromInbox: catchUpFromInbox)
    }
}
