using System;

namespace Podium
{
    /// <summary>
    /// A request that failed: an error reply from Podium (docs/PROTOCOL.md section 13), or a
    /// failure on the client's side (<see cref="ErrorCodes.Timeout"/>, <see cref="ErrorCodes.Network"/>,
    /// <see cref="ErrorCodes.InvalidReply"/>). Switch on <see cref="Code"/>, never on the message.
    /// </summary>
    public class PodiumException : Exception
    {
        /// <summary>Makes an error; the client makes them, games normally only catch them.</summary>
        public PodiumException(
            string code, string message, int? status = null, string field = null, long? retryAfterMilliseconds = null,
            string requestId = null, Exception inner = null)
            : base(message, inner)
        {
            Code = code ?? ErrorCodes.InternalError;
            Status = status;
            Field = field;
            RetryAfterMilliseconds = retryAfterMilliseconds;
            RequestId = requestId;
        }

        /// <summary>The stable, machine-readable code (<see cref="ErrorCodes"/>); codes never change meaning, new ones may come.</summary>
        public string Code { get; private set; }

        /// <summary>The HTTP status the error came with; null when it came over the WebSocket or from the client itself.</summary>
        public int? Status { get; private set; }

        /// <summary>The request field to blame as a dotted path (<c>payload.boardId</c>), when there is one.</summary>
        public string Field { get; private set; }

        /// <summary>How long to wait before trying again (with <c>rate_limited</c>, <c>overloaded</c>, <c>rebuilding</c>, …).</summary>
        public long? RetryAfterMilliseconds { get; private set; }

        /// <summary>The request id (idempotency key) of the failed request, when known.</summary>
        public string RequestId { get; private set; }

        /// <summary>
        /// Whether the same request may be sent again with the same idempotency key: the server
        /// may not have applied it, and a resend is answered with the original answer if it did.
        /// The client already did so (<see cref="PodiumOptions.Attempts"/>) before throwing.
        /// </summary>
        public bool IsRetryable
        {
            get { return RetryPolicy.IsRetryable(Code); }
        }

        /// <summary>The code and the message, as a log line.</summary>
        public override string ToString()
        {
            return "PodiumException(" + Code + (Status.HasValue ? ", " + Status.Value : "")
                + (Field != null ? ", field " + Field : "") + "): " + Message;
        }
    }
}
