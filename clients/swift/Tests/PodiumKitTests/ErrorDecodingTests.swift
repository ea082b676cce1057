import Foundation
import Testing

@testable import PodiumKit

/// Error replies read into `PodiumError`, over HTTP (RFC 9457 problems) and the WebSocket.
@Suite struct ErrorDecodingTests {
    @Test func anHTTPProblemKeepsEveryPart() {
        let body = Data(
            #"{"code":"unknown_board","detail":"the game has no board 'x'","field":"payload.boardId","requestId":"r-1","status":404,"title":"unknown_board","type":"urn:podium:error:unknown_board"}"#
                .utf8)
        let error = PodiumError.problem(status: 404, body: body, requestId: "fallback", retryAfterHeader: nil)
        #expect(error.code == .unknownBoard)
        #expect(error.status == 404)
        #expect(error.message == "the game has no board 'x'")
        #expect(error.field == "payload.boardId")
        #expect(error.requestId == "r-1")
        #expect(error.retryAfter == nil)
    }

    @Test func retryAfterComesFromTheProblemOrElseTheHeader() {
        let named = PodiumError.problem(
            status: 503, body: Data(#"{"code":"rebuilding","detail":"wait","retryAfterMilliseconds":1000}"#.utf8),
            requestId: nil, retryAfterHeader: "7")
        #expect(named.retryAfter == .milliseconds(1000))
        let header = PodiumError.problem(
            status: 503, body: Data(#"{"code":"service_unavailable","detail":"no auth"}"#.utf8), requestId: "k",
            retryAfterHeader: "2")
        #expect(header.code == .serviceUnavailable)
        #expect(header.retryAfter == .seconds(2))
        #expect(header.requestId == "k")
    }

    @Test func anUnknownCodeKeepsItsRawValue() {
        let error = PodiumError.problem(
            status: 500, body: Data(#"{"code":"quantum_flux","detail":"new in a later server"}"#.utf8), requestId: nil,
            retryAfterHeader: nil)
        #expect(error.code.rawValue == "quantum_flux")
        #expect(error.code == PodiumErrorCode(rawValue: "quantum_flux"))
        #expect(error.code != .internalError)
    }

    @Test func aBodyThatIsNotAProblemStillGivesTheStatus() {
        let error = PodiumError.problem(
            status: 502, body: Data("Bad Gateway".utf8), requestId: "k", retryAfterHeader: nil)
        #expect(error.code.rawValue == "http_502")
        #expect(error.status == 502)
        #expect(error.message == "Bad Gateway")
    }

    @Test func aWebSocketErrorPayload() {
        let message = SocketRules.classify(
            #"{"correlationId":"q7","id":"x","payload":{"code":"rate_limited","message":"slow down","retryAfterMilliseconds":87},"timestamp":1,"type":"error","version":1}"#
        )
        guard case .error(let id, let error) = message else {
            Issue.record("not an error: \(message)")
            return
        }
        #expect(id == "q7")
        #expect(error.code == .rateLimited)
        #expect(error.message == "slow down")
        #expect(error.retryAfter == .milliseconds(87))
        #expect(error.status == nil)
    }

    @Test func codesCompareByRawValueAndEncodeAsStrings() throws {
        #expect(PodiumErrorCode.tokenExpired.rawValue == "token_expired")
        #expect(PodiumErrorCode(rawValue: "id_reused") == .idReused)
        let encoded = try JSONEncoder().encode([PodiumErrorCode.conflict])
        #expect(String(decoding: encoded, as: UTF8.self) == #"["conflict"]"#)
    }
}
