using System;

namespace Podium
{
    /// <summary>What the live connection does next.</summary>
    internal enum ReconnectAction
    {
        /// <summary>Give up: a new socket would be refused too.</summary>
        Stop,
        /// <summary>Refresh the session, then connect again.</summary>
        RefreshThenReconnect,
        /// <summary>Wait <see cref="ReconnectDecision.Delay"/>, then connect again.</summary>
        ReconnectAfterDelay,
    }

    /// <summary>A decision of <see cref="ReconnectPolicy"/>.</summary>
    internal struct ReconnectDecision
    {
        public ReconnectAction Action;
        public TimeSpan Delay;
        /// <summary>The session is dead for good (revoked, account deleted): forget it.</summary>
        public bool ForgetSession;

        public static ReconnectDecision Stop(bool forgetSession)
        {
            return new ReconnectDecision { Action = ReconnectAction.Stop, ForgetSession = forgetSession };
        }
    }

    /// <summary>
    /// The live connection's rules (docs/PROTOCOL.md section 21), as a pure function of what
    /// happened: the close code, or the code of a refused hello or refresh, and how many attempts
    /// in a row have failed. Tested without sockets.
    /// </summary>
    internal struct ReconnectPolicy
    {
        public TimeSpan FirstDelay;
        public TimeSpan MaxDelay;

        public ReconnectPolicy(TimeSpan firstDelay, TimeSpan maxDelay)
        {
            FirstDelay = firstDelay;
            MaxDelay = maxDelay;
        }

        /// <summary>
        /// The wait after <paramref name="failures"/> failed attempts in a row (1 or more): the
        /// first delay, doubled each time, capped; a random half of it is left out.
        /// </summary>
        public TimeSpan Backoff(int failures, double jitter)
        {
            var doubled = FirstDelay.TotalMilliseconds * Math.Pow(2, Math.Min(Math.Max(failures, 1) - 1, 20));
            var full = Math.Min(MaxDelay.TotalMilliseconds, doubled);
            return TimeSpan.FromMilliseconds(full / 2 + jitter * full / 2);
        }

        /// <summary>After a socket that had said hello closed with <paramref name="closeCode"/>.</summary>
        public ReconnectDecision AfterClose(int closeCode, int failures, double jitter)
        {
            switch (closeCode)
            {
                case SocketCloseCodes.SessionExpired:
                    return new ReconnectDecision { Action = ReconnectAction.RefreshThenReconnect };
                case SocketCloseCodes.SessionRevoked:
                case SocketCloseCodes.AccountDeleted:
                    return ReconnectDecision.Stop(true);
                case SocketCloseCodes.PlayerBanned:
                    return ReconnectDecision.Stop(false);
                default:
                    return Wait(failures, jitter);
            }
        }

        /// <summary>After the hello (or the connection before it) failed with <paramref name="code"/>.</summary>
        public ReconnectDecision AfterHelloFailed(string code, int failures, double jitter)
        {
            if (code == ErrorCodes.TokenExpired)
            {
                // Refresh at once the first time; if that keeps happening, slow down.
                var decision = new ReconnectDecision { Action = ReconnectAction.RefreshThenReconnect };
                if (failures > 1) decision.Delay = Backoff(failures, jitter);
                return decision;
            }
            if (RetryPolicy.IsRetryable(code) || code == ErrorCodes.RateLimited) return Wait(failures, jitter);
            return ReconnectDecision.Stop(IsSessionDead(code));
        }

        /// <summary>After the refresh that should have renewed the session failed with <paramref name="code"/>.</summary>
        public ReconnectDecision AfterRefreshFailed(string code, int failures, double jitter)
        {
            if (RetryPolicy.IsRetryable(code) || code == ErrorCodes.RateLimited) return Wait(failures, jitter);
            // An expired refresh token is a dead session too: log in again.
            return ReconnectDecision.Stop(IsSessionDead(code) || code == ErrorCodes.TokenExpired);
        }

        private ReconnectDecision Wait(int failures, double jitter)
        {
            return new ReconnectDecision { Action = ReconnectAction.ReconnectAfterDelay, Delay = Backoff(failures, jitter) };
        }

        private static bool IsSessionDead(string code)
        {
            return code == ErrorCodes.SessionRevoked || code == ErrorCodes.InvalidToken || code == ErrorCodes.AccountDeleted;
        }
    }
}
