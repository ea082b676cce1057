import Crypto
import Foundation

/// Time-based one-time passwords (RFC 6238 over RFC 4226's HOTP): HMAC-SHA1, 30-second steps,
/// six digits, as every authenticator app makes them. A pure value type: the time is given.
public struct TOTP: Sendable, Equatable {
    /// The shared secret (RFC 4226 asks for at least 128 bits; ``random()`` makes 160).
    public let secret: [UInt8]
    public static let period: Int64 = 30
    public static let digits = 6

    public init(secret: [UInt8]) { self.secret = secret }

    /// A new random 160-bit secret.
    public static func random() -> TOTP {
        var generator = SystemRandomNumberGenerator()
        return TOTP(secret: (0..<20).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// The time step of a Unix time in milliseconds.
    public static func step(at milliseconds: Int64) -> Int64 { milliseconds / 1000 / period }

    /// The code of a time step (RFC 4226 5.3: dynamic truncation of HMAC-SHA1 over the
    /// big-endian counter).
    public func code(step: Int64) -> String {
        var counter = UInt64(bitPattern: step).bigEndian
        let message = withUnsafeBytes(of: &counter) { Data($0) }
        let mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: SymmetricKey(data: secret)))
        let offset = Int(mac[mac.count - 1] & 0x0f)
        let binary =
            (UInt32(mac[offset] & 0x7f) << 24) | (UInt32(mac[offset + 1]) << 16) | (UInt32(mac[offset + 2]) << 8)
            | UInt32(mac[offset + 3])
        let value = binary % 1_000_000
        let text = String(value)
        return String(repeating: "0", count: Self.digits - text.count) + text
    }

    /// The step a code belongs to, if it is the code of the current step or of one step either
    /// side (a clock a little off, a code typed at the turn of a step), and it is later than
    /// `after` (a code is used at most once: RFC 6238 5.2).
    public func matchingStep(_ typedCode: String, at milliseconds: Int64, after lastUsed: Int64?) -> Int64? {
        let typed = typedCode.filter { !$0.isWhitespace }
        guard typed.count == Self.digits, typed.allSatisfy(\.isASCII), typed.allSatisfy(\.isNumber) else { return nil }
        let now = Self.step(at: milliseconds)
        for step in [now, now - 1, now + 1] where step > (lastUsed ?? Int64.min) {
            if Self.constantTimeEqual(code(step: step), typed) { return step }
        }
        return nil
    }

    private static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }

    /// The secret in base32 (RFC 4648, no padding), as authenticator apps take it.
    public var base32: String { Base32.encode(secret) }

    /// The `otpauth://` URI an authenticator app reads from a QR code or a link.
    public func uri(account: String, issuer: String = "Podium") -> String {
        func encoded(_ text: String) -> String {
            text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(.init(charactersIn: "-._~"))) ?? text
        }
        let label = "\(encoded(issuer)):\(encoded(account))"
        return "otpauth://totp/\(label)?secret=\(base32)&issuer=\(issuer)&algorithm=SHA1&digits=6&period=30"
    }
}

/// RFC 4648 base32 (the alphabet A-Z, 2-7), without padding.
public enum Base32 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    public static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                output.append(alphabet[Int((buffer >> UInt32(bits - 5)) & 31)])
                bits -= 5
            }
        }
        if bits > 0 { output.append(alphabet[Int((buffer << UInt32(5 - bits)) & 31)]) }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes of a base32 text (case-insensitive, padding and spaces ignored); nil when it
    /// holds another character.
    public static func decode(_ text: String) -> [UInt8]? {
        var output: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for character in text.uppercased().utf8 where character != UInt8(ascii: "=") && character != UInt8(ascii: " ") {
            guard let value = alphabet.firstIndex(of: character) else { return nil }
            buffer = (buffer << 5) | UInt32(value)
            bits += 5
            if bits >= 8 {
                output.append(UInt8((buffer >> UInt32(bits - 8)) & 0xff))
                bits -= 8
            }
        }
        return output
    }
}
