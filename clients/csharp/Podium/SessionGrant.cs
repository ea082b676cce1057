using System;
using System.Collections.Generic;

namespace Podium
{
    /// <summary>
    /// A logged-in session (docs/PROTOCOL.md 8.2): what register, login, device login and refresh
    /// answer. Keep it (<see cref="ISessionStore"/>) to stay logged in across launches; the refresh
    /// token is a secret and works once, so always keep the newest grant.
    /// </summary>
    public sealed class SessionGrant
    {
        internal SessionGrant(IReadOnlyDictionary<string, object> o)
        {
            PlayerId = o.GetString("playerId");
            DisplayName = o.GetStringOrNull("displayName");
            Username = o.GetStringOrNull("username");
            SessionId = o.GetString("sessionId");
            SessionToken = o.GetString("sessionToken");
            SessionExpiresAt = o.GetInt64("sessionExpiresAt");
            RefreshToken = o.GetString("refreshToken");
            RefreshExpiresAt = o.GetInt64("refreshExpiresAt");
            Created = o.GetFlag("created");
        }

        /// <summary>The player's stable id.</summary>
        public string PlayerId { get; private set; }
        /// <summary>The name shown to other players.</summary>
        public string DisplayName { get; private set; }
        /// <summary>The username; null for a device account that is not linked.</summary>
        public string Username { get; private set; }
        /// <summary>The session these tokens belong to (the same across refreshes).</summary>
        public string SessionId { get; private set; }
        /// <summary>The short-lived token sent with every request.</summary>
        public string SessionToken { get; private set; }
        /// <summary>When <see cref="SessionToken"/> expires, in milliseconds since the Unix epoch.</summary>
        public long SessionExpiresAt { get; private set; }
        /// <summary>Traded for new tokens by <see cref="PodiumClient.RefreshAsync"/>; works once. Keep it secret.</summary>
        public string RefreshToken { get; private set; }
        /// <summary>When <see cref="RefreshToken"/> expires, in milliseconds since the Unix epoch: log in again after it.</summary>
        public long RefreshExpiresAt { get; private set; }
        /// <summary>Whether the request that made this grant created the account.</summary>
        public bool Created { get; private set; }

        /// <summary><see cref="SessionExpiresAt"/> as a time.</summary>
        public DateTimeOffset SessionExpiresAtTime
        {
            get { return DateTimeOffset.FromUnixTimeMilliseconds(SessionExpiresAt); }
        }

        /// <summary>The grant as JSON, for a store (PlayerPrefs, a file, the keychain).</summary>
        public string ToJson()
        {
            var members = new Dictionary<string, object>
            {
                { "playerId", PlayerId }, { "sessionId", SessionId }, { "sessionToken", SessionToken },
                { "sessionExpiresAt", SessionExpiresAt }, { "refreshToken", RefreshToken },
                { "refreshExpiresAt", RefreshExpiresAt }, { "created", Created },
            };
            if (DisplayName != null) members["displayName"] = DisplayName;
            if (Username != null) members["username"] = Username;
            return Json.Write(members);
        }

        /// <summary>Reads what <see cref="ToJson"/> wrote; throws <see cref="FormatException"/> or <see cref="PodiumException"/> on anything else.</summary>
        public static SessionGrant FromJson(string json)
        {
            return new SessionGrant(JsonFields.AsObject(Json.Parse(json), "session"));
        }
    }
}
