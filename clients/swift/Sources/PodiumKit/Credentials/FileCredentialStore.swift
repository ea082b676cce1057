import Foundation

/// Keeps each account's credential in its own JSON file, readable and writable by its owner only
/// (mode 600, in a directory of mode 700), written to a temporary file and renamed, so that a
/// crash never leaves half a token. The default where there is no Keychain.
public struct FileCredentialStore: PodiumCredentialStore {
    public let directory: URL

    public init(directory: URL) { self.directory = directory }

    /// `~/.podium/credentials`.
    public static var defaultDirectory: URL {
        URL(fileURLWithPath: NSHomeDirectory(), isDirectory: true)
            .appendingPathComponent(".podium/credentials", isDirectory: true)
    }

    /// The file of `account`: its name is the account with everything but letters, digits, `.`,
    /// `-` and `_` escaped, so that any account (a URL) is one file in the directory.
    public func fileURL(account: String) -> URL {
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_")
        let name = account.addingPercentEncoding(withAllowedCharacters: allowed) ?? "account"
        return directory.appendingPathComponent(name + ".json")
    }

    public func load(account: String) throws -> PodiumStoredCredential? {
        let file = fileURL(account: account)
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        return try JSONDecoder().decode(PodiumStoredCredential.self, from: Data(contentsOf: file))
    }

    public func save(_ credential: PodiumStoredCredential, account: String) throws {
        let manager = FileManager.default
        try manager.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let file = fileURL(account: account)
        let temporary = directory.appendingPathComponent(".\(UUID().uuidString).tmp")
        // Created with mode 600 before the secret is written: never readable by others, not for a moment.
        guard
            manager.createFile(
                atPath: temporary.path, contents: try JSONEncoder().encode(credential),
                attributes: [.posixPermissions: 0o600])
        else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary.path])
        }
        // rename(2) replaces the old file in one step.
        guard rename(temporary.path, file.path) == 0 else {
            let code = errno
            try? manager.removeItem(at: temporary)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
    }

    public func delete(account: String) throws {
        let file = fileURL(account: account)
        if FileManager.default.fileExists(atPath: file.path) { try FileManager.default.removeItem(at: file) }
    }
}
