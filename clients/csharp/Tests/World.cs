using System;
using System.Collections.Generic;
using System.Threading.Tasks;

namespace Podium.Tests
{
    /// <summary>
    /// One integration test's surroundings: its own main thread (everything runs there, as in a
    /// Unity game), the clients it made (disposed at the end), and at the end the check that
    /// every event and store call ran on the main thread and none threw.
    /// </summary>
    internal sealed class World : IDisposable
    {
        private readonly List<PodiumClient> clients = new List<PodiumClient>();

        public World()
        {
            Main = new MainThreadContext();
        }

        public MainThreadContext Main { get; private set; }

        /// <summary>A test body that runs on a new world's main thread.</summary>
        public static Func<Task> Test(Func<World, Task> body)
        {
            return async () =>
            {
                using (var world = new World())
                {
                    try
                    {
                        await world.Main.Run(() => body(world));
                        await world.Main.DrainAsync();
                        world.Main.CheckClean();
                    }
                    finally
                    {
                        await world.Main.Run(() =>
                        {
                            foreach (var client in world.clients) client.Dispose();
                            return Task.FromResult(true);
                        });
                    }
                }
            };
        }

        public PodiumClient Track(PodiumClient client)
        {
            clients.Add(client);
            return client;
        }

        /// <summary>A registered player's client (made on the main thread).</summary>
        public async Task<PodiumClient> PlayerAsync(string name, PodiumOptions options = null)
        {
            return Track(await Stack.NewPlayerAsync(name, options));
        }

        public Feed FeedOf(PodiumClient client)
        {
            return new Feed(client, Main);
        }

        public void Dispose()
        {
            Main.Dispose();
        }
    }
}
