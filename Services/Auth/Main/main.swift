import Auth
import PodiumRuntime

await ServiceMain.run(AuthService.definition())
