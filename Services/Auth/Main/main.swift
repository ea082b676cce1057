import Auth
import PodiumOperations
import PodiumRuntime

await ServiceMain.run(AuthService.blueprint())
