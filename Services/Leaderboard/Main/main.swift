import Leaderboard
import PodiumRuntime

await ServiceMain.run(ServiceBlueprint(LeaderboardService.definition()))
