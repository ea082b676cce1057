/// The payload and the reply of `challenge.admin.define` (docs/PROTOCOL.md 22.6).
public struct ChallengeDefinitionChange: Codable, Sendable, Equatable {
    public var definition: ChallengeDefinition
    public init(definition: ChallengeDefinition) { self.definition = definition }
}

/// The payload of `challenge.admin.remove`.
public struct ChallengeDefinitionTarget: Codable, Sendable, Equatable {
    public var definitionId: String
    public init(definitionId: String) { self.definitionId = definitionId }
}

/// The reply to `challenge.admin.remove`.
public struct ChallengeDefinitionRemoval: Codable, Sendable, Equatable {
    public var definitionId: String
    public var removed: Bool
    public init(definitionId: String, removed: Bool) {
        self.definitionId = definitionId
        self.removed = removed
    }
}
