import PodiumMessages
import Testing

@testable import Auth

/// What a ban must look like and when it holds: pure rules, no database.
@Suite("Ban rules")
struct BanRulesTests {
    @Test("a reason is 1-500 characters, trimmed, without control characters")
    func reasons() throws {
        #expect(try BanRules.validReason("  cheating  ") == "cheating")
        #expect(try BanRules.validReason(String(repeating: "é", count: 500)).count == 500)
        for bad in ["", "   ", String(repeating: "x", count: 501), "two\u{7}bells"] {
            #expect(throws: ErrorReply.self, "\(bad.prefix(20))") { try BanRules.validReason(bad) }
        }
        do {
            _ = try BanRules.validReason("")
        } catch {
            #expect(error.code == .invalidField && error.field == "payload.reason")
        }
    }

    @Test("an end must be in the future; none means until unbanned")
    func ends() throws {
        #expect(try BanRules.validEnd(nil, now: 1000) == nil)
        #expect(try BanRules.validEnd(1001, now: 1000) == 1001)
        for bad: Int64 in [1000, 999, 0, -5] {
            do {
                _ = try BanRules.validEnd(bad, now: 1000)
                Issue.record("an end of \(bad) at 1000 was accepted")
            } catch {
                #expect(error.code == .invalidField && error.field == "payload.until")
            }
        }
    }

    @Test("a ban holds until its end, forever without one; its refusal is player_banned with the reason")
    func holding() {
        let open = PlayerRecord.Ban(reason: "spam", bannedAt: 10, until: nil)
        let timed = PlayerRecord.Ban(reason: "cheating", bannedAt: 10, until: 2000)
        #expect(BanRules.holds(open, now: 1 << 50))
        #expect(BanRules.holds(timed, now: 1999))
        #expect(!BanRules.holds(timed, now: 2000))
        #expect(!BanRules.holds(nil, now: 0))
        #expect(timed.refusal.code == .playerBanned)
        #expect(timed.refusal.message.contains("cheating") && timed.refusal.message.contains("until 1970"))
        #expect(open.refusal.message == "this player is banned: spam")
    }
}
