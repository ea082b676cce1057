using System;
using System.Collections.Generic;
using System.Net.Http;
using System.Threading;
using System.Threading.Tasks;

namespace Podium
{
    public sealed partial class PodiumClient
    {
        /// <summary>
        /// Creates an account with a username and password and logs in (PROTOCOL 8.3). Not resent
        /// after a timeout: a second send would only answer <c>username_taken</c>.
        /// </summary>
        public Task<SessionGrant> RegisterAsync(
            string username, string password, string displayName = null,
            CancellationToken cancellationToken = default(CancellationToken))
        {
            var body = new Dictionary<string, object> { { "username", username }, { "password", password } };
            if (displayName != null) body["displayName"] = displayName;
            return GrantAsync(new HttpCall(HttpMethod.Post, "/v1/accounts", body) { Resendable = false }, cancellationToken);
        }

        /// <summary>
        /// Logs in with a username (any case) and password: a new session (PROTOCOL 8.4). Like every
        /// login, not resent after a timeout (a resend would make a second session).
        /// </summary>
        public Task<SessionGrant> LoginAsync(
            string username, string password, CancellationToken cancellationToken = default(CancellationToken))
        {
            var body = new Dictionary<string, object> { { "username", username }, { "password", password } };
            return GrantAsync(new HttpCall(HttpMethod.Post, "/v1/sessions", body) { Resendable = false }, cancellationToken);
        }

        /// <summary>
        /// Logs in as the device's anonymous player, created by the first login with this id
        /// (PROTOCOL 8.5). Make the id once (<see cref="NewRequestId"/>), keep it on the device and
        /// private: whoever knows it is that player.
        /// </summary>
        public Task<SessionGrant> LoginWithDeviceAsync(
            string deviceId, string displayName = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            var body = new Dictionary<string, object> { { "deviceId", deviceId } };
            if (displayName != null) body["displayName"] = displayName;
            return GrantAsync(new HttpCall(HttpMethod.Post, "/v1/sessions/device", body) { Resendable = false }, cancellationToken);
        }

        private async Task<SessionGrant> GrantAsync(HttpCall call, CancellationToken cancellationToken)
        {
            call.Authenticated = false;
            var grant = new SessionGrant(await SendAsync(call, cancellationToken).ConfigureAwait(false));
            SetSession(grant);
            return grant;
        }

        /// <summary>
        /// Trades the refresh token for new tokens (PROTOCOL 8.6). The client does this by itself
        /// when a request meets an expired token or the socket closes with 4001; callers at the
        /// same time share one refresh, since a refresh token works only once.
        /// </summary>
        public Task<SessionGrant> RefreshAsync(CancellationToken cancellationToken = default(CancellationToken))
        {
            TaskCompletionSource<SessionGrant> started;
            string refreshToken;
            lock (gate)
            {
                if (session == null)
                    return Task.FromException<SessionGrant>(new PodiumException(ErrorCodes.Unauthenticated, "not logged in"));
                if (refreshing != null) return refreshing;
                started = new TaskCompletionSource<SessionGrant>(TaskCreationOptions.RunContinuationsAsynchronously);
                refreshing = started.Task;
                refreshToken = session.RefreshToken;
            }
            RunRefresh(started, refreshToken);
            return started.Task;
        }

        private async void RunRefresh(TaskCompletionSource<SessionGrant> result, string refreshToken)
        {
            try
            {
                // Not cancellable by one caller: others may share it, and a refresh cut off halfway
                // may have used up the refresh token.
                var body = new Dictionary<string, object> { { "refreshToken", refreshToken } };
                var call = new HttpCall(HttpMethod.Post, "/v1/sessions/refresh", body) { Authenticated = false, Resendable = false };
                var grant = new SessionGrant(await SendAsync(call, CancellationToken.None).ConfigureAwait(false));
                lock (gate) refreshing = null;
                SetSession(grant);
                result.SetResult(grant);
            }
            catch (Exception error)
            {
                lock (gate) refreshing = null;
                var refused = error as PodiumException;
                if (refused != null && SessionIsOver(refused.Code, true)) ForgetSessionIf(s => s.RefreshToken == refreshToken);
                result.SetException(error);
            }
        }

        /// <summary>
        /// Whether an error means the session is over and the player must log in again: revoked,
        /// not valid, or (for a refresh) its refresh token expired (PROTOCOL 8.13).
        /// </summary>
        private static bool SessionIsOver(string code, bool refreshing)
        {
            return code == ErrorCodes.SessionRevoked || code == ErrorCodes.InvalidToken
                || (refreshing && code == ErrorCodes.TokenExpired);
        }

        /// <summary>Forgets the session if it is still the one <paramref name="same"/> recognises (not a newer login's).</summary>
        private void ForgetSessionIf(Func<SessionGrant, bool> same)
        {
            lock (gate)
            {
                if (session == null || !same(session)) return;
            }
            SetSession(null);
        }

        /// <summary>
        /// Ends the session on the server (PROTOCOL 8.8), closes the socket, and forgets the
        /// session here and in the store, also when the server could not be told.
        /// </summary>
        public async Task LogoutAsync(CancellationToken cancellationToken = default(CancellationToken))
        {
            await DisconnectAsync().ConfigureAwait(false);
            try
            {
                if (Session != null)
                    await SendAsync(new HttpCall(HttpMethod.Delete, "/v1/sessions/current", new Dictionary<string, object>()),
                        cancellationToken).ConfigureAwait(false);
            }
            finally
            {
                SetSession(null);
            }
        }

        /// <summary>The player's own account (PROTOCOL 8.10).</summary>
        public async Task<PlayerProfile> GetProfileAsync(CancellationToken cancellationToken = default(CancellationToken))
        {
            return new PlayerProfile(await SendAsync(new HttpCall(HttpMethod.Get, "/v1/me"), cancellationToken)
                .ConfigureAwait(false));
        }

        /// <summary>Changes the name other players see (PROTOCOL 8.11).</summary>
        public async Task<PlayerProfile> SetDisplayNameAsync(
            string displayName, CancellationToken cancellationToken = default(CancellationToken))
        {
            var body = new Dictionary<string, object> { { "displayName", displayName } };
            return new PlayerProfile(await SendAsync(new HttpCall(HttpMethod.Post, "/v1/me/display-name", body),
                cancellationToken).ConfigureAwait(false));
        }

        /// <summary>Gives a device account a username and password, so that the player can log in elsewhere (PROTOCOL 8.7).</summary>
        public async Task<PlayerProfile> LinkAccountAsync(
            string username, string password, CancellationToken cancellationToken = default(CancellationToken))
        {
            var body = new Dictionary<string, object> { { "username", username }, { "password", password } };
            return new PlayerProfile(await SendAsync(new HttpCall(HttpMethod.Post, "/v1/me/link", body), cancellationToken)
                .ConfigureAwait(false));
        }

        /// <summary>Everything Podium holds about the player, as one JSON document (PROTOCOL 8.15).</summary>
        public Task<IReadOnlyDictionary<string, object>> ExportAccountAsync(
            CancellationToken cancellationToken = default(CancellationToken))
        {
            return SendAsync(new HttpCall(HttpMethod.Get, "/v1/me/export"), cancellationToken);
        }

        /// <summary>
        /// Deletes the player's account and everything Podium holds about them, for good
        /// (PROTOCOL 8.14); <paramref name="password"/> for an account that has one. The session ends.
        /// </summary>
        public async Task<IReadOnlyDictionary<string, object>> DeleteAccountAsync(
            string password = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            var body = new Dictionary<string, object> { { "confirm", true } };
            if (password != null) body["password"] = password;
            var receipt = await SendAsync(new HttpCall(HttpMethod.Post, "/v1/me/delete", body), cancellationToken)
                .ConfigureAwait(false);
            await DisconnectAsync().ConfigureAwait(false);
            SetSession(null);
            return receipt;
        }
    }
}
