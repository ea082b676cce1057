using System;
using System.Collections.Generic;

namespace Podium
{
    /// <summary>The time scopes of a leaderboard (PROTOCOL 10): the current UTC day, ISO week, or all time.</summary>
    public static class LeaderboardScope
    {
        /// <summary>The current UTC day.</summary>
        public const string Today = "today";
        /// <summary>The current ISO week, from Monday 00:00 UTC.</summary>
        public const string Week = "week";
        /// <summary>All time (the default).</summary>
        public const string AllTime = "allTime";
    }

    /// <summary>One player's standing on a board (PROTOCOL 10, <c>LeaderboardEntry</c>).</summary>
    public sealed class LeaderboardEntry
    {
        internal LeaderboardEntry(IReadOnlyDictionary<string, object> o)
        {
            Json = o;
            PlayerId = o.GetString("playerId");
            DisplayName = o.GetStringOrNull("displayName");
            Value = o.GetInt64("value");
            Rank = o.GetInt64("rank");
            Context = o.GetInt64OrNull("context");
            Metadata = o.GetObjectOrNull("metadata");
            SubmittedAt = o.GetInt64("submittedAt");
        }

        /// <summary>The player.</summary>
        public string PlayerId { get; private set; }
        /// <summary>The player's display name; null when the server could not ask for it.</summary>
        public string DisplayName { get; private set; }
        /// <summary>The score, as the integer stored (a time board's 61234 is 1:01.234).</summary>
        public long Value { get; private set; }
        /// <summary>1-based rank in the page's scope.</summary>
        public long Rank { get; private set; }
        /// <summary>The number the game attached to the score, if any.</summary>
        public long? Context { get; private set; }
        /// <summary>The JSON object the game attached to the score, if any.</summary>
        public IReadOnlyDictionary<string, object> Metadata { get; private set; }
        /// <summary>When the score was submitted, ms since the Unix epoch.</summary>
        public long SubmittedAt { get; private set; }
        /// <summary>The entry as received.</summary>
        public IReadOnlyDictionary<string, object> Json { get; private set; }
    }

    /// <summary>A page of standings (PROTOCOL 10.2, 10.3).</summary>
    public sealed class LeaderboardPage
    {
        internal LeaderboardPage(IReadOnlyDictionary<string, object> o)
        {
            Json = o;
            BoardId = o.GetString("boardId");
            Scope = o.GetString("scope");
            Entries = o.GetObjects("entries", e => new LeaderboardEntry(e));
            Total = o.GetInt64("total");
            NextCursor = o.GetStringOrNull("nextCursor");
        }

        /// <summary>The board.</summary>
        public string BoardId { get; private set; }
        /// <summary><c>today</c>, <c>week</c>, <c>allTime</c>, <c>period:&lt;n&gt;</c> or <c>archive:&lt;n&gt;</c>.</summary>
        public string Scope { get; private set; }
        /// <summary>The entries, best first.</summary>
        public IReadOnlyList<LeaderboardEntry> Entries { get; private set; }
        /// <summary>Entries in the scope (for a friends page, the player and friends with an entry).</summary>
        public long Total { get; private set; }
        /// <summary>Pass as <c>cursor</c> for the next page; null on the last page.</summary>
        public string NextCursor { get; private set; }
        /// <summary>The page as received.</summary>
        public IReadOnlyDictionary<string, object> Json { get; private set; }
    }

    /// <summary>What a score submission did (PROTOCOL 10.1, <c>ScoreReceipt</c>).</summary>
    public sealed class ScoreReceipt
    {
        internal ScoreReceipt(IReadOnlyDictionary<string, object> o)
        {
            Json = o;
            BoardId = o.GetString("boardId");
            PlayerId = o.GetString("playerId");
            Improved = o.GetBoolean("improved");
            PreviousValue = o.GetInt64OrNull("previousValue");
            Entry = new LeaderboardEntry(o.GetObject("entry"));
            ScopesBeaten = o.GetStrings("scopesBeaten");
            SubmittedValue = o.GetInt64OrNull("submittedValue");
            ChallengeId = o.GetStringOrNull("challengeId");
            Duplicate = o.GetFlag("duplicate");
        }

        /// <summary>The board.</summary>
        public string BoardId { get; private set; }
        /// <summary>The player the score is for.</summary>
        public string PlayerId { get; private set; }
        /// <summary>Whether the player's entry changed.</summary>
        public bool Improved { get; private set; }
        /// <summary>The entry's value before; null for a first score.</summary>
        public long? PreviousValue { get; private set; }
        /// <summary>The entry right after the submission, with its all-time rank then.</summary>
        public LeaderboardEntry Entry { get; private set; }
        /// <summary>The scopes this score beat the player's standing in, narrowest first.</summary>
        public IReadOnlyList<string> ScopesBeaten { get; private set; }
        /// <summary>The score this submission carried.</summary>
        public long? SubmittedValue { get; private set; }
        /// <summary>The defined challenge this score was a run of, if any.</summary>
        public string ChallengeId { get; private set; }
        /// <summary>True when this answers a resend of a request already applied: nothing was submitted again.</summary>
        public bool Duplicate { get; private set; }
        /// <summary>The receipt as received.</summary>
        public IReadOnlyDictionary<string, object> Json { get; private set; }
    }

    /// <summary>The player's best scores on a board (PROTOCOL 10.5).</summary>
    public sealed class ScoreHistory
    {
        internal ScoreHistory(IReadOnlyDictionary<string, object> o)
        {
            BoardId = o.GetString("boardId");
            PlayerId = o.GetString("playerId");
            Scores = o.GetObjects("scores", s => new PastScore(s));
        }

        /// <summary>The board.</summary>
        public string BoardId { get; private set; }
        /// <summary>The player.</summary>
        public string PlayerId { get; private set; }
        /// <summary>Up to 10 scores, best first.</summary>
        public IReadOnlyList<PastScore> Scores { get; private set; }
    }

    /// <summary>One score of a <see cref="ScoreHistory"/>.</summary>
    public sealed class PastScore
    {
        internal PastScore(IReadOnlyDictionary<string, object> o)
        {
            Value = o.GetInt64("value");
            SubmittedAt = o.GetInt64("submittedAt");
        }

        /// <summary>The score.</summary>
        public long Value { get; private set; }
        /// <summary>When it was submitted, ms since the epoch.</summary>
        public long SubmittedAt { get; private set; }
    }

    /// <summary>How a recurring board restarts: one period after another from <see cref="StartsAt"/>.</summary>
    public sealed class LeaderboardRecurrence
    {
        internal LeaderboardRecurrence(IReadOnlyDictionary<string, object> o)
        {
            StartsAt = o.GetInt64("startsAt");
            DurationMilliseconds = o.GetInt64("durationMilliseconds");
        }

        /// <summary>When period 0 starts, ms since the Unix epoch.</summary>
        public long StartsAt { get; private set; }
        /// <summary>The length of every period.</summary>
        public long DurationMilliseconds { get; private set; }

        /// <summary>The period running at <paramref name="time"/> (ms since the epoch); -1 before the first.</summary>
        public long PeriodAt(long time)
        {
            if (time < StartsAt) return -1;
            return (time - StartsAt) / DurationMilliseconds;
        }

        /// <summary>The period running now by this device's clock; ended periods are the ones below it.</summary>
        public long CurrentPeriod()
        {
            return PeriodAt(DateTimeOffset.UtcNow.ToUnixTimeMilliseconds());
        }

        /// <summary>When <paramref name="period"/> starts, ms since the epoch (it ends where the next starts).</summary>
        public long PeriodStart(long period)
        {
            return StartsAt + period * DurationMilliseconds;
        }
    }

    /// <summary>A board of the game (PROTOCOL 10.6, docs/GAME-CONFIG.md).</summary>
    public sealed class LeaderboardDefinition
    {
        internal LeaderboardDefinition(IReadOnlyDictionary<string, object> o)
        {
            Json = o;
            Id = o.GetString("id");
            Title = o.GetString("title");
            SortOrder = o.GetString("sortOrder");
            SubmitOperator = o.GetString("submitOperator");
            Format = o.GetString("format");
            Minimum = o.GetInt64OrNull("minimum");
            Maximum = o.GetInt64OrNull("maximum");
            ServerOnly = o.GetBoolean("serverOnly");
            var recurrence = o.GetObjectOrNull("recurrence");
            Recurrence = recurrence == null ? null : new LeaderboardRecurrence(recurrence);
        }

        /// <summary>The board's id.</summary>
        public string Id { get; private set; }
        /// <summary>The title to show.</summary>
        public string Title { get; private set; }
        /// <summary><c>higherIsBetter</c> or <c>lowerIsBetter</c>.</summary>
        public string SortOrder { get; private set; }
        /// <summary><c>best</c>, <c>latest</c> or <c>increment</c>.</summary>
        public string SubmitOperator { get; private set; }
        /// <summary><c>integer</c>, <c>timeMilliseconds</c> or <c>currencyMicros</c>.</summary>
        public string Format { get; private set; }
        /// <summary>The lowest score taken, if any.</summary>
        public long? Minimum { get; private set; }
        /// <summary>The highest score taken, if any.</summary>
        public long? Maximum { get; private set; }
        /// <summary>Whether only the game's server may submit.</summary>
        public bool ServerOnly { get; private set; }
        /// <summary>The periods of a recurring board; null for one that does not recur.</summary>
        public LeaderboardRecurrence Recurrence { get; private set; }
        /// <summary>The definition as received.</summary>
        public IReadOnlyDictionary<string, object> Json { get; private set; }
    }

    /// <summary>A board's standings as an operator's reset archived them (PROTOCOL 22.4).</summary>
    public sealed class LeaderboardArchive
    {
        internal LeaderboardArchive(IReadOnlyDictionary<string, object> o)
        {
            BoardId = o.GetString("boardId");
            Archive = o.GetInt64("archive");
            ResetAt = o.GetInt64("resetAt");
            Entries = o.GetInt64("entries");
        }

        /// <summary>The board.</summary>
        public string BoardId { get; private set; }
        /// <summary>The archive's number (1, 2, 3… per board): pass it as <c>archive</c> to read the standings.</summary>
        public long Archive { get; private set; }
        /// <summary>When the board was reset, ms since the epoch.</summary>
        public long ResetAt { get; private set; }
        /// <summary>How many entries were archived.</summary>
        public long Entries { get; private set; }
    }
}
