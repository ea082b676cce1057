using System;

namespace Podium
{
    /// <summary>
    /// Decides whether a failed HTTP attempt is sent again (always with the same idempotency key)
    /// and after how long. Pure: the caller supplies the jitter, so the rules are tested without
    /// a server.
    /// </summary>
    internal struct RetryPolicy
    {
        /// <summary>Attempts in all, the first included.</summary>
        public int Attempts;
        /// <summary>The wait before the second attempt when the server says nothing; doubled for each further one.</summary>
        public TimeSpan FirstDelay;
        /// <summary>The longest wait; an error that asks for a longer one is thrown instead.</summary>
        public TimeSpan MaxDelay;

        public RetryPolicy(int attempts, TimeSpan firstDelay, TimeSpan maxDelay)
        {
            Attempts = Math.Max(1, attempts);
            FirstDelay = firstDelay;
            MaxDelay = maxDelay;
        }

        /// <summary>
        /// Codes after which the request may not have been applied, or was refused without
        /// effect for a while: resending the same request with the same key is safe (PROTOCOL 4.2).
        /// </summary>
        public static bool IsRetryable(string code)
        {
            switch (code)
            {
                case ErrorCodes.ServiceUnavailable:
                case ErrorCodes.ServiceTimeout:
                case ErrorCodes.Overloaded:
                case ErrorCodes.StorageUnavailable:
                case ErrorCodes.Rebuilding:
                case ErrorCodes.Network:
                case ErrorCodes.Timeout:
                    return true;
                default:
                    return false;
            }
        }

        /// <summary>
        /// Retryable codes that also say the request was not applied, so that even a request
        /// without a receipt (a refresh, a rematch) may be sent again after them.
        /// </summary>
        public static bool IsNotApplied(string code)
        {
            switch (code)
            {
                case ErrorCodes.ServiceUnavailable:
                case ErrorCodes.Overloaded:
                case ErrorCodes.StorageUnavailable:
                case ErrorCodes.Rebuilding:
                    return true;
                default:
                    return false;
            }
        }

        /// <summary>
        /// The wait before attempt <paramref name="attempt"/> + 1 after <paramref name="error"/>,
        /// or null to give up and throw. <paramref name="jitter"/> is in [0, 1).
        /// </summary>
        public TimeSpan? DelayAfter(PodiumException error, int attempt, double jitter)
        {
            if (!IsRetryable(error.Code) || attempt >= Attempts) return null;
            TimeSpan wait;
            if (error.RetryAfterMilliseconds.HasValue)
            {
                wait = TimeSpan.FromMilliseconds(Math.Max(0, error.RetryAfterMilliseconds.Value));
                // The server asks for longer than the game wants to wait: let the game decide.
                if (wait > MaxDelay) return null;
            }
            else
            {
                var exponential = FirstDelay.TotalMilliseconds * Math.Pow(2, Math.Min(attempt - 1, 16));
                wait = TimeSpan.FromMilliseconds(Math.Min(MaxDelay.TotalMilliseconds, exponential));
            }
            // Up to a tenth more, so that clients that failed together do not come back together.
            return wait + TimeSpan.FromMilliseconds(wait.TotalMilliseconds * 0.1 * jitter);
        }
    }
}
