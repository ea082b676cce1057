using System.Collections.Generic;

namespace Podium
{
    /// <summary>A notification pushed on the WebSocket (PROTOCOL 14.1), such as <c>challenge.received</c>.</summary>
    public sealed class PodiumNotification
    {
        internal PodiumNotification(IReadOnlyDictionary<string, object> envelope)
        {
            Json = envelope;
            Id = envelope.GetString("id");
            GameId = envelope.GetStringOrNull("gameId");
            PlayerId = envelope.GetStringOrNull("playerId");
            CorrelationId = envelope.GetStringOrNull("correlationId");
            Timestamp = envelope.GetInt64("timestamp");
            var payload = envelope.GetObject("payload");
            Kind = payload.GetString("kind");
            Message = payload.GetString("message");
            Details = payload.GetObjectOrNull("details") ?? JsonFields.Empty;
            InboxId = Details.GetStringOrNull("inboxId");
        }

        /// <summary>The notification's own id.</summary>
        public string Id { get; private set; }
        /// <summary>What happened: <c>challenge.received</c>, <c>challenge.completed</c>, <c>achievement.earned</c>, <c>friend.requested</c>, …</summary>
        public string Kind { get; private set; }
        /// <summary>Short text that can be shown to the player as it is.</summary>
        public string Message { get; private set; }
        /// <summary>Details that depend on <see cref="Kind"/> (PROTOCOL 14.1).</summary>
        public IReadOnlyDictionary<string, object> Details { get; private set; }
        /// <summary>The game (null for the operators' notices).</summary>
        public string GameId { get; private set; }
        /// <summary>The player it is for.</summary>
        public string PlayerId { get; private set; }
        /// <summary>The id of the request that caused it (it may be one of the player's own).</summary>
        public string CorrelationId { get; private set; }
        /// <summary>When it was made, ms since the epoch.</summary>
        public long Timestamp { get; private set; }
        /// <summary>The inbox item that keeps it (<c>details.inboxId</c>); null for kinds not kept.</summary>
        public string InboxId { get; private set; }
        /// <summary>The envelope as received.</summary>
        public IReadOnlyDictionary<string, object> Json { get; private set; }
    }
}
