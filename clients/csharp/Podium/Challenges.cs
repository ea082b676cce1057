using System.Collections.Generic;

namespace Podium
{
    /// <summary>A challenge (PROTOCOL 12.1, <c>ChallengeDetail</c>): beat a score, earn an achievement, or a time-boxed contest.</summary>
    public sealed class ChallengeDetail
    {
        internal ChallengeDetail(IReadOnlyDictionary<string, object> o)
        {
            Json = o;
            ChallengeId = o.GetString("challengeId");
            GameId = o.GetString("gameId");
            Kind = o.GetString("kind");
            IssuerId = o.GetString("issuerId");
            BoardId = o.GetStringOrNull("boardId");
            AchievementId = o.GetStringOrNull("achievementId");
            IssuerValue = o.GetInt64OrNull("issuerValue");
            Message = o.GetStringOrNull("message");
            CreatedAt = o.GetInt64("createdAt");
            ExpiresAt = o.GetInt64OrNull("expiresAt");
            EndsAt = o.GetInt64OrNull("endsAt");
            State = o.GetStringOrNull("state");
            Receivers = o.GetObjects("receivers", r => new ChallengeReceiver(r));
            RematchOf = o.GetStringOrNull("rematchOf");
            DefinitionId = o.GetStringOrNull("definitionId");
            AttemptsAllowed = o.GetInt64OrNull("attemptsAllowed");
            DurationMilliseconds = o.GetInt64OrNull("durationMilliseconds");
        }

        /// <summary>The challenge's id.</summary>
        public string ChallengeId { get; private set; }
        /// <summary>The game.</summary>
        public string GameId { get; private set; }
        /// <summary><c>score</c>, <c>achievement</c> or <c>timed</c>.</summary>
        public string Kind { get; private set; }
        /// <summary>The player who issued or started it.</summary>
        public string IssuerId { get; private set; }
        /// <summary>The board (<c>score</c> and <c>timed</c>).</summary>
        public string BoardId { get; private set; }
        /// <summary>The achievement (<c>achievement</c>).</summary>
        public string AchievementId { get; private set; }
        /// <summary>The value to beat (<c>score</c>).</summary>
        public long? IssuerValue { get; private set; }
        /// <summary>The issuer's message.</summary>
        public string Message { get; private set; }
        /// <summary>When it was made (for <c>timed</c>, the start of the window), ms since the epoch.</summary>
        public long CreatedAt { get; private set; }
        /// <summary>When a <c>score</c> or <c>achievement</c> challenge expires, if it does.</summary>
        public long? ExpiresAt { get; private set; }
        /// <summary>The end of a <c>timed</c> challenge's window.</summary>
        public long? EndsAt { get; private set; }
        /// <summary><c>running</c> or <c>ended</c> (<c>timed</c> only).</summary>
        public string State { get; private set; }
        /// <summary>The receivers, sorted by player id; for <c>timed</c>, every participant.</summary>
        public IReadOnlyList<ChallengeReceiver> Receivers { get; private set; }
        /// <summary>The challenge this one is a rematch of.</summary>
        public string RematchOf { get; private set; }
        /// <summary>The studio's definition it was started from, if any.</summary>
        public string DefinitionId { get; private set; }
        /// <summary>A defined challenge's runs per participant; null when unlimited or not defined.</summary>
        public long? AttemptsAllowed { get; private set; }
        /// <summary>The duration a <c>timed</c> challenge was started for.</summary>
        public long? DurationMilliseconds { get; private set; }
        /// <summary>The challenge as received.</summary>
        public IReadOnlyDictionary<string, object> Json { get; private set; }

        /// <summary>The receiver entry of <paramref name="playerId"/>, or null.</summary>
        public ChallengeReceiver Receiver(string playerId)
        {
            foreach (var receiver in Receivers)
                if (receiver.PlayerId == playerId) return receiver;
            return null;
        }
    }

    /// <summary>One receiver of a challenge and how far they are (PROTOCOL 12.1).</summary>
    public sealed class ChallengeReceiver
    {
        internal ChallengeReceiver(IReadOnlyDictionary<string, object> o)
        {
            PlayerId = o.GetString("playerId");
            State = o.GetString("state");
            CompletedAt = o.GetInt64OrNull("completedAt");
            Value = o.GetInt64OrNull("value");
            Attempts = o.GetInt64OrNull("attempts");
        }

        /// <summary>The player.</summary>
        public string PlayerId { get; private set; }
        /// <summary><c>pending</c>, <c>completed</c>, <c>declined</c> or <c>invalid</c>.</summary>
        public string State { get; private set; }
        /// <summary>When they left <c>pending</c>.</summary>
        public long? CompletedAt { get; private set; }
        /// <summary>The score that beat it, or their best in a time-boxed window.</summary>
        public long? Value { get; private set; }
        /// <summary>Runs counted so far (defined challenges).</summary>
        public long? Attempts { get; private set; }
    }

    /// <summary>A challenge the studio defined for the game (PROTOCOL 12.12).</summary>
    public sealed class ChallengeDefinition
    {
        internal ChallengeDefinition(IReadOnlyDictionary<string, object> o)
        {
            Json = o;
            Id = o.GetString("id");
            Title = o.GetString("title");
            Details = o.GetString("details");
            Image = o.GetStringOrNull("image");
            LeaderboardId = o.GetString("leaderboardId");
            var durations = new List<long>();
            foreach (var item in o.GetList("durations"))
            {
                if (!(item is long)) throw JsonFields.Invalid("durations", "an array of integers");
                durations.Add((long)item);
            }
            Durations = durations;
            object attempts;
            o.TryGetValue("attempts", out attempts);
            AttemptsAllowed = attempts is long ? (long?)(long)attempts : null;
            Repeatable = o.GetFlag("repeatable");
            ReleaseState = o.GetStringOrNull("releaseState");
        }

        /// <summary>The definition's id: pass it to <see cref="PodiumClient.StartTimedChallengeAsync"/>.</summary>
        public string Id { get; private set; }
        /// <summary>The title.</summary>
        public string Title { get; private set; }
        /// <summary>What to do.</summary>
        public string Details { get; private set; }
        /// <summary>An image URL, if any.</summary>
        public string Image { get; private set; }
        /// <summary>The board it is played on.</summary>
        public string LeaderboardId { get; private set; }
        /// <summary>The durations a player may pick, ms.</summary>
        public IReadOnlyList<long> Durations { get; private set; }
        /// <summary>Runs per participant (1 or 3); null for unlimited.</summary>
        public long? AttemptsAllowed { get; private set; }
        /// <summary>Whether a player may take it on again.</summary>
        public bool Repeatable { get; private set; }
        /// <summary><c>released</c> or <c>prerelease</c>.</summary>
        public string ReleaseState { get; private set; }
        /// <summary>The definition as received.</summary>
        public IReadOnlyDictionary<string, object> Json { get; private set; }
    }

    /// <summary>The live order of a time-boxed challenge (PROTOCOL 12.12, <c>challenge.standings</c>).</summary>
    public sealed class ChallengeStandings
    {
        internal ChallengeStandings(IReadOnlyDictionary<string, object> o)
        {
            ChallengeId = o.GetString("challengeId");
            State = o.GetString("state");
            EndsAt = o.GetInt64("endsAt");
            Standings = o.GetObjects("standings", s => new ChallengeStanding(s));
        }

        /// <summary>The challenge.</summary>
        public string ChallengeId { get; private set; }
        /// <summary><c>running</c> or <c>ended</c>.</summary>
        public string State { get; private set; }
        /// <summary>The end of the window.</summary>
        public long EndsAt { get; private set; }
        /// <summary>The participants with a value, best first.</summary>
        public IReadOnlyList<ChallengeStanding> Standings { get; private set; }
    }

    /// <summary>One row of <see cref="ChallengeStandings"/>.</summary>
    public sealed class ChallengeStanding
    {
        internal ChallengeStanding(IReadOnlyDictionary<string, object> o)
        {
            Rank = o.GetInt64("rank");
            PlayerId = o.GetString("playerId");
            Value = o.GetInt64("value");
            Attempts = o.GetInt64OrNull("attempts");
        }

        /// <summary>1, 2, 3…</summary>
        public long Rank { get; private set; }
        /// <summary>The participant.</summary>
        public string PlayerId { get; private set; }
        /// <summary>Their best value in the window.</summary>
        public long Value { get; private set; }
        /// <summary>Runs counted (defined challenges).</summary>
        public long? Attempts { get; private set; }
    }
}
