import Auth
import AuthPostgres
import AuthSQLite
import PodiumOperations
import PodiumRuntime

// The backend is chosen here: PostgreSQL when PODIUM_DATABASE_URL names a database, else SQLite.
let openStore = StorageBackend.choose(sqlite: SQLiteAccountStore.opener, postgres: PostgresAccountStore.opener)
await ServiceMain.run(AuthService.blueprint(openStore: openStore))
