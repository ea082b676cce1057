using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;

namespace Podium
{
    /// <summary>
    /// Keeps one WebSocket open for a client until stopped: connects, says hello with the
    /// session (<c>socket.hello</c>), reads, and after a close decides with
    /// <see cref="ReconnectPolicy"/>: back off and reconnect, refresh the session first (4001),
    /// or stop (4003, 4004, 4005, a refused hello).
    /// </summary>
    internal sealed class LiveConnection
    {
        private readonly PodiumClient client;
        private readonly Uri uri;
        private readonly List<object> games;
        private readonly TimeSpan timeout;
        private readonly ReconnectPolicy policy;
        private readonly CancellationTokenSource stopping = new CancellationTokenSource();
        private readonly TaskCompletionSource<bool> first =
            new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
        private readonly Random random = new Random();
        private SocketConnection connected;
        private Task running = Task.FromResult(true);

        public LiveConnection(PodiumClient client, Uri uri, IEnumerable<string> games, TimeSpan timeout, ReconnectPolicy policy)
        {
            this.client = client;
            this.uri = uri;
            this.games = new List<object>(games);
            this.timeout = timeout;
            this.policy = policy;
        }

        /// <summary>The socket, once its hello was answered; null while (re)connecting.</summary>
        public SocketConnection Connected
        {
            get { return Volatile.Read(ref connected); }
        }

        /// <summary>Starts the loop; the task ends when the first hello is answered, or fails with the first refusal.</summary>
        public Task StartAsync(CancellationToken cancellationToken)
        {
            running = Task.Run(RunAsync);
            if (cancellationToken.CanBeCanceled)
                cancellationToken.Register(() => { if (!first.Task.IsCompleted) Stop(); });
            return first.Task;
        }

        /// <summary>Stops reconnecting and closes the socket; the task ends when the loop has.</summary>
        public Task StopAsync()
        {
            Stop();
            return running;
        }

        private void Stop()
        {
            // The socket being opened or read closes itself on this (see RunAsync).
            if (!stopping.IsCancellationRequested) stopping.Cancel();
        }

        /// <summary>What one connection attempt came to.</summary>
        private struct Outcome
        {
            /// <summary>The hello was answered: the socket was live until it closed.</summary>
            public bool WasConnected;
            public int CloseCode;
            public string Reason;
            /// <summary>Why the socket never became live (unreachable, a refused hello); null when it did or when stopped.</summary>
            public PodiumException Error;
        }

        private async Task RunAsync()
        {
            var failures = 0;
            while (!stopping.IsCancellationRequested)
            {
                var session = client.Session;
                if (session == null)
                {
                    var error = new PodiumException(ErrorCodes.Unauthenticated, "log in before connecting");
                    client.RaiseDisconnected(new Disconnection(null, null, false, error));
                    first.TrySetException(error);
                    break;
                }
                var outcome = await AttemptAsync(session).ConfigureAwait(false);
                if (outcome.WasConnected) failures = 0;
                if (stopping.IsCancellationRequested)
                {
                    if (outcome.WasConnected)
                        client.RaiseDisconnected(new Disconnection(outcome.CloseCode, outcome.Reason, false, null));
                    break;
                }
                failures++;
                var problem = outcome.Error;
                var decision = outcome.WasConnected
                    ? policy.AfterClose(outcome.CloseCode, failures, NextJitter())
                    : policy.AfterHelloFailed(problem.Code, failures, NextJitter());
                if (decision.Action == ReconnectAction.RefreshThenReconnect)
                {
                    try
                    {
                        await client.RefreshAsync().ConfigureAwait(false);
                    }
                    catch (PodiumException refreshFailed)
                    {
                        problem = refreshFailed;
                        decision = policy.AfterRefreshFailed(refreshFailed.Code, failures, NextJitter());
                    }
                }
                if (decision.ForgetSession) client.ForgetSession(session);
                var willReconnect = decision.Action != ReconnectAction.Stop && !stopping.IsCancellationRequested;
                if (outcome.WasConnected || !willReconnect)
                {
                    client.RaiseDisconnected(new Disconnection(
                        outcome.WasConnected ? (int?)outcome.CloseCode : null, outcome.Reason, willReconnect, problem));
                }
                // The first connection failed for a reason a refresh does not cure: tell the caller
                // (the loop goes on in the background when the failure is passing).
                if (decision.Action != ReconnectAction.RefreshThenReconnect || !willReconnect)
                    first.TrySetException(problem ?? new PodiumException(ErrorCodes.Network, "the socket closed"));
                if (!willReconnect) break;
                if (decision.Delay > TimeSpan.Zero)
                {
                    try
                    {
                        await Task.Delay(decision.Delay, stopping.Token).ConfigureAwait(false);
                    }
                    catch (OperationCanceledException)
                    {
                        break;
                    }
                }
            }
            first.TrySetCanceled();
        }

        /// <summary>Opens a socket, says hello with <paramref name="session"/>, and reads until it closes.</summary>
        private async Task<Outcome> AttemptAsync(SessionGrant session)
        {
            var outcome = new Outcome();
            using (var socket = new SocketConnection(client.OnNotification))
            {
                try
                {
                    await socket.OpenAsync(uri, timeout, stopping.Token).ConfigureAwait(false);
                }
                catch (PodiumException unreachable)
                {
                    outcome.Error = unreachable;
                    return outcome;
                }
                catch (OperationCanceledException)
                {
                    return outcome;
                }
                var reading = socket.ReadUntilClosedAsync();
                // Stopping closes the socket, whichever step it is at; the reader then ends.
                using (stopping.Token.Register(() => Forget(socket.CloseAsync(SocketCloseCodes.Normal, "bye"))))
                {
                    try
                    {
                        var id = PodiumClient.NewRequestId();
                        var hello = new Dictionary<string, object>
                        {
                            { "type", "socket.hello" }, { "id", id }, { "token", session.SessionToken },
                            { "payload", new Dictionary<string, object> { { "games", games } } },
                        };
                        await socket.RequestAsync(hello, id, timeout, stopping.Token).ConfigureAwait(false);
                        outcome.WasConnected = true;
                        Volatile.Write(ref connected, socket);
                        client.RaiseConnected();
                        first.TrySetResult(true);
                    }
                    catch (PodiumException refused)
                    {
                        outcome.Error = refused;
                        socket.Abort();
                    }
                    catch (OperationCanceledException)
                    {
                        socket.Abort();
                    }
                    var end = await reading.ConfigureAwait(false);
                    Volatile.Write(ref connected, null);
                    outcome.CloseCode = end.Code;
                    outcome.Reason = end.Reason;
                }
            }
            return outcome;
        }

        /// <summary>Lets a task run on unwatched, its failure observed.</summary>
        internal static void Forget(Task task)
        {
            task.ContinueWith(done => { var ignored = done.Exception; }, TaskContinuationOptions.OnlyOnFaulted);
        }

        private double NextJitter()
        {
            lock (random) return random.NextDouble();
        }
    }
}
