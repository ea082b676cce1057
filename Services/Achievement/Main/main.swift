import Achievement
import PodiumRuntime

await ServiceMain.run(AchievementService.blueprint())
