import Leaderboard
import PodiumRuntime

await ServiceMain.run(LeaderboardService.blueprint())
