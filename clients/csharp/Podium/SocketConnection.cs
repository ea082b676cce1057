using System;
using System.Collections.Generic;
using System.IO;
using System.Net.WebSockets;
using System.Text;
using System.Threading;
using System.Threading.Tasks;

namespace Podium
{
    /// <summary>How one socket ended.</summary>
    internal struct SocketEnd
    {
        public int Code;
        public string Reason;
    }

    /// <summary>
    /// One WebSocket to the gateway (docs/PROTOCOL.md section 21): requests out as text messages,
    /// replies matched to them (<see cref="PendingReplies"/>), notifications handed on in the
    /// order they came. One reader; writers take turns. Made, opened and read once.
    /// </summary>
    internal sealed class SocketConnection : IDisposable
    {
        private readonly ClientWebSocket socket = new ClientWebSocket();
        private readonly SemaphoreSlim writing = new SemaphoreSlim(1, 1);
        private readonly PendingReplies pending = new PendingReplies();
        private readonly Action<IReadOnlyDictionary<string, object>> notify;

        public SocketConnection(Action<IReadOnlyDictionary<string, object>> notify)
        {
            this.notify = notify;
        }

        /// <summary>Connects, within <paramref name="timeout"/>; a failure is a <see cref="PodiumException"/> (network or timeout).</summary>
        public async Task OpenAsync(Uri uri, TimeSpan timeout, CancellationToken cancellationToken)
        {
            using (var limit = new CancellationTokenSource(timeout))
            using (var linked = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken, limit.Token))
            {
                try
                {
                    await socket.ConnectAsync(uri, linked.Token).ConfigureAwait(false);
                }
                catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
                {
                    throw new PodiumException(ErrorCodes.Timeout, "the socket did not open within " + timeout.TotalMilliseconds + " ms");
                }
                catch (Exception error) when (error is WebSocketException || error is IOException
                    || error is System.Net.Sockets.SocketException || error is InvalidOperationException)
                {
                    throw new PodiumException(ErrorCodes.Network, "could not open " + uri + ": " + error.Message, inner: error);
                }
            }
        }

        /// <summary>
        /// Reads until the socket closes, handing on every message; never throws. The answer is
        /// the close code (1006 when the connection broke without one). Requests still waiting
        /// then fail with <see cref="ErrorCodes.Network"/>.
        /// </summary>
        public async Task<SocketEnd> ReadUntilClosedAsync()
        {
            var end = new SocketEnd { Code = SocketCloseCodes.Abnormal, Reason = "the connection broke" };
            var buffer = new byte[16384];
            var message = new MemoryStream();
            try
            {
                while (true)
                {
                    var result = await socket.ReceiveAsync(new ArraySegment<byte>(buffer), CancellationToken.None)
                        .ConfigureAwait(false);
                    if (result.MessageType == WebSocketMessageType.Close)
                    {
                        end.Code = result.CloseStatus.HasValue ? (int)result.CloseStatus.Value : 1005;
                        end.Reason = result.CloseStatusDescription;
                        await AnswerCloseAsync().ConfigureAwait(false);
                        break;
                    }
                    message.Write(buffer, 0, result.Count);
                    if (!result.EndOfMessage) continue;
                    if (result.MessageType == WebSocketMessageType.Text)
                        Dispatch(Encoding.UTF8.GetString(message.GetBuffer(), 0, (int)message.Length));
                    message.SetLength(0);
                }
            }
            catch (Exception)
            {
                // Aborted, reset, or the process is going: the socket is over either way.
            }
            pending.FailAll(id => new PodiumException(
                ErrorCodes.Network, "the socket closed (" + end.Code + ") before the reply", requestId: id));
            return end;
        }

        private void Dispatch(string text)
        {
            IReadOnlyDictionary<string, object> envelope;
            try
            {
                envelope = Json.Parse(text) as IReadOnlyDictionary<string, object>;
            }
            catch (FormatException)
            {
                return;
            }
            if (envelope == null || pending.Deliver(envelope)) return;
            object type;
            if (envelope.TryGetValue("type", out type) && "notification".Equals(type)) notify(envelope);
        }

        /// <summary>Sends a request and waits for its reply's payload (or its error), at most <paramref name="timeout"/>.</summary>
        public async Task<IReadOnlyDictionary<string, object>> RequestAsync(
            IDictionary<string, object> request, string id, TimeSpan timeout, CancellationToken cancellationToken)
        {
            var answer = pending.Expect(id);
            try
            {
                await SendTextAsync(Json.Write(request), cancellationToken).ConfigureAwait(false);
            }
            catch (Exception error)
            {
                pending.Fail(id, new PodiumException(ErrorCodes.Network, "could not send on the socket: " + error.Message, requestId: id));
                if (error is OperationCanceledException) throw;
            }
            using (var stop = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken))
            {
                var expired = Task.Delay(timeout, stop.Token);
                var first = await Task.WhenAny(answer, expired).ConfigureAwait(false);
                stop.Cancel();
                if (first != answer)
                {
                    cancellationToken.ThrowIfCancellationRequested();
                    pending.Fail(id, new PodiumException(
                        ErrorCodes.Timeout, "no reply within " + timeout.TotalMilliseconds + " ms", requestId: id));
                }
            }
            return await answer.ConfigureAwait(false);
        }

        private async Task SendTextAsync(string text, CancellationToken cancellationToken)
        {
            var bytes = new UTF8Encoding(false).GetBytes(text);
            await writing.WaitAsync(cancellationToken).ConfigureAwait(false);
            try
            {
                await socket.SendAsync(new ArraySegment<byte>(bytes), WebSocketMessageType.Text, true, cancellationToken)
                    .ConfigureAwait(false);
            }
            finally
            {
                writing.Release();
            }
        }

        private async Task AnswerCloseAsync()
        {
            if (socket.State != WebSocketState.CloseReceived) return;
            await writing.WaitAsync().ConfigureAwait(false);
            try
            {
                using (var limit = new CancellationTokenSource(TimeSpan.FromSeconds(2)))
                    await socket.CloseOutputAsync(WebSocketCloseStatus.NormalClosure, "", limit.Token).ConfigureAwait(false);
            }
            catch (Exception)
            {
                // The server has closed already; answering is a courtesy.
            }
            finally
            {
                writing.Release();
            }
        }

        /// <summary>
        /// Starts the closing handshake; the reader ends when the server answers, or 2 s later when
        /// it does not (the socket is then aborted).
        /// </summary>
        public async Task CloseAsync(int code, string reason)
        {
            if (socket.State != WebSocketState.Open) return;
            LiveConnection.Forget(Task.Delay(TimeSpan.FromSeconds(2)).ContinueWith(_ => Abort(), TaskScheduler.Default));
            await writing.WaitAsync().ConfigureAwait(false);
            try
            {
                using (var limit = new CancellationTokenSource(TimeSpan.FromSeconds(2)))
                    await socket.CloseOutputAsync((WebSocketCloseStatus)code, reason, limit.Token).ConfigureAwait(false);
            }
            catch (Exception)
            {
                socket.Abort();
            }
            finally
            {
                writing.Release();
            }
        }

        /// <summary>Ends the socket at once, without a handshake.</summary>
        public void Abort()
        {
            try
            {
                socket.Abort();
            }
            catch (Exception)
            {
                // Already closed or disposed.
            }
        }

        public void Dispose()
        {
            Abort();
            socket.Dispose();
        }
    }
}
