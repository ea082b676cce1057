import Foundation
import PodiumMessages

/// What usernames, passwords, display names and device ids must look like.
///
/// Usernames are compared after Unicode normalization (NFKC) and lowercasing, so `Ｍａｘ`,
/// `max` and `MAX` are one account.
public enum AccountRules {
    public static let usernameLength = 3...32
    public static let passwordLength = 8...256
    public static let displayNameLength = 1...64
    public static let deviceIDLength = 8...128

    /// The normalized form a username is shown as (NFKC), or an error.
    public static func validUsername(_ raw: String) throws(ErrorReply) -> (display: String, key: String) {
        let display = raw.precomposedStringWithCompatibilityMapping
        let count = display.count
        guard usernameLength.contains(count) else {
            throw ErrorReply(
                code: .invalidUsername,
                message: "usernames are \(usernameLength.lowerBound)-\(usernameLength.upperBound) characters",
                field: "payload.username")
        }
        for scalar in display.unicodeScalars {
            let properties = scalar.properties
            let allowed =
                properties.isAlphabetic || properties.numericType != nil || "._-".unicodeScalars.contains(scalar)
            guard allowed, !properties.isWhitespace, properties.generalCategory != .control,
                properties.generalCategory != .format
            else {
                throw ErrorReply(
                    code: .invalidUsername,
                    message: "usernames use letters, digits, '.', '_' and '-' only (no spaces or control characters)",
                    field: "payload.username")
            }
        }
        return (display, display.lowercased().precomposedStringWithCompatibilityMapping)
    }

    /// Checks a password's length: 8-256 characters and at most 1024 bytes of UTF-8.
    public static func checkPassword(_ password: String) throws(ErrorReply) {
        guard passwordLength.contains(password.count), password.utf8.count <= 1024 else {
            throw ErrorReply(
                code: .invalidPassword,
                message: "passwords are \(passwordLength.lowerBound)-\(passwordLength.upperBound) characters",
                field: "payload.password")
        }
    }

    /// A display name: 1-64 characters, no control characters, trimmed.
    public static func validDisplayName(_ raw: String) throws(ErrorReply) -> String {
        let name = raw.precomposedStringWithCompatibilityMapping.trimmingCharacters(in: .whitespacesAndNewlines)
        guard displayNameLength.contains(name.count),
            !name.unicodeScalars.contains(where: {
                $0.properties.generalCategory == .control || $0.properties.generalCategory == .format
            })
        else {
            throw ErrorReply(
                code: .invalidField, message: "display names are 1-64 characters without control characters",
                field: "payload.displayName")
        }
        return name
    }

    /// A device id: 8-128 printable ASCII characters.
    public static func checkDeviceID(_ deviceID: String) throws(ErrorReply) {
        guard deviceIDLength.contains(deviceID.utf8.count), deviceID.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw ErrorReply(
                code: .invalidField, message: "device ids are 8-128 printable ASCII characters",
                field: "payload.deviceId")
        }
    }

    /// A LIKE pattern for names starting with `prefix`, its own `%`, `_` and backslash taken
    /// literally (escaped with a backslash: `ESCAPE` in SQLite, the default in PostgreSQL).
    public static func likePattern(prefix: String) -> String {
        prefix.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_") + "%"
    }
}
