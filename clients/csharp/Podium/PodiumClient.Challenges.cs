using System;
using System.Collections.Generic;
using System.Net.Http;
using System.Threading;
using System.Threading.Tasks;

namespace Podium
{
    public sealed partial class PodiumClient
    {
        private static string Challenges(string gameId)
        {
            return HttpCall.Game(gameId) + "/challenges";
        }

        private static List<object> Receivers(IEnumerable<string> receivers)
        {
            if (receivers == null) throw new ArgumentNullException("receivers");
            return new List<object>(receivers);
        }

        /// <summary>The challenges the studio defined for the game (PROTOCOL 12.12).</summary>
        public async Task<IReadOnlyList<ChallengeDefinition>> GetChallengeDefinitionsAsync(
            string gameId, CancellationToken cancellationToken = default(CancellationToken))
        {
            var reply = await SendAsync(new HttpCall(HttpMethod.Get, Challenges(gameId) + "/definitions"), cancellationToken)
                .ConfigureAwait(false);
            return reply.GetObjects("definitions", o => new ChallengeDefinition(o));
        }

        /// <summary>
        /// Challenges friends to beat the player's entry on a board (PROTOCOL 12.2); the player needs
        /// an entry there. Each receiver is told (<c>challenge.received</c>).
        /// </summary>
        public async Task<ChallengeDetail> IssueScoreChallengeAsync(
            string gameId, string boardId, IEnumerable<string> receivers, string message = null,
            long? expiresInMilliseconds = null, string idempotencyKey = null,
            CancellationToken cancellationToken = default(CancellationToken))
        {
            var body = new Dictionary<string, object>
            {
                { "kind", "score" }, { "boardId", boardId }, { "receivers", Receivers(receivers) },
            };
            return await IssueAsync(gameId, body, message, expiresInMilliseconds, idempotencyKey, cancellationToken)
                .ConfigureAwait(false);
        }

        /// <summary>Challenges friends to earn an achievement the player has earned (PROTOCOL 12.2).</summary>
        public async Task<ChallengeDetail> IssueAchievementChallengeAsync(
            string gameId, string achievementId, IEnumerable<string> receivers, string message = null,
            long? expiresInMilliseconds = null, string idempotencyKey = null,
            CancellationToken cancellationToken = default(CancellationToken))
        {
            var body = new Dictionary<string, object>
            {
                { "kind", "achievement" }, { "achievementId", achievementId }, { "receivers", Receivers(receivers) },
            };
            return await IssueAsync(gameId, body, message, expiresInMilliseconds, idempotencyKey, cancellationToken)
                .ConfigureAwait(false);
        }

        private async Task<ChallengeDetail> IssueAsync(
            string gameId, Dictionary<string, object> body, string message, long? expiresInMilliseconds,
            string idempotencyKey, CancellationToken cancellationToken)
        {
            if (message != null) body["message"] = message;
            if (expiresInMilliseconds.HasValue) body["expiresInMilliseconds"] = expiresInMilliseconds.Value;
            var call = new HttpCall(HttpMethod.Post, Challenges(gameId), body) { IdempotencyKey = idempotencyKey };
            return new ChallengeDetail(await SendAsync(call, cancellationToken).ConfigureAwait(false));
        }

        /// <summary>
        /// Starts a time-boxed challenge (PROTOCOL 12.3): the best score on the board within the
        /// window wins. With <paramref name="definitionId"/>, a studio's defined challenge (its board,
        /// durations and attempts); otherwise <paramref name="boardId"/> is required.
        /// </summary>
        public async Task<ChallengeDetail> StartTimedChallengeAsync(
            string gameId, IEnumerable<string> receivers, long durationMilliseconds, string boardId = null,
            string definitionId = null, string message = null, string idempotencyKey = null,
            CancellationToken cancellationToken = default(CancellationToken))
        {
            var body = new Dictionary<string, object>
            {
                { "receivers", Receivers(receivers) }, { "durationMilliseconds", durationMilliseconds },
            };
            if (boardId != null) body["boardId"] = boardId;
            if (definitionId != null) body["definitionId"] = definitionId;
            if (message != null) body["message"] = message;
            var call = new HttpCall(HttpMethod.Post, Challenges(gameId) + "/timed", body) { IdempotencyKey = idempotencyKey };
            return new ChallengeDetail(await SendAsync(call, cancellationToken).ConfigureAwait(false));
        }

        /// <summary>The challenges the player received (or takes part in), newest first; optionally only those in which the player's state is <paramref name="state"/>.</summary>
        public async Task<IReadOnlyList<ChallengeDetail>> GetReceivedChallengesAsync(
            string gameId, string state = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            var call = new HttpCall(HttpMethod.Get, Challenges(gameId) + "/received").With("state", state);
            var reply = await SendAsync(call, cancellationToken).ConfigureAwait(false);
            return reply.GetObjects("challenges", o => new ChallengeDetail(o));
        }

        /// <summary>The challenges the player issued or started, newest first (PROTOCOL 12.6).</summary>
        public async Task<IReadOnlyList<ChallengeDetail>> GetIssuedChallengesAsync(
            string gameId, CancellationToken cancellationToken = default(CancellationToken))
        {
            var reply = await SendAsync(new HttpCall(HttpMethod.Get, Challenges(gameId) + "/issued"), cancellationToken)
                .ConfigureAwait(false);
            return reply.GetObjects("challenges", o => new ChallengeDetail(o));
        }

        /// <summary>One challenge the player issued or received (PROTOCOL 12.6).</summary>
        public async Task<ChallengeDetail> GetChallengeAsync(
            string gameId, string challengeId, CancellationToken cancellationToken = default(CancellationToken))
        {
            return new ChallengeDetail(await SendAsync(
                new HttpCall(HttpMethod.Get, Challenges(gameId) + "/" + HttpCall.Segment(challengeId)), cancellationToken)
                .ConfigureAwait(false));
        }

        /// <summary>The live order of a time-boxed challenge the player takes part in (PROTOCOL 12.12).</summary>
        public async Task<ChallengeStandings> GetChallengeStandingsAsync(
            string gameId, string challengeId, CancellationToken cancellationToken = default(CancellationToken))
        {
            var path = Challenges(gameId) + "/" + HttpCall.Segment(challengeId) + "/standings";
            return new ChallengeStandings(await SendAsync(new HttpCall(HttpMethod.Get, path), cancellationToken)
                .ConfigureAwait(false));
        }

        /// <summary>
        /// Makes a code that lets anyone join a running time-boxed challenge the player takes part
        /// in (PROTOCOL 12.11); share it, and <see cref="JoinChallengeAsync"/> accepts it.
        /// </summary>
        public async Task<Invite> CreateChallengeInviteAsync(
            string gameId, string challengeId, long? expiresInMilliseconds = null,
            CancellationToken cancellationToken = default(CancellationToken))
        {
            var body = new Dictionary<string, object>();
            if (expiresInMilliseconds.HasValue) body["expiresInMilliseconds"] = expiresInMilliseconds.Value;
            var path = Challenges(gameId) + "/" + HttpCall.Segment(challengeId) + "/invites";
            return new Invite(await SendAsync(new HttpCall(HttpMethod.Post, path, body), cancellationToken).ConfigureAwait(false));
        }

        /// <summary>Accepts a challenge invite code: joins the time-boxed challenge (PROTOCOL 12.11). Any case, hyphen optional.</summary>
        public async Task<ChallengeDetail> JoinChallengeAsync(
            string gameId, string code, CancellationToken cancellationToken = default(CancellationToken))
        {
            var body = new Dictionary<string, object> { { "code", code } };
            return new ChallengeDetail(await SendAsync(new HttpCall(HttpMethod.Post, Challenges(gameId) + "/join", body),
                cancellationToken).ConfigureAwait(false));
        }

        /// <summary>
        /// Starts a new time-boxed challenge like an ended one, with the same participants, board
        /// and duration (PROTOCOL 12.4). Not idempotent, so not resent after a timeout.
        /// </summary>
        public async Task<ChallengeDetail> RematchAsync(
            string gameId, string challengeId, CancellationToken cancellationToken = default(CancellationToken))
        {
            var path = Challenges(gameId) + "/" + HttpCall.Segment(challengeId) + "/rematch";
            var call = new HttpCall(HttpMethod.Post, path, new Dictionary<string, object>()) { Resendable = false };
            return new ChallengeDetail(await SendAsync(call, cancellationToken).ConfigureAwait(false));
        }

        /// <summary>Declines a score or achievement challenge the player received (PROTOCOL 12.5).</summary>
        public async Task<ChallengeDetail> DeclineChallengeAsync(
            string gameId, string challengeId, CancellationToken cancellationToken = default(CancellationToken))
        {
            var path = Challenges(gameId) + "/" + HttpCall.Segment(challengeId) + "/decline";
            return new ChallengeDetail(await SendAsync(new HttpCall(HttpMethod.Post, path, new Dictionary<string, object>()),
                cancellationToken).ConfigureAwait(false));
        }

        /// <summary>The player's friends worth challenging with a score: those without an entry as good (PROTOCOL 12.7).</summary>
        public async Task<IReadOnlyList<string>> GetChallengeCandidatesAsync(
            string gameId, string boardId, long score, CancellationToken cancellationToken = default(CancellationToken))
        {
            var call = new HttpCall(HttpMethod.Get, Challenges(gameId) + "/candidates").With("boardId", boardId).With("score", score);
            var reply = await SendAsync(call, cancellationToken).ConfigureAwait(false);
            return reply.GetStrings("playerIds");
        }
    }
}
