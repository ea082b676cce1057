using System.Collections.Generic;
using System.Net.Http;
using System.Threading;
using System.Threading.Tasks;

namespace Podium
{
    public sealed partial class PodiumClient
    {
        /// <summary>The player's friends, requests both ways and blocked players (PROTOCOL 9.3).</summary>
        public async Task<FriendList> GetFriendsAsync(CancellationToken cancellationToken = default(CancellationToken))
        {
            return new FriendList(await SendAsync(new HttpCall(HttpMethod.Get, "/v1/friends"), cancellationToken)
                .ConfigureAwait(false));
        }

        /// <summary>
        /// Asks another player to be friends (PROTOCOL 9.2). With <paramref name="gameId"/> the
        /// request comes from that game, and the other player is told there (<c>friend.requested</c>).
        /// </summary>
        public Task<FriendRelation> RequestFriendAsync(
            string playerId, string gameId = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            return FriendActionAsync("request", playerId, gameId, cancellationToken);
        }

        /// <summary>Accepts a friend request; with <paramref name="gameId"/>, the asker is told in that game (<c>friend.accepted</c>).</summary>
        public Task<FriendRelation> AcceptFriendAsync(
            string playerId, string gameId = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            return FriendActionAsync("accept", playerId, gameId, cancellationToken);
        }

        /// <summary>Declines a friend request.</summary>
        public Task<FriendRelation> DeclineFriendAsync(
            string playerId, CancellationToken cancellationToken = default(CancellationToken))
        {
            return FriendActionAsync("decline", playerId, null, cancellationToken);
        }

        /// <summary>Ends a friendship, or withdraws the player's own request.</summary>
        public Task<FriendRelation> RemoveFriendAsync(
            string playerId, CancellationToken cancellationToken = default(CancellationToken))
        {
            return FriendActionAsync("remove", playerId, null, cancellationToken);
        }

        /// <summary>Blocks a player: no friend requests or challenges between the two.</summary>
        public Task<FriendRelation> BlockPlayerAsync(
            string playerId, CancellationToken cancellationToken = default(CancellationToken))
        {
            return FriendActionAsync("block", playerId, null, cancellationToken);
        }

        /// <summary>Unblocks a player.</summary>
        public Task<FriendRelation> UnblockPlayerAsync(
            string playerId, CancellationToken cancellationToken = default(CancellationToken))
        {
            return FriendActionAsync("unblock", playerId, null, cancellationToken);
        }

        private async Task<FriendRelation> FriendActionAsync(
            string action, string playerId, string gameId, CancellationToken cancellationToken)
        {
            var prefix = gameId == null ? "/v1" : HttpCall.Game(gameId);
            var path = prefix + "/friends/" + HttpCall.Segment(playerId) + "/" + action;
            return new FriendRelation(await SendAsync(new HttpCall(HttpMethod.Post, path, new Dictionary<string, object>()),
                cancellationToken).ConfigureAwait(false));
        }

        /// <summary>A friend code to share (PROTOCOL 9.5): whoever redeems it sends the player a friend request.</summary>
        public async Task<Invite> CreateFriendInviteAsync(
            long? expiresInMilliseconds = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            var body = new Dictionary<string, object>();
            if (expiresInMilliseconds.HasValue) body["expiresInMilliseconds"] = expiresInMilliseconds.Value;
            return new Invite(await SendAsync(new HttpCall(HttpMethod.Post, "/v1/invites", body), cancellationToken)
                .ConfigureAwait(false));
        }

        /// <summary>
        /// Redeems a friend code: a friend request to its owner (PROTOCOL 9.5). With
        /// <paramref name="gameId"/>, the owner is told in that game.
        /// </summary>
        public async Task<FriendRelation> RedeemFriendInviteAsync(
            string code, string gameId = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            var prefix = gameId == null ? "/v1" : HttpCall.Game(gameId);
            var body = new Dictionary<string, object> { { "code", code } };
            return new FriendRelation(await SendAsync(new HttpCall(HttpMethod.Post, prefix + "/invites/redeem", body),
                cancellationToken).ConfigureAwait(false));
        }

        /// <summary>The player's codes that still work, both purposes, newest first.</summary>
        public async Task<IReadOnlyList<Invite>> GetInvitesAsync(CancellationToken cancellationToken = default(CancellationToken))
        {
            var reply = await SendAsync(new HttpCall(HttpMethod.Get, "/v1/invites"), cancellationToken).ConfigureAwait(false);
            return reply.GetObjects("invites", o => new Invite(o));
        }

        /// <summary>Stops one of the player's codes; false when it was revoked already.</summary>
        public async Task<bool> RevokeInviteAsync(string code, CancellationToken cancellationToken = default(CancellationToken))
        {
            var body = new Dictionary<string, object> { { "code", code } };
            var reply = await SendAsync(new HttpCall(HttpMethod.Post, "/v1/invites/revoke", body), cancellationToken)
                .ConfigureAwait(false);
            return reply.GetBoolean("revoked");
        }
    }
}
