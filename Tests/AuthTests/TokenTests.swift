import Foundation
import JWTKit
import PodiumMessages
import Testing

@testable import PodiumTokens

@Suite("Session tokens")
struct TokenTests {
    static let key = Array("k".utf8) + Array(repeating: 7, count: 40)

    func issue(_ tokens: SessionTokens, _ kind: TokenKind = .session, expiresAt: Int64 = 2_000_000) async throws
        -> String
    {
        try await tokens.issue(
            kind, playerId: "p1", sessionId: "s1", tokenId: "t1", issuedAt: 1_000_000, expiresAt: expiresAt)
    }

    func code(_ tokens: SessionTokens, _ token: String, as kind: TokenKind, now: Int64) async -> ErrorCode? {
        do {
            _ = try await tokens.verify(token, as: kind, now: now)
            return nil
        } catch {
            return error.code
        }
    }

    @Test("a token verifies as its own kind until it expires")
    func roundTrip() async throws {
        let tokens = await SessionTokens(key: Self.key)
        let token = try await issue(tokens)
        let claims = try await tokens.verify(token, as: .session, now: 1_500_000)
        #expect(claims.playerId == "p1")
        #expect(claims.sid == "s1")
        #expect(claims.expiresAtMilliseconds == 2_000_000)
        #expect(SessionTokens.headerAlgorithm(of: token) == "HS256")
        #expect(await code(tokens, token, as: .session, now: 2_000_000) == .tokenExpired)
        #expect(await code(tokens, token, as: .refresh, now: 1_500_000) == .invalidToken)
    }

    @Test("a token signed with another key is refused")
    func otherKey() async throws {
        let mine = await SessionTokens(key: Self.key)
        let theirs = await SessionTokens(key: Array(repeating: 9, count: 40))
        let forged = try await issue(theirs)
        #expect(await code(mine, forged, as: .session, now: 1_500_000) == .invalidToken)
    }

    @Test("alg none, an algorithm swap and a tampered payload are refused")
    func forgeries() async throws {
        let tokens = await SessionTokens(key: Self.key)
        let token = try await issue(tokens)
        let parts = token.split(separator: ".").map(String.init)
        func b64(_ text: String) -> String {
            Data(text.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        }
        let none = b64(#"{"alg":"none","typ":"JWT"}"#) + "." + parts[1] + "."
        let swapped = b64(#"{"alg":"HS512","typ":"JWT"}"#) + "." + parts[1] + "." + parts[2]
        let rsa = b64(#"{"alg":"RS256","typ":"JWT"}"#) + "." + parts[1] + "." + parts[2]
        let payload = try #require(Data(base64URL: parts[1]))
        let tamperedText = String(decoding: payload, as: UTF8.self).replacingOccurrences(of: "\"p1\"", with: "\"p2\"")
        let tampered = parts[0] + "." + b64(tamperedText) + "." + parts[2]
        for forged in [none, swapped, rsa, tampered, "not-a-token", parts[0] + "." + parts[1]] {
            #expect(await code(tokens, forged, as: .session, now: 1_500_000) == .invalidToken, "accepted \(forged)")
        }
    }
}
