import Challenge
import ChallengePostgres
import PodiumOperations
import PodiumRuntime

await ServiceMain.run(ChallengeService.blueprint(openStore: PostgresChallengeStore.configured))
