import Leaderboard
import LeaderboardPostgres
import LeaderboardSQLite
import PodiumOperations
import PodiumRuntime

// The backend is chosen here: PostgreSQL when PODIUM_DATABASE_URL names a database, else SQLite.
let openStore = StorageBackend.choose(sqlite: SQLiteLeaderboardStore.opener, postgres: PostgresLeaderboardStore.opener)
await ServiceMain.run(LeaderboardService.blueprint(openStore: openStore))
