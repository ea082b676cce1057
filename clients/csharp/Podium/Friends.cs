using System.Collections.Generic;

namespace Podium
{
    /// <summary>What other players see of a player: the id and the display name.</summary>
    public sealed class PlayerSummary
    {
        internal PlayerSummary(IReadOnlyDictionary<string, object> o)
        {
            PlayerId = o.GetString("playerId");
            DisplayName = o.GetString("displayName");
        }

        /// <summary>The player's id.</summary>
        public string PlayerId { get; private set; }
        /// <summary>The player's display name.</summary>
        public string DisplayName { get; private set; }
    }

    /// <summary>The relation states from the player's side (PROTOCOL 9.1).</summary>
    public static class FriendState
    {
        /// <summary>Nothing between them.</summary>
        public const string None = "none";
        /// <summary>The player asked; waiting for the other.</summary>
        public const string OutgoingRequest = "outgoing_request";
        /// <summary>The other player asked; waiting for this one.</summary>
        public const string IncomingRequest = "incoming_request";
        /// <summary>Friends both ways.</summary>
        public const string Friends = "friends";
        /// <summary>The player blocked the other.</summary>
        public const string Blocked = "blocked";
    }

    /// <summary>The relation with another player after a friends request (PROTOCOL 9.2).</summary>
    public sealed class FriendRelation
    {
        internal FriendRelation(IReadOnlyDictionary<string, object> o)
        {
            PlayerId = o.GetString("playerId");
            State = o.GetString("state");
        }

        /// <summary>The other player.</summary>
        public string PlayerId { get; private set; }
        /// <summary>A <see cref="FriendState"/>.</summary>
        public string State { get; private set; }
    }

    /// <summary>The player's friends, requests both ways, and blocked players (PROTOCOL 9.3).</summary>
    public sealed class FriendList
    {
        internal FriendList(IReadOnlyDictionary<string, object> o)
        {
            Friends = o.GetObjects("friends", p => new PlayerSummary(p));
            Incoming = o.GetObjects("incoming", p => new PlayerSummary(p));
            Outgoing = o.GetObjects("outgoing", p => new PlayerSummary(p));
            Blocked = o.GetObjects("blocked", p => new PlayerSummary(p));
        }

        /// <summary>Friends, by display name.</summary>
        public IReadOnlyList<PlayerSummary> Friends { get; private set; }
        /// <summary>Players who asked this one.</summary>
        public IReadOnlyList<PlayerSummary> Incoming { get; private set; }
        /// <summary>Players this one asked.</summary>
        public IReadOnlyList<PlayerSummary> Outgoing { get; private set; }
        /// <summary>Players this one blocked.</summary>
        public IReadOnlyList<PlayerSummary> Blocked { get; private set; }
    }

    /// <summary>An invite code as its owner sees it (PROTOCOL 9.5): a friend code or a challenge code.</summary>
    public sealed class Invite
    {
        internal Invite(IReadOnlyDictionary<string, object> o)
        {
            Code = o.GetString("code");
            Purpose = o.GetString("purpose");
            ChallengeId = o.GetStringOrNull("challengeId");
            GameId = o.GetStringOrNull("gameId");
            CreatedAt = o.GetInt64("createdAt");
            ExpiresAt = o.GetInt64("expiresAt");
            RevokedAt = o.GetInt64OrNull("revokedAt");
            Uses = o.GetInt64("uses");
        }

        /// <summary>The code, <c>XXXXX-XXXXX</c>; entered in any case, hyphen optional.</summary>
        public string Code { get; private set; }
        /// <summary><c>friend</c> or <c>challenge</c>.</summary>
        public string Purpose { get; private set; }
        /// <summary>The challenge a challenge code joins.</summary>
        public string ChallengeId { get; private set; }
        /// <summary>That challenge's game.</summary>
        public string GameId { get; private set; }
        /// <summary>When it was made, ms since the epoch.</summary>
        public long CreatedAt { get; private set; }
        /// <summary>When it stops working.</summary>
        public long ExpiresAt { get; private set; }
        /// <summary>When its owner revoked it, if they did.</summary>
        public long? RevokedAt { get; private set; }
        /// <summary>How often it was entered while it worked.</summary>
        public long Uses { get; private set; }
    }
}
