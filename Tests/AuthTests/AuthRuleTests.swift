import Configuration
import Foundation
import PodiumMessages
import PodiumTokens
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

    @Test(
        "usernames with spaces, control or invisible characters, or bad lengths are refused",
        arguments: [
            "ab", String(repeating: "a", count: 33), "has space", "tab\tname", "nul\u{0}name", "zero\u{200B}width",
            "emoji😀", "semi;colon",
        ])
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
        throttle.clear("u")
        #expect(throttle.retryAfter("u", now: 1001) == nil)
    }
}

@Suite("Login guard")
struct LoginGuardTests {
    static let limits = LoginGuard.Limits(
        accountAndAddress: 3, account: 6, address: 10, windowMilliseconds: 1000, knownMilliseconds: 10_000)

    @Test(
        "one address guessing one account is stopped; the same address's other players and the account elsewhere are not"
    )
    func accountAndAddress() {
        var guarded = LoginGuard(limits: Self.limits)
        for time in 0..<3 as Range<Int64> {
            #expect(guarded.check(account: "victim", address: "10.0.0.1", now: time) == nil)
            guarded.recordFailure(account: "victim", address: "10.0.0.1", now: time)
        }
        #expect(
            guarded.check(account: "victim", address: "10.0.0.1", now: 3)
                == .init(scope: .accountAndAddress, retryAfterMilliseconds: 997))
        #expect(
            guarded.check(account: "bystander", address: "10.0.0.1", now: 3) == nil, "a player behind the same address")
        #expect(guarded.check(account: "victim", address: "10.0.0.2", now: 3) == nil, "the owner elsewhere")
        #expect(
            guarded.check(account: "victim", address: "10.0.0.1", now: 1000) == nil, "the first failure left the window"
        )
    }

    @Test("guessing one account from many addresses is stopped at the account limit, except where it logged in lately")
    func accountAcrossAddresses() {
        var guarded = LoginGuard(limits: Self.limits)
        guarded.recordSuccess(account: "victim", address: "home", now: 0)
        for index in 0..<6 {
            let address = "bot\(index)"
            #expect(guarded.check(account: "victim", address: address, now: 10) == nil)
            guarded.recordFailure(account: "victim", address: address, now: 10)
        }
        #expect(guarded.check(account: "victim", address: "bot99", now: 11)?.scope == .account)
        #expect(guarded.check(account: "victim", address: "home", now: 11) == nil, "the owner's own address is exempt")
        #expect(guarded.check(account: "victim", address: "bot99", now: 1010) == nil, "the window passed")
        for index in 0..<6 { guarded.recordFailure(account: "victim", address: "bot\(index)", now: 10_005) }
        #expect(
            guarded.check(account: "victim", address: "home", now: 10_006)?.scope == .account,
            "no longer a recent address")
    }

    @Test("one address trying many accounts is stopped at the address limit; players known there still log in")
    func sharedAddress() {
        var guarded = LoginGuard(limits: Self.limits)
        guarded.recordSuccess(account: "student", address: "school", now: 0)
        for index in 0..<9 {
            guarded.recordFailure(account: "name\(index)", address: "school", now: 5)
        }
        #expect(guarded.check(account: "newcomer", address: "school", now: 6) == nil, "9 of 10")
        guarded.recordFailure(account: "name9", address: "school", now: 6)
        #expect(guarded.check(account: "newcomer", address: "school", now: 7)?.scope == .address)
        #expect(guarded.check(account: "student", address: "school", now: 7) == nil, "known at this address")
        #expect(guarded.check(account: "newcomer", address: "elsewhere", now: 7) == nil)
    }

    @Test("a success clears the pair's count but not the account's, so the owner's logins give a guesser no tries")
    func successKeepsAccountCount() {
        var guarded = LoginGuard(limits: Self.limits)
        for index in 0..<5 { guarded.recordFailure(account: "victim", address: "bot\(index)", now: 0) }
        guarded.recordFailure(account: "victim", address: "home", now: 0)
        guarded.recordSuccess(account: "victim", address: "home", now: 1)
        #expect(guarded.check(account: "victim", address: "bot0", now: 2)?.scope == .account)
        #expect(guarded.check(account: "victim", address: "home", now: 2) == nil)
    }

    @Test("operators see each limit reached, narrowed by account or address, and clearing one lets its logins through")
    func lockoutsAndClear() {
        var guarded = LoginGuard(limits: Self.limits)
        for _ in 0..<3 { guarded.recordFailure(account: "victim", address: "10.0.0.1", now: 0) }
        for index in 0..<10 { guarded.recordFailure(account: "n\(index)", address: "10.0.0.9", now: 0) }
        let all = guarded.lockouts(account: nil, address: nil, now: 1)
        #expect(all.map(\.scope) == [.accountAndAddress, .address])
        #expect(
            all[0].account == "victim" && all[0].address == "10.0.0.1" && all[0].failures == 3
                && all[0].retryAfterMilliseconds == 999)
        #expect(guarded.lockouts(account: "victim", address: nil, now: 1).count == 1)
        #expect(guarded.lockouts(account: nil, address: "10.0.0.9", now: 1).map(\.scope) == [.address])
        #expect(guarded.lockouts(account: "nobody", address: nil, now: 1).isEmpty)
        #expect(guarded.lockouts(account: nil, address: nil, now: 1000).isEmpty, "all aged out")
        #expect(guarded.clear(account: "victim", address: nil) == 2, "the account's count and its pair's")
        #expect(guarded.check(account: "victim", address: "10.0.0.1", now: 2) == nil)
        #expect(guarded.clear(account: nil, address: "10.0.0.9") == 11, "the address's count and its ten pairs'")
        #expect(guarded.check(account: "someone", address: "10.0.0.9", now: 2) == nil)
        #expect(guarded.clear(account: "victim", address: nil) == 0, "nothing left to clear")
    }
}

@Suite("Login settings")
struct LoginSettingsTests {
    @Test("the PODIUM_LOGIN_* settings are read with their defaults and refused out of range")
    func settings() throws {
        let defaults = try AuthConfiguration.loginLimits(ConfigReader(provider: InMemoryProvider(values: [:])))
        #expect(defaults == LoginGuard.Limits())
        #expect(defaults.accountAndAddress == 5 && defaults.account == 20 && defaults.address == 300)
        let set = try AuthConfiguration.loginLimits(
            ConfigReader(
                provider: InMemoryProvider(values: ["account.failures": 50, "address.failures": 5000, "window.s": 600]))
        )
        #expect(set.account == 50 && set.address == 5000 && set.windowMilliseconds == 600_000)
        #expect(throws: (any Error).self) {
            try AuthConfiguration.loginLimits(ConfigReader(provider: InMemoryProvider(values: ["account.failures": 0])))
        }
        #expect(throws: (any Error).self) {
            try AuthConfiguration.loginLimits(
                ConfigReader(provider: InMemoryProvider(values: ["account.address.failures": 101])))
        }
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
