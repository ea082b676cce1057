import ArgumentParser

/// `podium admin`: operator actions with the admin key (docs/PROTOCOL.md section 22).
struct AdminCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin",
        abstract: """
            Operator actions (admin key): bans, deletions, exports, sessions, player lookup, scores, board resets, challenges, operator accounts, the audit log.
            """,
        discussion: """
            Every subcommand sends the admin key: --admin-key or $PODIUM_ADMIN_KEY. Each change (and \
            each export) is written to the gateway's audit log (podium admin audit); reads are not. Moving a deployment to PostgreSQL \
            works on the stores themselves, with the stack stopped: podium-data export and import.
            """,
        subcommands: [
            AdminBanCommand.self, AdminUnbanCommand.self, AdminDeleteAccountCommand.self, AdminExportCommand.self,
            AdminOperatorsCommand.self,
            AdminLookupCommand.self, AdminRevokeSessionCommand.self,
            AdminLockoutsCommand.self, AdminUnlockCommand.self, AdminNotifyCommand.self,
            AdminGamesCommand.self, AdminRemoveScoreCommand.self, AdminResetBoardCommand.self,
            AdminArchivesCommand.self,
            AdminDefineBoardCommand.self,
            AdminDefineAchievementCommand.self, AdminDefineChallengeCommand.self, AdminRemoveChallengeCommand.self,
            AdminChallengesCommand.self, AdminEndChallengeCommand.self, AdminAuditCommand.self,
        ])
}
