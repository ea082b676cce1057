import Achievement
import PodiumOperations
import PodiumRuntime

await ServiceMain.run(AchievementService.blueprint())
