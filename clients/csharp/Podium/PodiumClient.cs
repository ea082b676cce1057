using System;
using System.Net.Http;
using System.Threading;
using System.Threading.Tasks;

namespace Podium
{
    /// <summary>
    /// Podium's client for games: accounts and sessions, leaderboards, achievements, challenges,
    /// friends, the inbox, and live notifications over the WebSocket. Every call is async and
    /// thread-safe; events and <see cref="ISessionStore"/> calls run on the synchronization
    /// context the client was made on (Unity's main thread). Protocol: docs/PROTOCOL.md sections
    /// 20 (HTTP) and 21 (WebSocket); guide: docs/clients/unity.md.
    /// </summary>
    /// <remarks>
    /// Every request gets a fresh idempotency key (or the one given), and is sent again with that
    /// same key after a timeout, a broken connection or a retryable error
    /// (<see cref="PodiumOptions.Attempts"/>): the server answers a resend of an applied request
    /// with the original answer, so nothing happens twice. An expired session token is refreshed
    /// once and the request resent, still with the same key.
    /// </remarks>
    public sealed partial class PodiumClient : IDisposable
    {
        private readonly PodiumOptions options;
        private readonly string baseUrl;
        private readonly HttpClient http;
        private readonly CallbackDispatcher dispatcher;
        private readonly RetryPolicy retry;
        private readonly object gate = new object();
        private readonly Random random = new Random();
        private SessionGrant session;
        private Task<SessionGrant> refreshing;
        private bool disposed;

        /// <summary>
        /// A client for <see cref="PodiumOptions.BaseUrl"/>. Make it on the thread whose context
        /// should run events (Unity: in <c>Awake</c> or <c>Start</c>); the session kept in
        /// <see cref="PodiumOptions.SessionStore"/> is loaded here.
        /// </summary>
        public PodiumClient(PodiumOptions options)
        {
            if (options == null) throw new ArgumentNullException("options");
            if (string.IsNullOrEmpty(options.BaseUrl)) throw new ArgumentException("PodiumOptions.BaseUrl is required");
            Uri parsed;
            if (!Uri.TryCreate(options.BaseUrl, UriKind.Absolute, out parsed)
                || (parsed.Scheme != Uri.UriSchemeHttp && parsed.Scheme != Uri.UriSchemeHttps))
                throw new ArgumentException("PodiumOptions.BaseUrl must be an http or https URL");
            this.options = options;
            baseUrl = options.BaseUrl.TrimEnd('/');
            dispatcher = new CallbackDispatcher(options.SynchronizationContext ?? SynchronizationContext.Current);
            retry = new RetryPolicy(options.Attempts, options.FirstRetryDelay, options.MaxRetryDelay);
            http = options.HttpHandler != null
                ? new HttpClient(options.HttpHandler, false)
                : new HttpClient(new HttpClientHandler(), true);
            http.Timeout = System.Threading.Timeout.InfiniteTimeSpan;
            if (options.SessionStore != null) session = options.SessionStore.Load();
        }

        /// <summary>The current session, or null when logged out.</summary>
        public SessionGrant Session
        {
            get { lock (gate) return session; }
        }

        /// <summary>The logged-in player's id, or null.</summary>
        public string PlayerId
        {
            get
            {
                var current = Session;
                return current == null ? null : current.PlayerId;
            }
        }

        /// <summary>Whether there is a session (it may have expired: the client refreshes it when needed).</summary>
        public bool IsLoggedIn
        {
            get { return Session != null; }
        }

        /// <summary>
        /// The session changed: a login, a refresh (new tokens), or null after a logout or when
        /// the server ended the session. Runs on the client's synchronization context, after the
        /// <see cref="ISessionStore"/> has been given the same session.
        /// </summary>
        public event Action<SessionGrant> SessionChanged;

        /// <summary>A fresh request id: a random UUID, the idempotency key of one request and all its resends.</summary>
        public static string NewRequestId()
        {
            return Guid.NewGuid().ToString("D");
        }

        /// <summary>Replaces the session (a login or a refresh, or null), tells the store and the game.</summary>
        private void SetSession(SessionGrant grant)
        {
            lock (gate) session = grant;
            var store = options.SessionStore;
            dispatcher.Post(() =>
            {
                if (store != null)
                {
                    if (grant == null) store.Clear();
                    else store.Save(grant);
                }
                var handler = SessionChanged;
                if (handler != null) handler(grant);
            });
        }

        private double NextJitter()
        {
            lock (random) return random.NextDouble();
        }

        private void ThrowIfDisposed()
        {
            if (disposed) throw new ObjectDisposedException("PodiumClient");
        }

        /// <summary>Closes the socket (without waiting) and releases the HTTP connections.</summary>
        public void Dispose()
        {
            if (disposed) return;
            disposed = true;
            var closing = DisconnectAsync();
            closing.ContinueWith(_ => http.Dispose(), TaskScheduler.Default);
        }
    }
}
