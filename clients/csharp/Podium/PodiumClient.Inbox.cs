using System;
using System.Collections.Generic;
using System.Net.Http;
using System.Threading;
using System.Threading.Tasks;

namespace Podium
{
    public sealed partial class PodiumClient
    {
        /// <summary>
        /// A page of the player's kept notifications in a game (PROTOCOL 14.5): newest first, or
        /// with <paramref name="after"/> (the highest position seen) the ones missed since, oldest
        /// first, the way to catch up after <see cref="Connected"/>; <paramref name="before"/> pages
        /// back (a page's <see cref="InboxPage.NextBefore"/>).
        /// </summary>
        public async Task<InboxPage> GetInboxAsync(
            string gameId, long? after = null, long? before = null, bool unreadOnly = false,
            IEnumerable<string> kinds = null, int? limit = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            var call = new HttpCall(HttpMethod.Get, HttpCall.Game(gameId) + "/inbox/items")
                .With("after", after).With("before", before).With("unreadOnly", unreadOnly ? (object)true : null)
                .With("kinds", kinds == null ? null : string.Join(",", kinds)).With("limit", limit);
            return new InboxPage(await SendAsync(call, cancellationToken).ConfigureAwait(false));
        }

        /// <summary>The player's unread items in the game, of every kind (for a badge).</summary>
        public async Task<long> GetUnreadCountAsync(string gameId, CancellationToken cancellationToken = default(CancellationToken))
        {
            var reply = await SendAsync(new HttpCall(HttpMethod.Get, HttpCall.Game(gameId) + "/inbox/unread"), cancellationToken)
                .ConfigureAwait(false);
            return reply.GetInt64("unread");
        }

        /// <summary>Marks items read (a notification's <see cref="PodiumNotification.InboxId"/> or an item's id); answers how many were unread.</summary>
        public Task<long> MarkReadAsync(
            string gameId, IEnumerable<string> ids, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (ids == null) throw new ArgumentNullException("ids");
            return InboxChangeAsync(gameId, "read", "marked", new Dictionary<string, object> { { "ids", new List<object>(ids) } },
                cancellationToken);
        }

        /// <summary>Marks every item of the game read.</summary>
        public Task<long> MarkAllReadAsync(string gameId, CancellationToken cancellationToken = default(CancellationToken))
        {
            return InboxChangeAsync(gameId, "read", "marked", new Dictionary<string, object> { { "all", true } }, cancellationToken);
        }

        /// <summary>Deletes items for good; answers how many were deleted.</summary>
        public Task<long> DeleteInboxItemsAsync(
            string gameId, IEnumerable<string> ids, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (ids == null) throw new ArgumentNullException("ids");
            return InboxChangeAsync(gameId, "delete", "deleted",
                new Dictionary<string, object> { { "ids", new List<object>(ids) } }, cancellationToken);
        }

        private async Task<long> InboxChangeAsync(
            string gameId, string action, string counted, Dictionary<string, object> body, CancellationToken cancellationToken)
        {
            var reply = await SendAsync(new HttpCall(HttpMethod.Post, HttpCall.Game(gameId) + "/inbox/" + action, body),
                cancellationToken).ConfigureAwait(false);
            return reply.GetInt64(counted);
        }
    }
}
