using System.Collections.Generic;

namespace Podium
{
    /// <summary>A kept notification (PROTOCOL 14.5, <c>InboxItem</c>).</summary>
    public sealed class InboxItem
    {
        internal InboxItem(IReadOnlyDictionary<string, object> o)
        {
            Json = o;
            Id = o.GetString("id");
            Kind = o.GetString("kind");
            Message = o.GetString("message");
            Details = o.GetObject("details");
            CreatedAt = o.GetInt64("createdAt");
            Read = o.GetBoolean("read");
            Position = o.GetInt64OrNull("position");
            CorrelationId = o.GetStringOrNull("correlationId");
        }

        /// <summary>The item's id; the live notification carries it as <see cref="PodiumNotification.InboxId"/>.</summary>
        public string Id { get; private set; }
        /// <summary>What happened, as the notification's kind (<c>challenge.received</c>, <c>achievement.earned</c>, …).</summary>
        public string Kind { get; private set; }
        /// <summary>Text that can be shown as it is.</summary>
        public string Message { get; private set; }
        /// <summary>Details that depend on the kind.</summary>
        public IReadOnlyDictionary<string, object> Details { get; private set; }
        /// <summary>When it was made, ms since the epoch.</summary>
        public long CreatedAt { get; private set; }
        /// <summary>Whether it was marked read.</summary>
        public bool Read { get; private set; }
        /// <summary>Its place in the player's inbox: ask for the items after the highest one seen.</summary>
        public long? Position { get; private set; }
        /// <summary>The request or game event that caused it.</summary>
        public string CorrelationId { get; private set; }
        /// <summary>The item as received.</summary>
        public IReadOnlyDictionary<string, object> Json { get; private set; }
    }

    /// <summary>A page of the inbox (PROTOCOL 14.5, <c>InboxList</c>).</summary>
    public sealed class InboxPage
    {
        internal InboxPage(IReadOnlyDictionary<string, object> o)
        {
            Items = o.GetObjects("items", i => new InboxItem(i));
            NextBefore = o.GetInt64OrNull("nextBefore");
            Unread = o.GetInt64("unread");
        }

        /// <summary>Newest first, or oldest first for an <c>after</c> page.</summary>
        public IReadOnlyList<InboxItem> Items { get; private set; }
        /// <summary>Pass as <c>before</c> for the next older page; null when there is nothing older.</summary>
        public long? NextBefore { get; private set; }
        /// <summary>The player's unread items in the game, of every kind.</summary>
        public long Unread { get; private set; }
    }
}
