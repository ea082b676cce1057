using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;

namespace Podium.Tests
{
    /// <summary>
    /// A stand-in for Unity's main thread: one dedicated thread runs everything posted to this
    /// context, in order, and is the current context while it does (so that <c>await</c> in
    /// code started here comes back here, as in a MonoBehaviour). It records the thread every
    /// checked callback ran on and every exception a callback threw.
    /// </summary>
    internal sealed class MainThreadContext : SynchronizationContext, IDisposable
    {
        private readonly BlockingCollection<KeyValuePair<SendOrPostCallback, object>> queue =
            new BlockingCollection<KeyValuePair<SendOrPostCallback, object>>();
        private readonly Thread thread;
        private readonly List<string> problems = new List<string>();
        private int checkedCallbacks;

        public MainThreadContext()
        {
            thread = new Thread(Loop) { IsBackground = true, Name = "main" };
            thread.Start();
        }

        /// <summary>The main thread's id.</summary>
        public int ThreadId
        {
            get { return thread.ManagedThreadId; }
        }

        /// <summary>Whether the caller runs on the main thread.</summary>
        public bool IsCurrent
        {
            get { return Thread.CurrentThread.ManagedThreadId == thread.ManagedThreadId; }
        }

        /// <summary>How many callbacks went through <see cref="Expect"/>.</summary>
        public int CheckedCallbacks
        {
            get { lock (problems) return checkedCallbacks; }
        }

        /// <summary>Records a callback, and a problem when it is not on the main thread.</summary>
        public void Expect(string callback)
        {
            lock (problems)
            {
                checkedCallbacks++;
                if (!IsCurrent)
                    problems.Add(callback + " ran on thread " + Thread.CurrentThread.ManagedThreadId + ", not the main thread " + ThreadId);
            }
        }

        /// <summary>Fails when a callback ran off the main thread or threw.</summary>
        public void CheckClean()
        {
            lock (problems)
            {
                if (problems.Count > 0) throw new CheckFailed(string.Join("\n", problems));
            }
        }

        public override void Post(SendOrPostCallback callback, object state)
        {
            queue.Add(new KeyValuePair<SendOrPostCallback, object>(callback, state));
        }

        public override void Send(SendOrPostCallback callback, object state)
        {
            if (IsCurrent)
            {
                callback(state);
                return;
            }
            using (var done = new ManualResetEventSlim())
            {
                Post(s => { try { callback(s); } finally { done.Set(); } }, state);
                done.Wait();
            }
        }

        public override SynchronizationContext CreateCopy()
        {
            return this;
        }

        /// <summary>Runs an async body on the main thread, as Unity runs <c>async void Start()</c>.</summary>
        public Task Run(Func<Task> body)
        {
            var result = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
            Post(_ =>
            {
                Task task;
                try
                {
                    task = body();
                }
                catch (Exception error)
                {
                    result.SetException(error);
                    return;
                }
                task.ContinueWith(done =>
                {
                    if (done.IsFaulted) result.SetException(done.Exception.InnerExceptions);
                    else if (done.IsCanceled) result.SetCanceled();
                    else result.SetResult(true);
                }, TaskContinuationOptions.ExecuteSynchronously);
            }, null);
            return result.Task;
        }

        /// <summary>Waits until everything posted so far has run (the store has been given the latest session).</summary>
        public Task DrainAsync()
        {
            var done = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
            Post(_ => done.SetResult(true), null);
            return done.Task;
        }

        private void Loop()
        {
            SetSynchronizationContext(this);
            foreach (var item in queue.GetConsumingEnumerable())
            {
                try
                {
                    item.Key(item.Value);
                }
                catch (Exception error)
                {
                    lock (problems) problems.Add("a callback on the main thread threw: " + error);
                }
            }
        }

        public void Dispose()
        {
            queue.CompleteAdding();
        }
    }
}
