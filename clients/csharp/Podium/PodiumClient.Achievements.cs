using System;
using System.Collections.Generic;
using System.Net.Http;
using System.Threading;
using System.Threading.Tasks;

namespace Podium
{
    public sealed partial class PodiumClient
    {
        /// <summary>The game's achievements with the player's progress, descriptions and rarity (PROTOCOL 11.2).</summary>
        public async Task<AchievementList> GetAchievementsAsync(
            string gameId, CancellationToken cancellationToken = default(CancellationToken))
        {
            return new AchievementList(await SendAsync(new HttpCall(HttpMethod.Get, HttpCall.Game(gameId) + "/achievements"),
                cancellationToken).ConfigureAwait(false));
        }

        /// <summary>
        /// Reports progress on achievements the game tracks itself (PROTOCOL 11.1): all or none of
        /// the batch applies. Achievements with a rule are earned from the game's events instead.
        /// </summary>
        public async Task<AchievementReportResult> ReportAchievementsAsync(
            string gameId, IEnumerable<AchievementReport> reports, string idempotencyKey = null,
            CancellationToken cancellationToken = default(CancellationToken))
        {
            if (reports == null) throw new ArgumentNullException("reports");
            var list = new List<object>();
            foreach (var report in reports) list.Add(report.ToPayload());
            var body = new Dictionary<string, object> { { "reports", list } };
            var call = new HttpCall(HttpMethod.Post, HttpCall.Game(gameId) + "/achievements/reports", body)
            {
                IdempotencyKey = idempotencyKey,
            };
            return new AchievementReportResult(await SendAsync(call, cancellationToken).ConfigureAwait(false));
        }

        /// <summary>Reports one achievement's progress; see <see cref="ReportAchievementsAsync"/>.</summary>
        public async Task<AchievementOutcome> ReportAchievementAsync(
            string gameId, AchievementReport report, CancellationToken cancellationToken = default(CancellationToken))
        {
            var result = await ReportAchievementsAsync(gameId, new[] { report }, null, cancellationToken).ConfigureAwait(false);
            if (result.Outcomes.Count != 1) throw JsonFields.Invalid("outcomes", "one outcome");
            return result.Outcomes[0];
        }

        /// <summary>
        /// Deletes the player's achievements in the game, progress and earned ones, for good
        /// (PROTOCOL 11.3). Answers how many records were deleted.
        /// </summary>
        public async Task<long> ResetAchievementsAsync(
            string gameId, CancellationToken cancellationToken = default(CancellationToken))
        {
            var body = new Dictionary<string, object> { { "confirm", true }, { "gameId", gameId } };
            var reply = await SendAsync(new HttpCall(HttpMethod.Post, HttpCall.Game(gameId) + "/achievements/reset", body),
                cancellationToken).ConfigureAwait(false);
            return reply.GetInt64("resetAchievements");
        }
    }
}
