using System;
using System.Collections.Generic;
using System.Threading.Tasks;

namespace Podium
{
    /// <summary>
    /// The socket's requests waiting for their answers. An envelope answers a request only when
    /// its <c>type</c> is <c>reply</c> or <c>error</c> and its <c>correlationId</c> is the
    /// request's id: a notification caused by the same request carries the same
    /// <c>correlationId</c> and may arrive first, and must not be taken for the reply.
    /// </summary>
    internal sealed class PendingReplies
    {
        private readonly Dictionary<string, TaskCompletionSource<IReadOnlyDictionary<string, object>>> waiting =
            new Dictionary<string, TaskCompletionSource<IReadOnlyDictionary<string, object>>>(StringComparer.Ordinal);

        /// <summary>Requests still waiting.</summary>
        public int Count
        {
            get { lock (waiting) return waiting.Count; }
        }

        /// <summary>Starts waiting for the answer to request <paramref name="id"/>: its payload, or a <see cref="PodiumException"/>.</summary>
        public Task<IReadOnlyDictionary<string, object>> Expect(string id)
        {
            var answer = new TaskCompletionSource<IReadOnlyDictionary<string, object>>(
                TaskCreationOptions.RunContinuationsAsynchronously);
            lock (waiting)
            {
                if (waiting.ContainsKey(id))
                    throw new PodiumException(ErrorCodes.DuplicateRequestId, "request " + id + " is already waiting for its reply", requestId: id);
                waiting.Add(id, answer);
            }
            return answer.Task;
        }

        /// <summary>Stops waiting for <paramref name="id"/>, failing its task with <paramref name="error"/>; false when it was answered already.</summary>
        public bool Fail(string id, PodiumException error)
        {
            TaskCompletionSource<IReadOnlyDictionary<string, object>> answer;
            lock (waiting)
            {
                if (!waiting.TryGetValue(id, out answer)) return false;
                waiting.Remove(id);
            }
            answer.TrySetException(error);
            return true;
        }

        /// <summary>Gives an envelope to the request it answers; false when it answers none (a notification, an unknown id).</summary>
        public bool Deliver(IReadOnlyDictionary<string, object> envelope)
        {
            object type, correlation;
            envelope.TryGetValue("type", out type);
            if (!"reply".Equals(type) && !"error".Equals(type)) return false;
            envelope.TryGetValue("correlationId", out correlation);
            var id = correlation as string;
            if (id == null) return false;
            TaskCompletionSource<IReadOnlyDictionary<string, object>> answer;
            lock (waiting)
            {
                if (!waiting.TryGetValue(id, out answer)) return false;
                waiting.Remove(id);
            }
            object payloadValue;
            envelope.TryGetValue("payload", out payloadValue);
            var payload = payloadValue as IReadOnlyDictionary<string, object> ?? JsonFields.Empty;
            if ("reply".Equals(type)) answer.TrySetResult(payload);
            else answer.TrySetException(ErrorFrom(payload, id));
            return true;
        }

        /// <summary>Fails every waiting request (the socket closed before their replies).</summary>
        public void FailAll(Func<string, PodiumException> error)
        {
            List<KeyValuePair<string, TaskCompletionSource<IReadOnlyDictionary<string, object>>>> all;
            lock (waiting)
            {
                all = new List<KeyValuePair<string, TaskCompletionSource<IReadOnlyDictionary<string, object>>>>(waiting);
                waiting.Clear();
            }
            foreach (var pair in all) pair.Value.TrySetException(error(pair.Key));
        }

        /// <summary>The exception for an error envelope's payload (PROTOCOL 6).</summary>
        public static PodiumException ErrorFrom(IReadOnlyDictionary<string, object> payload, string requestId)
        {
            object code, message, field, retryAfter;
            payload.TryGetValue("code", out code);
            payload.TryGetValue("message", out message);
            payload.TryGetValue("field", out field);
            payload.TryGetValue("retryAfterMilliseconds", out retryAfter);
            return new PodiumException(
                code as string ?? ErrorCodes.InternalError, message as string ?? "error", null, field as string,
                retryAfter is long ? (long?)(long)retryAfter : null, requestId);
        }
    }
}
