using System;
using System.Collections.Generic;

namespace Podium
{
    /// <summary>An achievement of the game with the player's progress (PROTOCOL 11.2, <c>AchievementStatus</c>).</summary>
    public sealed class AchievementStatus
    {
        internal AchievementStatus(IReadOnlyDictionary<string, object> o)
        {
            Json = o;
            Id = o.GetString("id");
            Hidden = o.GetBoolean("hidden");
            Title = o.GetStringOrNull("title");
            Description = o.GetStringOrNull("description");
            Points = o.GetInt64OrNull("points");
            Image = o.GetStringOrNull("image");
            PercentComplete = o.GetDoubleOrNull("percentComplete");
            Steps = o.GetInt64OrNull("steps");
            Target = o.GetInt64OrNull("target");
            Earned = o.GetBoolean("earned");
            EarnedAt = o.GetInt64OrNull("earnedAt");
            TimesEarned = o.GetInt64("timesEarned");
            PercentOfPlayersEarned = o.GetDouble("percentOfPlayersEarned");
        }

        /// <summary>The achievement's id.</summary>
        public string Id { get; private set; }
        /// <summary>Whether it is hidden; a hidden one without progress has no title, description, points or progress.</summary>
        public bool Hidden { get; private set; }
        /// <summary>The title; null for a hidden achievement the player has no progress on.</summary>
        public string Title { get; private set; }
        /// <summary>The description before it is earned, the earned description after; null while hidden.</summary>
        public string Description { get; private set; }
        /// <summary>The points it is worth; null while hidden.</summary>
        public long? Points { get; private set; }
        /// <summary>The image URL, if it has one.</summary>
        public string Image { get; private set; }
        /// <summary>Progress, 0-100; null while hidden.</summary>
        public double? PercentComplete { get; private set; }
        /// <summary>Steps done; null while hidden.</summary>
        public long? Steps { get; private set; }
        /// <summary>Steps needed; null while hidden.</summary>
        public long? Target { get; private set; }
        /// <summary>Earned at least once.</summary>
        public bool Earned { get; private set; }
        /// <summary>When it was last earned, ms since the epoch.</summary>
        public long? EarnedAt { get; private set; }
        /// <summary>How often it was earned (repeatable achievements count up).</summary>
        public long TimesEarned { get; private set; }
        /// <summary>Rarity: of the players with any achievement record in the game, the percentage who earned this one.</summary>
        public double PercentOfPlayersEarned { get; private set; }
        /// <summary>The status as received.</summary>
        public IReadOnlyDictionary<string, object> Json { get; private set; }
    }

    /// <summary>The game's achievements with the player's progress and points (PROTOCOL 11.2).</summary>
    public sealed class AchievementList
    {
        internal AchievementList(IReadOnlyDictionary<string, object> o)
        {
            Achievements = o.GetObjects("achievements", a => new AchievementStatus(a));
            PointsEarned = o.GetInt64("pointsEarned");
            PointsTotal = o.GetInt64("pointsTotal");
        }

        /// <summary>In the order of the game's configuration.</summary>
        public IReadOnlyList<AchievementStatus> Achievements { get; private set; }
        /// <summary>The points of every achievement the player earned.</summary>
        public long PointsEarned { get; private set; }
        /// <summary>The points of all the game's achievements, hidden ones included.</summary>
        public long PointsTotal { get; private set; }
    }

    /// <summary>One progress report (PROTOCOL 11.1): a percentage or a number of steps, for an achievement without a rule.</summary>
    public sealed class AchievementReport
    {
        private AchievementReport(string achievementId, double? percent, long? steps, string reportId)
        {
            if (string.IsNullOrEmpty(achievementId)) throw new ArgumentException("an achievement id is needed");
            AchievementId = achievementId;
            PercentComplete = percent;
            Steps = steps;
            ReportId = reportId;
        }

        /// <summary>Progress as a percentage, 0-100.</summary>
        public static AchievementReport Percent(string achievementId, double percentComplete, string reportId = null)
        {
            return new AchievementReport(achievementId, percentComplete, null, reportId);
        }

        /// <summary>Progress in steps (more than the target counts as the target).</summary>
        public static AchievementReport WithSteps(string achievementId, long steps, string reportId = null)
        {
            return new AchievementReport(achievementId, null, steps, reportId);
        }

        /// <summary>The achievement.</summary>
        public string AchievementId { get; private set; }
        /// <summary>The percentage, or null for a steps report.</summary>
        public double? PercentComplete { get; private set; }
        /// <summary>The steps, or null for a percentage report.</summary>
        public long? Steps { get; private set; }
        /// <summary>An id that makes this report count once per player and achievement, even if sent again in another request.</summary>
        public string ReportId { get; private set; }

        internal Dictionary<string, object> ToPayload()
        {
            var report = new Dictionary<string, object> { { "achievementId", AchievementId } };
            if (PercentComplete.HasValue) report["percentComplete"] = PercentComplete.Value;
            if (Steps.HasValue) report["steps"] = Steps.Value;
            if (ReportId != null) report["reportId"] = ReportId;
            return report;
        }
    }

    /// <summary>What one report did (PROTOCOL 11.1, <c>ReportOutcome</c>).</summary>
    public sealed class AchievementOutcome
    {
        internal AchievementOutcome(IReadOnlyDictionary<string, object> o)
        {
            AchievementId = o.GetString("achievementId");
            Status = o.GetString("status");
            PercentComplete = o.GetDouble("percentComplete");
            Steps = o.GetInt64("steps");
            Target = o.GetInt64("target");
            Earned = o.GetBoolean("earned");
            TimesEarned = o.GetInt64("timesEarned");
        }

        /// <summary>The achievement.</summary>
        public string AchievementId { get; private set; }
        /// <summary><c>progressed</c>, <c>earned</c>, <c>earned_again</c>, <c>ignored_lower</c>, <c>ignored_earned</c> or <c>duplicate</c>.</summary>
        public string Status { get; private set; }
        /// <summary>Progress after the report, 0-100 (a repeatable one starts over when earned).</summary>
        public double PercentComplete { get; private set; }
        /// <summary>Steps after the report.</summary>
        public long Steps { get; private set; }
        /// <summary>Steps needed.</summary>
        public long Target { get; private set; }
        /// <summary>Earned at least once.</summary>
        public bool Earned { get; private set; }
        /// <summary>How often it was earned.</summary>
        public long TimesEarned { get; private set; }
    }

    /// <summary>The outcomes of a batch of reports, in order (PROTOCOL 11.1).</summary>
    public sealed class AchievementReportResult
    {
        internal AchievementReportResult(IReadOnlyDictionary<string, object> o)
        {
            Outcomes = o.GetObjects("outcomes", r => new AchievementOutcome(r));
            Duplicate = o.GetFlag("duplicate");
        }

        /// <summary>One outcome per report.</summary>
        public IReadOnlyList<AchievementOutcome> Outcomes { get; private set; }
        /// <summary>True when this answers a resend of a request already applied.</summary>
        public bool Duplicate { get; private set; }
    }
}
