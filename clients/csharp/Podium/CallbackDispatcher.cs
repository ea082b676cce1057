using System;
using System.Threading;

namespace Podium
{
    /// <summary>
    /// Runs the game's code (event handlers, <see cref="ISessionStore"/>) on the synchronization
    /// context the client was made on: Unity's main thread, where Unity's API may be used. Posts
    /// keep their order. A handler that throws is the context's to report (Unity logs it in its
    /// console). Without a context the code runs on the calling thread, and a throw is written to
    /// standard error so that it cannot stop the client.
    /// </summary>
    internal sealed class CallbackDispatcher
    {
        private readonly SynchronizationContext context;

        public CallbackDispatcher(SynchronizationContext context)
        {
            this.context = context;
        }

        public SynchronizationContext Context
        {
            get { return context; }
        }

        /// <summary>Runs <paramref name="action"/> on the context, later.</summary>
        public void Post(Action action)
        {
            if (context != null)
            {
                context.Post(state => ((Action)state)(), action);
                return;
            }
            try
            {
                action();
            }
            catch (Exception error)
            {
                Console.Error.WriteLine("Podium: an event handler threw: " + error);
            }
        }
    }
}
