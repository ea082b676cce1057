using System;
using System.Collections.Generic;
using System.IO;
using System.Net;
using System.Net.Http;
using System.Net.Http.Headers;
using System.Text;
using System.Threading;
using System.Threading.Tasks;

namespace Podium
{
    public sealed partial class PodiumClient
    {
        /// <summary>
        /// Any request type over HTTP (<c>POST /v1/call/{type}</c>): for requests this client has
        /// no method for. Answers the reply's payload as plain JSON values (see docs/clients/unity.md).
        /// </summary>
        /// <param name="type">The request type, such as <c>leaderboard.entry</c>.</param>
        /// <param name="gameId">The request's game, if it has one.</param>
        /// <param name="payload">The payload: dictionaries, lists, strings, numbers, booleans.</param>
        /// <param name="playerId">The player a <see cref="PodiumOptions.ServerKey"/> acts for; a player's session acts for itself.</param>
        /// <param name="idempotencyKey">The request id; default a new one.</param>
        /// <param name="cancellationToken">Stops waiting (the request may still be applied).</param>
        public Task<IReadOnlyDictionary<string, object>> CallAsync(
            string type, string gameId = null, IDictionary<string, object> payload = null, string playerId = null,
            string idempotencyKey = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (string.IsNullOrEmpty(type)) throw new ArgumentException("a request type is needed", "type");
            var body = new Dictionary<string, object> { { "payload", payload ?? new Dictionary<string, object>() } };
            if (gameId != null) body["gameId"] = gameId;
            if (playerId != null) body["playerId"] = playerId;
            var call = new HttpCall(HttpMethod.Post, "/v1/call/" + HttpCall.Segment(type), body)
            {
                IdempotencyKey = idempotencyKey,
            };
            return SendAsync(call, cancellationToken);
        }

        /// <summary>
        /// Sends a call until it is answered: resends with the same idempotency key after a
        /// retryable failure (<see cref="RetryPolicy"/>), and once after refreshing an expired session.
        /// </summary>
        internal async Task<IReadOnlyDictionary<string, object>> SendAsync(HttpCall call, CancellationToken cancellationToken)
        {
            ThrowIfDisposed();
            var key = call.IdempotencyKey ?? NewRequestId();
            var refreshed = false;
            for (var attempt = 1; ; attempt++)
            {
                var current = Session;
                var token = call.Authenticated && current != null ? current.SessionToken : null;
                PodiumException error;
                try
                {
                    return await SendOnceAsync(call, key, token, cancellationToken).ConfigureAwait(false);
                }
                catch (PodiumException failure)
                {
                    error = failure;
                }
                if (error.Code == ErrorCodes.TokenExpired && token != null && !refreshed)
                {
                    // The gateway refused the token before anything was applied: renew the
                    // session (unless a concurrent request already did) and send once more.
                    refreshed = true;
                    var now = Session;
                    if (now == null) throw error;
                    if (now.SessionToken == token) await RefreshAsync(cancellationToken).ConfigureAwait(false);
                    attempt--;
                    continue;
                }
                if (token != null && SessionIsOver(error.Code, false))
                {
                    // Revoked or not valid: the game must log in again; SessionChanged(null) tells it.
                    ForgetSessionIf(s => s.SessionToken == token);
                    throw error;
                }
                if (!call.Resendable && !RetryPolicy.IsNotApplied(error.Code)) throw error;
                var wait = retry.DelayAfter(error, attempt, NextJitter());
                if (!wait.HasValue) throw error;
                await Task.Delay(wait.Value, cancellationToken).ConfigureAwait(false);
            }
        }

        private async Task<IReadOnlyDictionary<string, object>> SendOnceAsync(
            HttpCall call, string key, string token, CancellationToken cancellationToken)
        {
            using (var timeout = new CancellationTokenSource(options.RequestTimeout))
            using (var linked = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken, timeout.Token))
            using (var request = new HttpRequestMessage(call.Method, call.BuildUri(baseUrl)))
            {
                request.Headers.TryAddWithoutValidation("Idempotency-Key", key);
                if (token != null) request.Headers.Authorization = new AuthenticationHeaderValue("Bearer", token);
                else if (call.Authenticated && options.ServerKey != null)
                    request.Headers.TryAddWithoutValidation("X-Podium-Server-Key", options.ServerKey);
                if (call.Body != null)
                {
                    request.Content = new ByteArrayContent(new UTF8Encoding(false).GetBytes(Json.Write(call.Body)));
                    request.Content.Headers.ContentType = new MediaTypeHeaderValue("application/json");
                }
                int status;
                string text;
                long? retryAfter = null;
                try
                {
                    using (var response = await http.SendAsync(request, HttpCompletionOption.ResponseContentRead, linked.Token)
                        .ConfigureAwait(false))
                    {
                        status = (int)response.StatusCode;
                        var bytes = await response.Content.ReadAsByteArrayAsync().ConfigureAwait(false);
                        text = Encoding.UTF8.GetString(bytes);
                        var header = response.Headers.RetryAfter;
                        if (header != null && header.Delta.HasValue) retryAfter = (long)header.Delta.Value.TotalMilliseconds;
                    }
                }
                catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
                {
                    throw new PodiumException(
                        ErrorCodes.Timeout, "no answer within " + options.RequestTimeout.TotalMilliseconds + " ms",
                        requestId: key);
                }
                catch (Exception failure) when (failure is HttpRequestException || failure is IOException
                    || failure is WebException)
                {
                    throw new PodiumException(
                        ErrorCodes.Network, "could not reach " + baseUrl + ": " + failure.Message, requestId: key,
                        inner: failure);
                }
                if (status < 200 || status > 299) throw HttpCall.Problem(status, text, key, retryAfter);
                if (text.Trim().Length == 0) return JsonFields.Empty;
                try
                {
                    return JsonFields.AsObject(Json.Parse(text), "body");
                }
                catch (FormatException failure)
                {
                    throw new PodiumException(ErrorCodes.InvalidReply, failure.Message, status, requestId: key);
                }
            }
        }
    }
}
