using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;

namespace Podium
{
    public sealed partial class PodiumClient
    {
        private LiveConnection live;

        /// <summary>
        /// A notification pushed on the WebSocket (<see cref="ConnectAsync"/>): a challenge
        /// received or completed, an achievement earned, a friend request, … Runs on the client's
        /// synchronization context, in the order the notifications came. Live delivery is at
        /// most once: after <see cref="Connected"/>, read what was missed with
        /// <see cref="GetInboxAsync"/> and <c>after</c>.
        /// </summary>
        public event Action<PodiumNotification> NotificationReceived;

        /// <summary>The socket is open and its hello answered: after <see cref="ConnectAsync"/> and after every reconnection.</summary>
        public event Action Connected;

        /// <summary>
        /// The socket closed, or the client gave up connecting; <see cref="Disconnection.WillReconnect"/>
        /// says whether it tries again. After 4003 and 4005 the session is forgotten
        /// (<see cref="SessionChanged"/> with null).
        /// </summary>
        public event Action<Disconnection> Disconnected;

        /// <summary>Whether the socket is open and its hello answered.</summary>
        public bool IsConnected
        {
            get
            {
                var current = Volatile.Read(ref live);
                return current != null && current.Connected != null;
            }
        }

        /// <summary>
        /// Opens the WebSocket and keeps it open, reconnecting with backoff, until
        /// <see cref="DisconnectAsync"/>: notifications of the player in these games arrive as
        /// <see cref="NotificationReceived"/>. The task ends once the first hello is answered; it
        /// fails with the first failure that a refresh does not cure (a refused hello stops the
        /// client; an unreachable server does not: it goes on trying in the background).
        /// </summary>
        /// <param name="games">1-20 game ids.</param>
        /// <param name="cancellationToken">Stops the connecting, if it has not connected yet.</param>
        public Task ConnectAsync(IEnumerable<string> games, CancellationToken cancellationToken = default(CancellationToken))
        {
            ThrowIfDisposed();
            if (games == null) throw new ArgumentNullException("games");
            var list = new List<string>(games);
            if (list.Count < 1 || list.Count > 20) throw new ArgumentException("connect to 1-20 games", "games");
            if (Session == null)
                return Task.FromException(new PodiumException(ErrorCodes.Unauthenticated, "log in before connecting"));
            var connection = new LiveConnection(
                this, SocketUri(), list, options.RequestTimeout,
                new ReconnectPolicy(options.FirstReconnectDelay, options.MaxReconnectDelay));
            var previous = Interlocked.Exchange(ref live, connection);
            if (previous != null) LiveConnection.Forget(previous.StopAsync());
            return connection.StartAsync(cancellationToken);
        }

        /// <summary>Closes the socket and stops reconnecting; the task ends when it is closed.</summary>
        public Task DisconnectAsync()
        {
            var previous = Interlocked.Exchange(ref live, null);
            return previous == null ? Task.FromResult(true) : previous.StopAsync();
        }

        /// <summary>
        /// Sends a request on the open socket (its hello's session is the credential) and answers
        /// the reply's payload, matched by id. Use the HTTP methods for anything that must get
        /// through: this one is not resent.
        /// </summary>
        public async Task<IReadOnlyDictionary<string, object>> SendOverSocketAsync(
            string type, string gameId = null, IDictionary<string, object> payload = null, string idempotencyKey = null,
            CancellationToken cancellationToken = default(CancellationToken))
        {
            if (string.IsNullOrEmpty(type)) throw new ArgumentException("a request type is needed", "type");
            var current = Volatile.Read(ref live);
            var socket = current == null ? null : current.Connected;
            if (socket == null) throw new PodiumException(ErrorCodes.Network, "the socket is not connected");
            var id = idempotencyKey ?? NewRequestId();
            var request = new Dictionary<string, object>
            {
                { "type", type }, { "id", id }, { "payload", payload ?? new Dictionary<string, object>() },
            };
            if (gameId != null) request["gameId"] = gameId;
            return await socket.RequestAsync(request, id, options.RequestTimeout, cancellationToken).ConfigureAwait(false);
        }

        private Uri SocketUri()
        {
            if (!string.IsNullOrEmpty(options.SocketUrl)) return new Uri(options.SocketUrl);
            var builder = new UriBuilder(baseUrl + "/v1/socket");
            builder.Scheme = builder.Scheme == Uri.UriSchemeHttps ? "wss" : "ws";
            return builder.Uri;
        }

        internal void OnNotification(IReadOnlyDictionary<string, object> envelope)
        {
            PodiumNotification notification;
            try
            {
                notification = new PodiumNotification(envelope);
            }
            catch (PodiumException)
            {
                return; // Not a notification this client understands.
            }
            dispatcher.Post(() =>
            {
                var handler = NotificationReceived;
                if (handler != null) handler(notification);
            });
        }

        internal void RaiseConnected()
        {
            dispatcher.Post(() =>
            {
                var handler = Connected;
                if (handler != null) handler();
            });
        }

        internal void RaiseDisconnected(Disconnection disconnection)
        {
            dispatcher.Post(() =>
            {
                var handler = Disconnected;
                if (handler != null) handler(disconnection);
            });
        }

        /// <summary>Forgets the session the socket said hello with, unless the game has logged in anew since.</summary>
        internal void ForgetSession(SessionGrant ended)
        {
            ForgetSessionIf(s => s.SessionId == ended.SessionId);
        }
    }
}
