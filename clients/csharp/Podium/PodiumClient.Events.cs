using System.Collections.Generic;
using System.Net.Http;
using System.Threading;
using System.Threading.Tasks;

namespace Podium
{
    public sealed partial class PodiumClient
    {
        /// <summary>
        /// Reports a game event (PROTOCOL 7.1), from which rules earn achievements and defined
        /// challenges count runs. Acknowledged once it is on disk; resent with the same key, so it
        /// is logged once. Answers the acknowledgement (<c>eventId</c>, <c>sequence</c>, <c>duplicate</c>).
        /// </summary>
        public Task<IReadOnlyDictionary<string, object>> PublishEventAsync(
            string gameId, string name, long? value = null, IDictionary<string, object> attributes = null,
            string idempotencyKey = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            var body = new Dictionary<string, object> { { "name", name } };
            if (value.HasValue) body["value"] = value.Value;
            if (attributes != null) body["attributes"] = attributes;
            return SendAsync(new HttpCall(HttpMethod.Post, HttpCall.Game(gameId) + "/events", body) { IdempotencyKey = idempotencyKey },
                cancellationToken);
        }
    }
}
