using System;
using System.Collections.Generic;
using System.Net.Http;
using System.Threading;
using System.Threading.Tasks;

namespace Podium
{
    public sealed partial class PodiumClient
    {
        private static string Board(string gameId, string boardId)
        {
            return HttpCall.Game(gameId) + "/leaderboards/" + HttpCall.Segment(boardId);
        }

        /// <summary>The game's boards, in the order of its configuration (PROTOCOL 10.6).</summary>
        public async Task<IReadOnlyList<LeaderboardDefinition>> GetLeaderboardsAsync(
            string gameId, CancellationToken cancellationToken = default(CancellationToken))
        {
            var reply = await SendAsync(new HttpCall(HttpMethod.Get, HttpCall.Game(gameId) + "/leaderboards"),
                cancellationToken).ConfigureAwait(false);
            return reply.GetObjects("leaderboards", o => new LeaderboardDefinition(o));
        }

        /// <summary>
        /// Submits a score for the player (PROTOCOL 10.1). Resent with the same key until answered,
        /// so a score is never counted twice; the receipt says <see cref="ScoreReceipt.Duplicate"/>
        /// when it answers a resend.
        /// </summary>
        /// <param name="gameId">The game.</param>
        /// <param name="boardId">The board.</param>
        /// <param name="value">The score, a 64-bit integer.</param>
        /// <param name="context">A number the game attaches.</param>
        /// <param name="metadata">A JSON object of at most 1024 bytes the game attaches.</param>
        /// <param name="challengeId">A defined challenge this score is a run of (PROTOCOL 12.12).</param>
        /// <param name="idempotencyKey">The request id; default a new one.</param>
        /// <param name="cancellationToken">Stops waiting (the score may still be applied).</param>
        public async Task<ScoreReceipt> SubmitScoreAsync(
            string gameId, string boardId, long value, long? context = null, IDictionary<string, object> metadata = null,
            string challengeId = null, string idempotencyKey = null,
            CancellationToken cancellationToken = default(CancellationToken))
        {
            var body = new Dictionary<string, object> { { "value", value } };
            if (context.HasValue) body["context"] = context.Value;
            if (metadata != null) body["metadata"] = metadata;
            if (challengeId != null) body["challengeId"] = challengeId;
            var call = new HttpCall(HttpMethod.Post, Board(gameId, boardId) + "/scores", body) { IdempotencyKey = idempotencyKey };
            return new ScoreReceipt(await SendAsync(call, cancellationToken).ConfigureAwait(false));
        }

        /// <summary>
        /// The top of a board (PROTOCOL 10.2): a scope (<see cref="LeaderboardScope"/>), a page by
        /// <paramref name="offset"/> or <paramref name="cursor"/> (a page's
        /// <see cref="LeaderboardPage.NextCursor"/>), the player and their friends only, an ended
        /// <paramref name="period"/> of a recurring board, or an <paramref name="archive"/>.
        /// </summary>
        public async Task<LeaderboardPage> GetTopAsync(
            string gameId, string boardId, string scope = null, int? limit = null, long? offset = null, string cursor = null,
            bool friendsOnly = false, long? period = null, long? archive = null,
            CancellationToken cancellationToken = default(CancellationToken))
        {
            var call = new HttpCall(HttpMethod.Get, Board(gameId, boardId) + "/top")
                .With("scope", scope).With("limit", limit).With("offset", offset).With("cursor", cursor)
                .With("friendsOnly", friendsOnly ? (object)true : null).With("period", period).With("archive", archive);
            return new LeaderboardPage(await SendAsync(call, cancellationToken).ConfigureAwait(false));
        }

        /// <summary>The player and their friends only, ranked among themselves (PROTOCOL 10.2, <c>friendsOnly</c>).</summary>
        public Task<LeaderboardPage> GetFriendsTopAsync(
            string gameId, string boardId, string scope = null, int? limit = null,
            CancellationToken cancellationToken = default(CancellationToken))
        {
            return GetTopAsync(gameId, boardId, scope, limit, friendsOnly: true, cancellationToken: cancellationToken);
        }

        /// <summary>
        /// The player and the players around them: up to 2 × <paramref name="radius"/> + 1
        /// consecutive ranks (PROTOCOL 10.3); no entries when the player has none in the scope.
        /// </summary>
        public async Task<LeaderboardPage> GetAroundAsync(
            string gameId, string boardId, string scope = null, int? radius = null,
            CancellationToken cancellationToken = default(CancellationToken))
        {
            var call = new HttpCall(HttpMethod.Get, Board(gameId, boardId) + "/around").With("scope", scope).With("radius", radius);
            return new LeaderboardPage(await SendAsync(call, cancellationToken).ConfigureAwait(false));
        }

        /// <summary>The player's own entry in a scope, or null when they have none there (PROTOCOL 10.4).</summary>
        public async Task<LeaderboardEntry> GetEntryAsync(
            string gameId, string boardId, string scope = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            var call = new HttpCall(HttpMethod.Get, Board(gameId, boardId) + "/entry").With("scope", scope);
            var reply = await SendAsync(call, cancellationToken).ConfigureAwait(false);
            if (!reply.ContainsKey("entry")) throw JsonFields.Invalid("entry", "present");
            var entry = reply.GetObjectOrNull("entry");
            return entry == null ? null : new LeaderboardEntry(entry);
        }

        /// <summary>The player's 10 best scores ever submitted to a board (PROTOCOL 10.5).</summary>
        public async Task<ScoreHistory> GetScoreHistoryAsync(
            string gameId, string boardId, CancellationToken cancellationToken = default(CancellationToken))
        {
            return new ScoreHistory(await SendAsync(new HttpCall(HttpMethod.Get, Board(gameId, boardId) + "/history"),
                cancellationToken).ConfigureAwait(false));
        }

        /// <summary>The board's archives (operators' resets), newest first (PROTOCOL 22.4); read one with <see cref="GetTopAsync"/>'s <c>archive</c>.</summary>
        public async Task<IReadOnlyList<LeaderboardArchive>> GetArchivesAsync(
            string gameId, string boardId, CancellationToken cancellationToken = default(CancellationToken))
        {
            var reply = await SendAsync(new HttpCall(HttpMethod.Get, Board(gameId, boardId) + "/archives"), cancellationToken)
                .ConfigureAwait(false);
            return reply.GetObjects("archives", o => new LeaderboardArchive(o));
        }
    }
}
