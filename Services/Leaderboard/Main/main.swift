import Leaderboard
import LeaderboardSQLite
import PodiumOperations
import PodiumRuntime

await ServiceMain.run(LeaderboardService.blueprint(openStore: SQLiteLeaderboardStore.opener))
