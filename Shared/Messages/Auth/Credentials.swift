/// `auth.register`: a new account with a username and password.
public struct Registration: Codable, Sendable, Equatable {
    public var username: String
    public var password: String
    /// Shown to other players; defaults to the username.
    public var displayName: String?

    public init(username: String, password: String, displayName: String? = nil) {
        self.username = username
        self.password = password
        self.displayName = displayName
    }
}

/// `auth.login`: log in with a username and password.
public struct PasswordLogin: Codable, Sendable, Equatable {
    public var username: String
    public var password: String

    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }
}

/// `auth.device-login`: the anonymous local player of a device; creates the account the first time.
public struct DeviceLogin: Codable, Sendable, Equatable {
    /// A stable id the game keeps on the device (8-128 printable ASCII characters).
    public var deviceId: String
    /// Display name for a new account.
    public var displayName: String?

    public init(deviceId: String, displayName: String? = nil) {
        self.deviceId = deviceId
        self.displayName = displayName
    }
}

/// `auth.link`: gives the logged-in (device) account a username and password.
public struct AccountLink: Codable, Sendable, Equatable {
    public var username: String
    public var password: String

    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }
}

/// `auth.refresh`: trades a refresh token for a new session token and a new refresh token.
public struct SessionRefresh: Codable, Sendable, Equatable {
    public var refreshToken: String

    public init(refreshToken: String) { self.refreshToken = refreshToken }
}

/// `auth.revoke`: ends one of the player's sessions, or all of them.
public struct SessionRevocation: Codable, Sendable, Equatable {
    /// The session to end; absent with `allSessions` true ends every session.
    public var sessionId: String?
    public var allSessions: Bool?

    public init(sessionId: String? = nil, allSessions: Bool? = nil) {
        self.sessionId = sessionId
        self.allSessions = allSessions
    }
}

/// `auth.display-name`: changes the player's display name.
public struct DisplayNameChange: Codable, Sendable, Equatable {
    public var displayName: String

    public init(displayName: String) { self.displayName = displayName }
}
