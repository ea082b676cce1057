/// The achievement service's requests (docs/PROTOCOL.md 11).
public enum AchievementRequests {
    public static let report = RequestDefinition<ProgressReportBatch, ProgressReportReply>(
        "achievement.report", access: .signedIn, keepsReceipt: true)
    public static let list = RequestDefinition<EmptyPayload, AchievementList>(
        "achievement.list", access: .signedIn)
    public static let definitions = RequestDefinition<EmptyPayload, AchievementDefinitionList>(
        "achievement.definitions", access: .signedIn)
    public static let reset = RequestDefinition<
        AchievementResetConfirmation, AchievementResetReceipt
    >(
        "achievement.reset", access: .signedIn, changesState: true)
    /// What an event in the log did to achievements (the gateway, for `receipt.get`).
    public static let eventEffects = RequestDefinition<ReceiptLookup, EventEffects>(
        "achievement.event-effects", access: .service)

    // Operators.
    public static let rebuild = RequestDefinition<RebuildRequest, RebuildReport>(
        "achievement.admin.rebuild", access: .operator, changesState: true)
    public static let define = RequestDefinition<
        AchievementDefinitionChange, AchievementDefinitionChange
    >(
        "achievement.admin.define", access: .operator, changesState: true)

    /// Every achievement request type.
    /// The service's part of a player's export (`account.export`), asked by the gateway.
    public static let export = RequestDefinition<ExportTarget, AchievementExport>(
        "achievement.export", access: .service)

    public static let all: [RequestInfo] = [
        report.info, list.info, definitions.info, reset.info, eventEffects.info, rebuild.info,
        define.info, export.info,
    ]
}
