namespace Podium
{
    /// <summary>
    /// WebSocket close codes the gateway uses (docs/PROTOCOL.md section 21), and what the client
    /// does after each (see <see cref="PodiumClient.Disconnected"/>).
    /// </summary>
    public static class SocketCloseCodes
    {
        /// <summary>The client closed the socket (<see cref="PodiumClient.DisconnectAsync"/>).</summary>
        public const int Normal = 1000;
        /// <summary>The gateway is shutting down: reconnect with backoff.</summary>
        public const int GoingAway = 1001;
        /// <summary>The connection broke without a close message: reconnect with backoff.</summary>
        public const int Abnormal = 1006;
        /// <summary>Text that is not UTF-8 was sent.</summary>
        public const int InvalidText = 1007;
        /// <summary>The client did not read fast enough: reconnect with backoff.</summary>
        public const int PolicyViolation = 1008;
        /// <summary>A message larger than the server takes was sent.</summary>
        public const int MessageTooBig = 1009;
        /// <summary>The hello's session token expired: the client refreshes the session and reconnects at once.</summary>
        public const int SessionExpired = 4001;
        /// <summary>The session was logged out or revoked: no reconnection, the session is forgotten; log in again.</summary>
        public const int SessionRevoked = 4003;
        /// <summary>An operator banned the player: no reconnection; tell the player.</summary>
        public const int PlayerBanned = 4004;
        /// <summary>The player's account was deleted: no reconnection, the session is forgotten.</summary>
        public const int AccountDeleted = 4005;
    }
}
