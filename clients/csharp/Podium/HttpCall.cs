using System;
using System.Collections.Generic;
using System.Globalization;
using System.Net.Http;
using System.Text;

namespace Podium
{
    /// <summary>
    /// One HTTP request of the protocol (docs/PROTOCOL.md section 20), before it is sent: the
    /// route, its query and body, whether it carries the session, and whether it may be resent
    /// after an answer that leaves open whether it was applied.
    /// </summary>
    internal sealed class HttpCall
    {
        private readonly List<KeyValuePair<string, string>> query = new List<KeyValuePair<string, string>>();

        public HttpCall(HttpMethod method, string path, object body = null)
        {
            Method = method;
            Path = path;
            Body = body;
            Authenticated = true;
            Resendable = true;
        }

        public HttpMethod Method { get; private set; }
        /// <summary>The path under the base URL, segments already escaped (<see cref="Segment"/>).</summary>
        public string Path { get; private set; }
        /// <summary>The JSON body (a dictionary), or null for none.</summary>
        public object Body { get; private set; }
        /// <summary>Whether the session token goes along (not for login, register and refresh).</summary>
        public bool Authenticated { get; set; }
        /// <summary>
        /// Whether a timeout, a broken connection or <c>service_timeout</c> may be answered by
        /// sending the request again. False for requests that keep no receipt and must not happen
        /// twice: a refresh (a refresh token works once, PROTOCOL 8.6), a rematch, a registration.
        /// </summary>
        public bool Resendable { get; set; }
        /// <summary>The idempotency key chosen by the caller, or null for a new one.</summary>
        public string IdempotencyKey { get; set; }

        /// <summary>Adds a query parameter when it has a value (strings, integers, booleans).</summary>
        public HttpCall With(string name, object value)
        {
            if (value == null) return this;
            string text;
            if (value is bool) text = (bool)value ? "true" : "false";
            else text = Convert.ToString(value, CultureInfo.InvariantCulture);
            query.Add(new KeyValuePair<string, string>(name, text));
            return this;
        }

        /// <summary>The absolute URI under <paramref name="baseUrl"/> (which has no trailing slash).</summary>
        public Uri BuildUri(string baseUrl)
        {
            var text = new StringBuilder(baseUrl).Append(Path);
            for (var i = 0; i < query.Count; i++)
            {
                text.Append(i == 0 ? '?' : '&').Append(Uri.EscapeDataString(query[i].Key)).Append('=')
                    .Append(Uri.EscapeDataString(query[i].Value));
            }
            return new Uri(text.ToString());
        }

        /// <summary>One escaped path segment (a game, board or player id as given).</summary>
        public static string Segment(string value)
        {
            if (string.IsNullOrEmpty(value)) throw new ArgumentException("an id in the path is empty");
            return Uri.EscapeDataString(value);
        }

        /// <summary><c>/v1/games/{gameId}</c>.</summary>
        public static string Game(string gameId)
        {
            return "/v1/games/" + Segment(gameId);
        }

        /// <summary>
        /// The error an HTTP answer stands for: the RFC 9457 problem the gateway writes (code,
        /// detail, field, retryAfterMilliseconds, requestId), or, for a body that is not one (a
        /// proxy's page), <c>http_&lt;status&gt;</c> with the text.
        /// </summary>
        public static PodiumException Problem(int status, string body, string requestId, long? retryAfterHeader)
        {
            IReadOnlyDictionary<string, object> problem = null;
            try
            {
                problem = Json.Parse(body) as IReadOnlyDictionary<string, object>;
            }
            catch (FormatException)
            {
            }
            string code = null;
            if (problem != null)
            {
                object value;
                if (problem.TryGetValue("code", out value)) code = value as string;
            }
            if (code == null)
            {
                var text = string.IsNullOrEmpty(body) ? "HTTP " + status : body;
                return new PodiumException(
                    "http_" + status.ToString(CultureInfo.InvariantCulture), text, status, null, retryAfterHeader, requestId);
            }
            var detail = Optional(problem, "detail") ?? code;
            long? retryAfter = null;
            object after;
            if (problem.TryGetValue("retryAfterMilliseconds", out after) && after is long) retryAfter = (long)after;
            return new PodiumException(
                code, detail, status, Optional(problem, "field"), retryAfter ?? retryAfterHeader,
                Optional(problem, "requestId") ?? requestId);
        }

        private static string Optional(IReadOnlyDictionary<string, object> o, string key)
        {
            object value;
            return o.TryGetValue(key, out value) ? value as string : null;
        }
    }
}
