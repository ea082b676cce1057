import Auth
import PodiumRuntime

await ServiceMain.run(AuthService.blueprint())
