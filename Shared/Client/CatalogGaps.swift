import PodiumMessages

extension RequestDefinition {
    /// The same request type (its name, access and receipts from the catalog) with another payload
    /// type: for a definition whose catalog payload is looser than what its service reads.
    public func withPayload<Other>(_ type: Other.Type) -> RequestDefinition<Other, Reply> {
        RequestDefinition<Other, Reply>(
            info.type, access: info.access, changesState: info.changesState, keepsReceipt: info.keepsReceipt,
            owner: info.owner)
    }
}

/// What `challenge.candidates` reads (docs/PROTOCOL.md 12): an achievement, or a board and a
/// score. The catalog defines its payload as ``EmptyPayload``, so clients send it through
/// ``ClientRequests/challengeCandidates``.
public struct CandidateQuery: Codable, Sendable, Equatable {
    public var achievementId: String?
    public var boardId: String?
    public var score: Int64?

    public init(achievementId: String) {
        self.achievementId = achievementId
    }

    public init(boardId: String, score: Int64) {
        self.boardId = boardId
        self.score = score
    }
}

/// Catalog definitions retyped where the catalog's payload type is looser than the request.
public enum ClientRequests {
    /// `challenge.candidates` with the payload its service reads.
    public static let challengeCandidates = ChallengeRequests.candidates.withPayload(CandidateQuery.self)
}

/// What `<service>.test-notification` reads: an optional message (docs/PROTOCOL.md). The
/// catalog takes any JSON; clients send it through ``ClientRequests/testNotification(of:)``.
public struct TestNotice: Codable, Sendable, Equatable {
    /// At most 512 bytes; the service's default text without one.
    public var message: String?

    public init(message: String? = nil) { self.message = message }
}

extension ClientRequests {
    /// `<service>.test-notification` with the payload its runtime reads.
    public static func testNotification(of service: String) -> RequestDefinition<TestNotice, TestNotificationReceipt> {
        ServiceRequests.testNotification(of: service).withPayload(TestNotice.self)
    }
}
