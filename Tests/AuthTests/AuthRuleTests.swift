import Foundation
import PodiumMessages
import Testing

@testable import Auth

@Suite("Account rules")
struct AccountRuleTests {
    @Test("usernames are normalized and compared case-insensitively")
    func normalization() throws {
        let plain = try AccountRules.validUsername("Max_01")
        let wide = try AccountRules.validUsername("Ｍａｘ_01")
        let upper = try AccountRules.validUsername("MAX_01")
        #expect(plain.key == wide.key)
        #expect(plain.key == upper.key)
        #expect(plain.display == "Max_01")
        #expect(wide.display == "Max_01", "NFKC folds full-width letters")
        #expect(try AccountRules.validUsername("Zoë.fan").key == "zoë.fan")
    }

    @Test("usernames with spaces, control or invisible characters, or bad lengths are refused",
          arguments: ["ab", String(repeating: "a", count: 33), "has space", "tab\tname", "nul\u{0}name", "zero\u{200B}width", "emoji😀", "semi;colon"])
    func refusedUsernames(name: String) {
        #expect(throws: ErrorReply.self) { try AccountRules.validUsername(name) }
        do { _ = try AccountRules.validUsername(name) } catch { #expect(error.code == .invalidUsername) }
    }

    @Test("passwords need 8 to 256 characters")
    func passwords() {
        #expect(throws: ErrorReply.self) { try AccountRules.checkPassword("short") }
        #expect(throws: ErrorReply.self) { try AccountRules.checkPassword(String(repeating: "p", count: 257)) }
        #expect(throws: Never.self) { try AccountRules.checkPassword("eight ch") }
    }

    @Test("device ids and display names are bounded")
    func deviceAndDisplay() throws {
        #expect(throws: ErrorReply.self) { try AccountRules.checkDeviceID("short") }
        #expect(throws: ErrorReply.self) { try AccountRules.checkDeviceID("has space in it") }
        #expect(throws: Never.self) { try AccountRules.checkDeviceID("device-0001") }
        #expect(try AccountRules.validDisplayName("  Ace  ") == "Ace")
        #expect(throws: ErrorReply.self) { try AccountRules.validDisplayName("   ") }
        #expect(throws: ErrorReply.self) { try AccountRules.validDisplayName("bell\u{7}") }
    }
}

@Suite("Login throttle")
struct LoginThrottleTests {
    @Test("the limit within the window blocks, with a retry-after until the oldest failure ages out")
    func slidingWindow() {
        var throttle = LoginThrottle(limit: 3, windowMilliseconds: 1000)
        for time in [0, 100, 200] as [Int64] {
            #expect(throttle.retryAfter("u", now: time) == nil)
            throttle.recordFailure("u", now: time)
        }
        #expect(throttle.retryAfter("u", now: 300) == 700)
        #expect(throttle.retryAfter("other", now: 300) == nil)
        #expect(throttle.retryAfter("u", now: 1000) == nil, "the first failure left the window")
        throttle.recordFailure("u", now: 1000)
        #expect(throttle.retryAfter("u", now: 1001) == 99)
        throttle.recordSuccess("u")
        #expect(throttle.retryAfter("u", now: 1001) == nil)
    }
}

@Suite("Password hashing")
struct PasswordHasherTests {
    @Test("scrypt hashes are salted and verify only the right password")
    func hashing() async throws {
        let hasher = PasswordHasher(cost: .testing)
        let first = try await hasher.hash("correct horse")
        let second = try await hasher.hash("correct horse")
        #expect(first != second, "each hash has its own salt")
        #expect(first.hasPrefix("scrypt$1024$8$1$"))
        #expect(!first.contains("correct horse"))
        #expect(try await hasher.verify("correct horse", against: first))
        #expect(try await hasher.verify("correct horse", against: second))
        #expect(try await !hasher.verify("correct horsf", against: first))
        #expect(try await !hasher.verify("correct horse", against: "scrypt$garbage"))
    }
}

@Suite("Auth configuration")
struct AuthConfigurationTests {
    @Test("the token key is required outside development mode, and the development key is refused there")
    func tokenKeyPolicy() throws {
        #expect(throws: (any Error).self) { try AuthConfiguration.tokenKey(nil, developmentMode: false) }
        #expect(throws: (any Error).self) { try AuthConfiguration.tokenKey("too short", developmentMode: false) }
        #expect(throws: (any Error).self) { try AuthConfiguration.tokenKey("too short", developmentMode: true) }
        #expect(throws: (any Error).self) {
            try AuthConfiguration.tokenKey("podium-development-token-key--not-for-production", developmentMode: false)
        }
        let strong = String(repeating: "q", count: 32)
        #expect(try AuthConfiguration.tokenKey(strong, developmentMode: false) == Array(strong.utf8))
        #expect(try AuthConfiguration.tokenKey(nil, developmentMode: true).count >= 32)
    }
}
