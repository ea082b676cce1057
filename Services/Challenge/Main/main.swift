import Challenge
import ChallengeSQLite
import PodiumOperations
import PodiumRuntime

await ServiceMain.run(ChallengeService.blueprint(openStore: SQLiteChallengeStore.opener))
