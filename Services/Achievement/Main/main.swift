import Achievement
import PodiumRuntime

await ServiceMain.run(ServiceBlueprint(AchievementService.definition()))
