import Achievement
import AchievementSQLite
import PodiumOperations
import PodiumRuntime

await ServiceMain.run(AchievementService.blueprint(openStore: SQLiteAchievementStore.opener))
