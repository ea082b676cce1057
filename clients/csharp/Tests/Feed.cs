using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;

namespace Podium.Tests
{
    /// <summary>
    /// A client's live notifications and connection events as they arrive, each checked to run on
    /// the main thread; tests wait on it for one to come.
    /// </summary>
    internal sealed class Feed
    {
        private readonly List<PodiumNotification> notifications = new List<PodiumNotification>();
        private readonly List<Disconnection> disconnections = new List<Disconnection>();
        private TaskCompletionSource<bool> changed = new TaskCompletionSource<bool>();

        public Feed(PodiumClient client, MainThreadContext main)
        {
            client.NotificationReceived += notification =>
            {
                main.Expect("NotificationReceived");
                notifications.Add(notification);
                Signal();
            };
            client.Connected += () =>
            {
                main.Expect("Connected");
                Connections++;
                Signal();
            };
            client.Disconnected += disconnection =>
            {
                main.Expect("Disconnected");
                disconnections.Add(disconnection);
                Signal();
            };
        }

        /// <summary>How often the socket connected (and said hello).</summary>
        public int Connections { get; private set; }
        public IReadOnlyList<PodiumNotification> Notifications { get { return notifications; } }
        public IReadOnlyList<Disconnection> Disconnections { get { return disconnections; } }

        private void Signal()
        {
            var waiting = changed;
            changed = new TaskCompletionSource<bool>();
            waiting.TrySetResult(true);
        }

        /// <summary>Waits (on the main thread) until <paramref name="done"/> holds.</summary>
        public async Task UntilAsync(Func<bool> done, string what, double seconds = 15)
        {
            var deadline = DateTime.UtcNow.AddSeconds(seconds);
            while (!done())
            {
                var left = deadline - DateTime.UtcNow;
                if (left <= TimeSpan.Zero)
                    throw new CheckFailed(what + " (not within " + seconds + " s; got: "
                        + string.Join(", ", notifications.Select(n => n.Kind)) + "; closes: "
                        + string.Join(", ", disconnections.Select(d => d.ToString())) + ")");
                // Woken by the feed's own events, and every 50 ms for conditions on anything else.
                await Task.WhenAny(changed.Task, Task.Delay(left < TimeSpan.FromMilliseconds(50) ? left : TimeSpan.FromMilliseconds(50)));
            }
        }

        /// <summary>The first notification of <paramref name="kind"/> that matches, waiting for it if needed.</summary>
        public async Task<PodiumNotification> WaitForAsync(string kind, Func<PodiumNotification, bool> match = null, double seconds = 15)
        {
            Func<PodiumNotification> find = () => notifications.FirstOrDefault(n => n.Kind == kind && (match == null || match(n)));
            await UntilAsync(() => find() != null, "a live " + kind + " notification", seconds);
            return find();
        }
    }
}
