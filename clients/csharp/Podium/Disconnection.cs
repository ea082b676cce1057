namespace Podium
{
    /// <summary>Why the live connection ended, and whether the client will connect again (<see cref="PodiumClient.Disconnected"/>).</summary>
    public sealed class Disconnection
    {
        internal Disconnection(int? closeCode, string reason, bool willReconnect, PodiumException error)
        {
            CloseCode = closeCode;
            Reason = reason;
            WillReconnect = willReconnect;
            Error = error;
        }

        /// <summary>The WebSocket close code (<see cref="SocketCloseCodes"/>); null when no socket was open.</summary>
        public int? CloseCode { get; private set; }
        /// <summary>The close reason the server gave, if any.</summary>
        public string Reason { get; private set; }
        /// <summary>Whether the client keeps trying (with backoff, or at once after refreshing an expired session).</summary>
        public bool WillReconnect { get; private set; }
        /// <summary>What made the client give up or wait: a refused hello, a failed refresh, an unreachable server.</summary>
        public PodiumException Error { get; private set; }

        /// <summary>For logs.</summary>
        public override string ToString()
        {
            return "Disconnection(" + (CloseCode.HasValue ? CloseCode.Value.ToString() : "no socket")
                + (Reason != null ? " " + Reason : "") + (WillReconnect ? ", reconnecting" : ", stopped")
                + (Error != null ? ", " + Error.Code : "") + ")";
        }
    }
}
