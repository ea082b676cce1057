import Achievement
import AchievementPostgres
import AchievementSQLite
import Auth
import AuthPostgres
import AuthSQLite
import Challenge
import ChallengePostgres
import ChallengeSQLite
import Gateway
import GatewayPostgres
import GatewaySQLite
import Leaderboard
import LeaderboardPostgres
import LeaderboardSQLite
import Logging
import PodiumRuntime

/// Each service's store opener with the backend chosen as the executables choose it
/// (``StorageBackend``): PostgreSQL when the settings name a database, else SQLite.
public enum TestStores {
    public static let accounts = StorageBackend.choose(
        sqlite: SQLiteAccountStore.opener, postgres: PostgresAccountStore.opener)
    public static let scores = StorageBackend.choose(
        sqlite: SQLiteLeaderboardStore.opener, postgres: PostgresLeaderboardStore.opener)
    public static let progress = StorageBackend.choose(
        sqlite: SQLiteAchievementStore.opener, postgres: PostgresAchievementStore.opener)
    public static let challenges = StorageBackend.choose(
        sqlite: SQLiteChallengeStore.opener, postgres: PostgresChallengeStore.opener)
    public static let gateway = StorageBackend.choose(sqlite: GatewayStorage.sqlite) { database in
        try await GatewayStorage.postgres(database, logger: Logger(label: "podium.gateway"))
    }
}
