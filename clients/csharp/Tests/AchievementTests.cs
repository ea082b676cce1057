using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using UnityEngine;

namespace Podium.Tests
{
    /// <summary>Achievements on the example game blackjack: reports, the list with descriptions, hidden ones, rarity, reset.</summary>
    internal static class AchievementTests
    {
        private const string Tutorial = "com.example.blackjack.tutorial";
        private const string Regular = "com.example.blackjack.regular";
        private const string Comeback = "com.example.blackjack.comeback";

        public static void Register(List<TestCase> tests)
        {
            tests.Add(new TestCase
            {
                Name = "achievements: progress and earning reported, earned live, listed with descriptions, hidden and rarity, reset",
                NeedsServer = true, Body = World.Test(Achievements),
            });
        }

        private static async Task Achievements(World world)
        {
            var podium = await world.PlayerAsync("ace");
            var feed = world.FeedOf(podium);
            await podium.ConnectAsync(new[] { "blackjack" });
            var fresh = await podium.GetAchievementsAsync("blackjack");
            var hidden = fresh.Achievements.Single(a => a.Id == Comeback);
            Check.That(hidden.Hidden && hidden.Title == null && hidden.Description == null && hidden.Points == null
                && hidden.PercentComplete == null, "a hidden achievement without progress shows nothing but its id");
            Check.Equal(0L, fresh.PointsEarned, "no points yet");

            // docs:begin achievements
            var outcome = await podium.ReportAchievementAsync("blackjack",
                AchievementReport.Percent("com.example.blackjack.tutorial", 40));
            await podium.ReportAchievementsAsync("blackjack", new[]
            {
                AchievementReport.WithSteps("com.example.blackjack.regular", 3),
            });

            var list = await podium.GetAchievementsAsync("blackjack");
            foreach (var achievement in list.Achievements)
            {
                if (achievement.Title == null) continue; // hidden, and not started
                Debug.Log(achievement.Title + ": " + achievement.PercentComplete + "%, earned by "
                    + achievement.PercentOfPlayersEarned + "% of players");
            }
            Debug.Log("points: " + list.PointsEarned + " of " + list.PointsTotal);
            // docs:end achievements
            Check.Equal("progressed", outcome.Status, "40% is progress");
            Check.Equal(40.0, outcome.PercentComplete, "at 40%");

            var earned = await feed.WaitForAsync("achievement.earned");
            Check.Equal(Regular, earned.Details["achievementId"], "earned live: the regular");
            Check.Equal<object>(1L, earned.Details["timesEarned"], "the first time");
            var tutorial = list.Achievements.Single(a => a.Id == Tutorial);
            Check.That(!tutorial.Earned && tutorial.PercentComplete == 40 && tutorial.Description != null, "the tutorial at 40%, described");
            var regular = list.Achievements.Single(a => a.Id == Regular);
            Check.That(regular.Earned && regular.TimesEarned == 1 && regular.EarnedAt.HasValue, "the regular earned");
            Check.That(regular.PercentOfPlayersEarned > 0 && regular.PercentOfPlayersEarned <= 100, "its rarity: " + regular.PercentOfPlayersEarned);
            Check.Equal(regular.Points, list.PointsEarned, "the points of the one earned");
            Check.That(list.PointsTotal > list.PointsEarned, "more to earn");

            var again = await podium.ReportAchievementsAsync("blackjack", new[]
            {
                AchievementReport.Percent(Tutorial, 30, "tut-1"), AchievementReport.WithSteps(Regular, 3, "reg-2"),
            });
            Check.Sequence(new[] { "ignored_lower", "earned_again" }, again.Outcomes.Select(o => o.Status), "a lower percent, a repeatable earned again");
            Check.Equal(2L, again.Outcomes[1].TimesEarned, "twice");
            var repeated = await podium.ReportAchievementAsync("blackjack", AchievementReport.WithSteps(Regular, 3, "reg-2"));
            Check.Equal("duplicate", repeated.Status, "the same reportId counts once");

            var unknown = await Check.FailsAsync(ErrorCodes.UnknownAchievement,
                () => podium.ReportAchievementAsync("blackjack", AchievementReport.Percent("no.such.thing", 5)), "an unknown achievement");
            Check.Equal("payload.reports.0.achievementId", unknown.Field, "the report to blame");
            await Check.FailsAsync(ErrorCodes.Forbidden,
                () => podium.ReportAchievementAsync("blackjack", AchievementReport.Percent(Comeback, 5)), "an achievement with a rule");

            // docs:begin achievements-reset
            var removed = await podium.ResetAchievementsAsync("blackjack");
            // docs:end achievements-reset
            Check.Equal(2L, removed, "two records deleted");
            var after = await podium.GetAchievementsAsync("blackjack");
            Check.That(after.Achievements.All(a => !a.Earned) && after.PointsEarned == 0, "nothing earned after the reset");
            Check.Equal(0.0, after.Achievements.Single(a => a.Id == Tutorial).PercentComplete, "no progress after the reset");
        }
    }
}
