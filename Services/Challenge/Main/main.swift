import Challenge
import PodiumRuntime

await ServiceMain.run(ChallengeService.blueprint())
