using System.Collections.Generic;

namespace Podium
{
    /// <summary>The player's own account (PROTOCOL 8.10).</summary>
    public sealed class PlayerProfile
    {
        internal PlayerProfile(IReadOnlyDictionary<string, object> o)
        {
            Json = o;
            PlayerId = o.GetString("playerId");
            DisplayName = o.GetString("displayName");
            Username = o.GetStringOrNull("username");
            LinkedDevices = o.GetInt64("linkedDevices");
            CreatedAt = o.GetInt64("createdAt");
        }

        /// <summary>The player's stable id.</summary>
        public string PlayerId { get; private set; }
        /// <summary>The name other players see.</summary>
        public string DisplayName { get; private set; }
        /// <summary>The username; null for a device account that is not linked.</summary>
        public string Username { get; private set; }
        /// <summary>Devices whose device login returns this account.</summary>
        public long LinkedDevices { get; private set; }
        /// <summary>When the account was made, ms since the Unix epoch.</summary>
        public long CreatedAt { get; private set; }
        /// <summary>The reply as received, with any member this version does not know.</summary>
        public IReadOnlyDictionary<string, object> Json { get; private set; }
    }
}
