namespace Podium
{
    /// <summary>
    /// The stable error codes of docs/PROTOCOL.md section 13, and the three the client makes
    /// itself. Compare <see cref="PodiumException.Code"/> with these; treat a code you do not
    /// know as a generic failure.
    /// </summary>
    public static class ErrorCodes
    {
        // Made by the client, never sent by the server.

        /// <summary>Client: no answer within <see cref="PodiumOptions.RequestTimeout"/>; the request may or may not have been applied.</summary>
        public const string Timeout = "timeout";
        /// <summary>Client: the server could not be reached, or the connection broke before the answer.</summary>
        public const string Network = "network";
        /// <summary>Client: the server's answer is not what this client understands (a required member missing, not JSON).</summary>
        public const string InvalidReply = "invalid_reply";

        // The request itself.

        /// <summary>The body is not valid JSON.</summary>
        public const string MalformedJson = "malformed_json";
        /// <summary>A field has the wrong JSON type, or the body nests too deep.</summary>
        public const string InvalidShape = "invalid_shape";
        /// <summary>A required field is absent.</summary>
        public const string MissingField = "missing_field";
        /// <summary>A field's value breaks its rule (see <see cref="PodiumException.Field"/>).</summary>
        public const string InvalidField = "invalid_field";
        /// <summary>No service handles the request type.</summary>
        public const string UnknownType = "unknown_type";
        /// <summary>A request version above 1.</summary>
        public const string UnsupportedVersion = "unsupported_version";
        /// <summary>The request is larger than the server takes.</summary>
        public const string MessageTooLarge = "message_too_large";
        /// <summary>HTTP: the request head is too large.</summary>
        public const string HeaderTooLarge = "header_too_large";
        /// <summary>HTTP: the request head did not complete in time.</summary>
        public const string RequestTimeout = "request_timeout";
        /// <summary>A resend while the first send is still in flight on the same connection.</summary>
        public const string DuplicateRequestId = "duplicate_request_id";
        /// <summary>HTTP: no route has this method and path.</summary>
        public const string UnknownRoute = "unknown_route";

        // Availability: resend with the same idempotency key.

        /// <summary>The service is not connected, or the gateway is shutting down. Retryable.</summary>
        public const string ServiceUnavailable = "service_unavailable";
        /// <summary>The service did not answer in time; the request may or may not have been applied. Retryable.</summary>
        public const string ServiceTimeout = "service_timeout";
        /// <summary>Too many requests waiting; <see cref="PodiumException.RetryAfterMilliseconds"/> may say how long to wait. Retryable.</summary>
        public const string Overloaded = "overloaded";
        /// <summary>The data could not be written or read; nothing was changed. Retryable.</summary>
        public const string StorageUnavailable = "storage_unavailable";
        /// <summary>Achievements are being rebuilt; nothing was applied. Retryable.</summary>
        public const string Rebuilding = "rebuilding";
        /// <summary>Too many requests, or too many failed logins or invite guesses; see <see cref="PodiumException.RetryAfterMilliseconds"/>.</summary>
        public const string RateLimited = "rate_limited";
        /// <summary>An unexpected failure in the server.</summary>
        public const string InternalError = "internal_error";

        // Credentials.

        /// <summary>The request needs a credential and has none: log in first.</summary>
        public const string Unauthenticated = "unauthenticated";
        /// <summary>The session (or refresh) token is not valid: log in again.</summary>
        public const string InvalidToken = "invalid_token";
        /// <summary>The token expired; the client refreshes the session and resends by itself.</summary>
        public const string TokenExpired = "token_expired";
        /// <summary>The session was logged out or revoked: log in again.</summary>
        public const string SessionRevoked = "session_revoked";
        /// <summary>The credential does not allow this request.</summary>
        public const string Forbidden = "forbidden";
        /// <summary>The player is banned by an operator.</summary>
        public const string PlayerBanned = "player_banned";
        /// <summary>The player's account was deleted.</summary>
        public const string AccountDeleted = "account_deleted";
        /// <summary>A wrong username or password (never saying which), or a wrong key.</summary>
        public const string InvalidCredentials = "invalid_credentials";
        /// <summary>A username that breaks the rules.</summary>
        public const string InvalidUsername = "invalid_username";
        /// <summary>A password that breaks the rules.</summary>
        public const string InvalidPassword = "invalid_password";
        /// <summary>Another account has this username.</summary>
        public const string UsernameTaken = "username_taken";

        // The game's things.

        /// <summary>No such player.</summary>
        public const string UnknownPlayer = "unknown_player";
        /// <summary>The request conflicts with the current state (no score to challenge with, a challenge no longer pending, …).</summary>
        public const string Conflict = "conflict";
        /// <summary>The server has no configuration for this game.</summary>
        public const string UnknownGame = "unknown_game";
        /// <summary>The game has no such leaderboard.</summary>
        public const string UnknownBoard = "unknown_board";
        /// <summary>A score outside the board's minimum and maximum.</summary>
        public const string ScoreOutOfBounds = "score_out_of_bounds";
        /// <summary>The game has no such achievement.</summary>
        public const string UnknownAchievement = "unknown_achievement";
        /// <summary>No such challenge of the player's in this game.</summary>
        public const string UnknownChallenge = "unknown_challenge";
        /// <summary>Not an invite code, or no code matches.</summary>
        public const string UnknownInvite = "unknown_invite";
        /// <summary>No such operator account.</summary>
        public const string UnknownOperator = "unknown_operator";
        /// <summary>The invite code has expired.</summary>
        public const string InviteExpired = "invite_expired";
        /// <summary>The invite code was revoked by its owner.</summary>
        public const string InviteRevoked = "invite_revoked";
        /// <summary>A destructive request without its confirmation.</summary>
        public const string ConfirmationRequired = "confirmation_required";
        /// <summary>A request id already used for another request: use a new id for a new request.</summary>
        public const string IdReused = "id_reused";
        /// <summary>The event log was pruned (operators' rebuild only).</summary>
        public const string LogPruned = "log_pruned";
    }
}
