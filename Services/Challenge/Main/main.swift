import Challenge
import ChallengePostgres
import ChallengeSQLite
import PodiumOperations
import PodiumRuntime

// The backend is chosen here: PostgreSQL when PODIUM_DATABASE_URL names a database, else SQLite.
let openStore = StorageBackend.choose(sqlite: SQLiteChallengeStore.opener, postgres: PostgresChallengeStore.opener)
await ServiceMain.run(ChallengeService.blueprint(openStore: openStore))
