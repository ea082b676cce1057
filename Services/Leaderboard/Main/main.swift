import Leaderboard
import PodiumOperations
import PodiumRuntime

await ServiceMain.run(LeaderboardService.blueprint())
