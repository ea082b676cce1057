import Auth
import AuthPostgres
import PodiumOperations
import PodiumRuntime

await ServiceMain.run(AuthService.blueprint(openStore: PostgresAccountStore.configured))
