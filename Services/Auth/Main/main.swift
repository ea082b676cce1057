import Auth
import AuthSQLite
import PodiumOperations
import PodiumRuntime

await ServiceMain.run(AuthService.blueprint(openStore: SQLiteAccountStore.opener))
