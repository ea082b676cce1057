import Achievement
import AchievementPostgres
import AchievementSQLite
import PodiumOperations
import PodiumRuntime

// The backend is chosen here: PostgreSQL when PODIUM_DATABASE_URL names a database, else SQLite.
let openStore = StorageBackend.choose(sqlite: SQLiteAchievementStore.opener, postgres: PostgresAchievementStore.opener)
await ServiceMain.run(AchievementService.blueprint(openStore: openStore))
