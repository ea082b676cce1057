import Achievement
import AchievementPostgres
import PodiumOperations
import PodiumRuntime

await ServiceMain.run(AchievementService.blueprint(openStore: PostgresAchievementStore.configured))
