import Leaderboard
import LeaderboardPostgres
import PodiumOperations
import PodiumRuntime

await ServiceMain.run(LeaderboardService.blueprint(openStore: PostgresLeaderboardStore.configured))
