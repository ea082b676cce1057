import Challenge
import PodiumRuntime

await ServiceMain.run(ServiceBlueprint(ChallengeService.definition()))
