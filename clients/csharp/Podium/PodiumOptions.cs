using System;
using System.Net.Http;
using System.Threading;

namespace Podium
{
    /// <summary>
    /// How a <see cref="PodiumClient"/> reaches the server and behaves. Only
    /// <see cref="BaseUrl"/> is required; every other setting has the default listed.
    /// </summary>
    public sealed class PodiumOptions
    {
        /// <summary>Makes the options with the defaults below.</summary>
        public PodiumOptions()
        {
            RequestTimeout = TimeSpan.FromSeconds(10);
            Attempts = 3;
            FirstRetryDelay = TimeSpan.FromMilliseconds(250);
            MaxRetryDelay = TimeSpan.FromSeconds(4);
            FirstReconnectDelay = TimeSpan.FromMilliseconds(500);
            MaxReconnectDelay = TimeSpan.FromSeconds(30);
        }

        /// <summary>The gateway's HTTP front, such as <c>https://podium.example.com</c>. Required.</summary>
        public string BaseUrl { get; set; }

        /// <summary>The WebSocket; default: <see cref="BaseUrl"/> with <c>ws</c>/<c>wss</c> and <c>/v1/socket</c>.</summary>
        public string SocketUrl { get; set; }

        /// <summary>How long one attempt (an HTTP exchange, a reply on the socket) may take. Default 10 s.</summary>
        public TimeSpan RequestTimeout { get; set; }

        /// <summary>
        /// Attempts for a request that timed out, could not reach the server or got a retryable
        /// error (<see cref="PodiumException.IsRetryable"/>), all with the same idempotency key. Default 3.
        /// </summary>
        public int Attempts { get; set; }

        /// <summary>The wait before the first resend, doubled for each further one. Default 250 ms.</summary>
        public TimeSpan FirstRetryDelay { get; set; }

        /// <summary>The longest wait between resends; an error asking for longer is thrown at once. Default 4 s.</summary>
        public TimeSpan MaxRetryDelay { get; set; }

        /// <summary>The first wait before reconnecting the socket, doubled after each failure. Default 500 ms.</summary>
        public TimeSpan FirstReconnectDelay { get; set; }

        /// <summary>The longest wait between reconnection attempts. Default 30 s.</summary>
        public TimeSpan MaxReconnectDelay { get; set; }

        /// <summary>Where the session is kept between launches; default none (the game keeps <see cref="PodiumClient.Session"/> itself).</summary>
        public ISessionStore SessionStore { get; set; }

        /// <summary>
        /// Where events and <see cref="ISessionStore"/> calls run. Default: the context current
        /// when the client is made (in Unity, the main thread's); none means any thread.
        /// </summary>
        public SynchronizationContext SynchronizationContext { get; set; }

        /// <summary>The HTTP handler (a proxy, certificate checks); default a new <see cref="HttpClientHandler"/>.</summary>
        public HttpMessageHandler HttpHandler { get; set; }

        /// <summary>
        /// A game server's key (<c>X-Podium-Server-Key</c>), for a trusted server that acts for
        /// players by id (<see cref="PodiumClient.CallAsync"/> with a player id). Never ship it in a game.
        /// </summary>
        public string ServerKey { get; set; }
    }
}
