using System;
using System.Collections.Generic;
using System.Linq;
using System.Net;
using System.Net.Http;
using System.Text;
using System.Threading;
using System.Threading.Tasks;

namespace Podium.Tests
{
    /// <summary>One HTTP attempt as the client sent it.</summary>
    internal sealed class Attempt
    {
        public string Method;
        public string Path;
        public string IdempotencyKey;
        public string Token;
        public int Status;
    }

    /// <summary>
    /// The client's HTTP handler with faults on demand, in front of the real stack: it records
    /// every attempt, can lose the answer of a request that did reach the server (the client
    /// times out), and can answer one itself with a <c>service_unavailable</c> problem without
    /// forwarding it. What is forwarded is answered by the real server.
    /// </summary>
    internal sealed class FaultInjection : DelegatingHandler
    {
        private readonly List<Attempt> attempts = new List<Attempt>();
        private readonly Queue<string> faults = new Queue<string>();

        public FaultInjection()
            : base(new HttpClientHandler())
        {
        }

        /// <summary>The next request is forwarded, and its answer thrown away: the client sees a timeout.</summary>
        public void LoseNextAnswer()
        {
            lock (faults) faults.Enqueue("lose");
        }

        /// <summary>The next request is answered 503 <c>service_unavailable</c> here, never reaching the server.</summary>
        public void RefuseNext()
        {
            lock (faults) faults.Enqueue("refuse");
        }

        public IReadOnlyList<Attempt> Attempts
        {
            get { lock (attempts) return attempts.ToList(); }
        }

        protected override async Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
        {
            IEnumerable<string> keys;
            var attempt = new Attempt
            {
                Method = request.Method.Method,
                Path = request.RequestUri.AbsolutePath,
                IdempotencyKey = request.Headers.TryGetValues("Idempotency-Key", out keys) ? keys.First() : null,
                Token = request.Headers.Authorization == null ? null : request.Headers.Authorization.Parameter,
            };
            lock (attempts) attempts.Add(attempt);
            string fault = null;
            lock (faults) if (faults.Count > 0) fault = faults.Dequeue();
            if (fault == "refuse")
            {
                attempt.Status = 503;
                var problem = "{\"code\":\"service_unavailable\",\"detail\":\"injected by the test\",\"status\":503,\"title\":\"service_unavailable\"}";
                return new HttpResponseMessage(HttpStatusCode.ServiceUnavailable)
                {
                    Content = new StringContent(problem, Encoding.UTF8, "application/problem+json"),
                    RequestMessage = request,
                };
            }
            var response = await base.SendAsync(request, cancellationToken);
            attempt.Status = (int)response.StatusCode;
            if (fault == "lose")
            {
                // The server has answered; the client never hears it.
                response.Dispose();
                await Task.Delay(System.Threading.Timeout.Infinite, cancellationToken);
            }
            return response;
        }
    }

    /// <summary>An <see cref="ISessionStore"/> over a file that checks it is called on the main thread.</summary>
    internal sealed class MainThreadStore : ISessionStore
    {
        private readonly FileSessionStore file;
        private readonly MainThreadContext main;

        public MainThreadStore(string path, MainThreadContext main)
        {
            file = new FileSessionStore(path);
            this.main = main;
        }

        public int Saves { get; private set; }
        public int Clears { get; private set; }

        public SessionGrant Load()
        {
            main.Expect("ISessionStore.Load");
            return file.Load();
        }

        public void Save(SessionGrant session)
        {
            main.Expect("ISessionStore.Save");
            Saves++;
            file.Save(session);
        }

        public void Clear()
        {
            main.Expect("ISessionStore.Clear");
            Clears++;
            file.Clear();
        }
    }
}
