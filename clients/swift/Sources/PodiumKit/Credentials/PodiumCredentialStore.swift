import Foundation

/// What PodiumKit keeps between launches: enough to resume the session with one refresh
/// (docs/PROTOCOL.md 8.6). The session token is never stored; it lives minutes.
public struct PodiumStoredCredential: Sendable, Equatable, Codable {
    public var playerId: String
    /// Secret: whoever holds it can act as the player until it is used or expires.
    public var refreshToken: String
    public var refreshExpiresAt: Date

    public init(playerId: String, refreshToken: String, refreshExpiresAt: Date) {
        self.playerId = playerId
        self.refreshToken = refreshToken
        self.refreshExpiresAt = refreshExpiresAt
    }
}

/// Where the refresh token is kept: the Keychain on Apple platforms (``KeychainCredentialStore``),
/// a file readable by its owner only elsewhere (``FileCredentialStore``), or your own.
///
/// PodiumKit saves after every new grant (a refresh token works once, so the new one is saved
/// before it is used) and deletes on logout or when the session ended for good. `account` names
/// the server (``PodiumConfiguration/credentialAccount``).
public protocol PodiumCredentialStore: Sendable {
    func load(account: String) throws -> PodiumStoredCredential?
    func save(_ credential: PodiumStoredCredential, account: String) throws
    func delete(account: String) throws
}

/// The platform's store.
public enum PodiumCredentials {
    /// The Keychain on Apple platforms; a ``FileCredentialStore`` in `~/.podium/credentials` elsewhere.
    public static var platformDefault: any PodiumCredentialStore {
        #if canImport(Security)
            KeychainCredentialStore()
        #else
            FileCredentialStore(directory: FileCredentialStore.defaultDirectory)
        #endif
    }
}

/// Keeps credentials in memory only: for tests, and for games that log in every launch.
public final class InMemoryCredentialStore: PodiumCredentialStore {
    private let credentials = Locked<[String: PodiumStoredCredential]>([:])

    public init() {}

    public func load(account: String) throws -> PodiumStoredCredential? { credentials.get()[account] }

    public func save(_ credential: PodiumStoredCredential, account: String) throws {
        credentials.withLock { $0[account] = credential }
    }

    public func delete(account: String) throws {
        credentials.withLock { $0[account] = nil }
    }
}
