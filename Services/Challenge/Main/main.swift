import Challenge
import PodiumOperations
import PodiumRuntime

await ServiceMain.run(ChallengeService.blueprint())
