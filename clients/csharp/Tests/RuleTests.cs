using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Net.Http;
using System.Threading.Tasks;

namespace Podium.Tests
{
    /// <summary>The rules that decide, tested without a server: retries, reconnection, reply matching, errors, sessions.</summary>
    internal static class RuleTests
    {
        public static void Register(List<TestCase> tests)
        {
            tests.Add(new TestCase { Name = "retries: same key on timeouts and unavailable services, backoff capped", Body = Sync(Retries) });
            tests.Add(new TestCase { Name = "reconnection: refresh on 4001, stop on 4003/4004/4005, back off otherwise", Body = Sync(Reconnection) });
            tests.Add(new TestCase { Name = "socket replies: only a reply or error answers, a notification with the same correlationId does not", Body = Sync(Replies) });
            tests.Add(new TestCase { Name = "http errors: problem+json becomes a typed PodiumException", Body = Sync(Problems) });
            tests.Add(new TestCase { Name = "http calls: paths escaped, query typed", Body = Sync(Calls) });
            tests.Add(new TestCase { Name = "sessions: a grant round-trips through JSON and the file store", Body = Sync(Sessions) });
            tests.Add(new TestCase { Name = "replies: typed members, a missing or mistyped required member is invalid_reply", Body = Sync(Members) });
            tests.Add(new TestCase { Name = "main thread: events are posted to the captured context, in order", Body = Dispatching });
        }

        private static Func<Task> Sync(Action body)
        {
            return () =>
            {
                body();
                return Task.FromResult(true);
            };
        }

        private static PodiumException Error(string code, long? retryAfter = null)
        {
            return new PodiumException(code, "test", retryAfterMilliseconds: retryAfter);
        }

        private static void Retries()
        {
            var policy = new RetryPolicy(4, TimeSpan.FromMilliseconds(250), TimeSpan.FromSeconds(1));
            foreach (var code in new[] { "service_unavailable", "service_timeout", "overloaded", "storage_unavailable", "rebuilding", "timeout", "network" })
                Check.That(RetryPolicy.IsRetryable(code), code + " is retryable");
            foreach (var code in new[] { "token_expired", "unknown_board", "id_reused", "rate_limited", "forbidden", "conflict", "http_502" })
                Check.That(!RetryPolicy.IsRetryable(code), code + " is not retryable");
            Check.That(RetryPolicy.IsNotApplied("service_unavailable") && !RetryPolicy.IsNotApplied("service_timeout")
                && !RetryPolicy.IsNotApplied("timeout"), "only codes that say nothing was applied allow resending a request without a receipt");
            Check.Equal(TimeSpan.FromMilliseconds(250), policy.DelayAfter(Error("service_timeout"), 1, 0).Value, "first wait");
            Check.Equal(TimeSpan.FromMilliseconds(500), policy.DelayAfter(Error("timeout"), 2, 0).Value, "doubled");
            Check.Equal(TimeSpan.FromSeconds(1), policy.DelayAfter(Error("network"), 3, 0).Value, "capped");
            Check.Equal(TimeSpan.FromMilliseconds(1050), policy.DelayAfter(Error("network"), 3, 0.5).Value, "jitter adds up to a tenth");
            Check.That(!policy.DelayAfter(Error("service_unavailable"), 4, 0).HasValue, "no fifth attempt of four");
            Check.That(!policy.DelayAfter(Error("unknown_board"), 1, 0).HasValue, "no resend of a refusal");
            Check.Equal(TimeSpan.FromMilliseconds(800), policy.DelayAfter(Error("overloaded", 800), 1, 0).Value, "the server's retry-after wins");
            Check.That(!policy.DelayAfter(Error("overloaded", 5000), 1, 0).HasValue, "a retry-after beyond the cap is left to the game");
            Check.Equal(1, new RetryPolicy(0, TimeSpan.Zero, TimeSpan.Zero).Attempts, "at least one attempt");
        }

        private static void Reconnection()
        {
            var policy = new ReconnectPolicy(TimeSpan.FromMilliseconds(500), TimeSpan.FromSeconds(4));
            var expired = policy.AfterClose(4001, 1, 0.5);
            Check.Equal(ReconnectAction.RefreshThenReconnect, expired.Action, "4001: refresh");
            Check.Equal(TimeSpan.Zero, expired.Delay, "4001: at once");
            Check.That(!expired.ForgetSession, "4001 keeps the session");
            foreach (var code in new[] { 4003, 4005 })
            {
                var end = policy.AfterClose(code, 1, 0.5);
                Check.That(end.Action == ReconnectAction.Stop && end.ForgetSession, code + ": stop and forget the session");
            }
            var banned = policy.AfterClose(4004, 1, 0.5);
            Check.That(banned.Action == ReconnectAction.Stop && !banned.ForgetSession, "4004: stop, keep the session");
            foreach (var code in new[] { 1000, 1001, 1006, 1008, 1011 })
                Check.Equal(ReconnectAction.ReconnectAfterDelay, policy.AfterClose(code, 1, 0.5).Action, code + ": reconnect");
            Check.Equal(TimeSpan.FromMilliseconds(250), policy.Backoff(1, 0), "first wait, no jitter: half of 500 ms");
            Check.Equal(TimeSpan.FromMilliseconds(500), policy.Backoff(1, 1), "first wait, full jitter: 500 ms");
            Check.Equal(TimeSpan.FromMilliseconds(1000), policy.Backoff(3, 0), "doubled twice, half");
            Check.Equal(TimeSpan.FromSeconds(4), policy.Backoff(30, 1), "capped");
            var hello = policy.AfterHelloFailed("token_expired", 1, 0);
            Check.That(hello.Action == ReconnectAction.RefreshThenReconnect && hello.Delay == TimeSpan.Zero, "hello token_expired: refresh at once");
            Check.That(policy.AfterHelloFailed("token_expired", 2, 0).Delay > TimeSpan.Zero, "hello token_expired again: slow down");
            Check.Equal(ReconnectAction.ReconnectAfterDelay, policy.AfterHelloFailed("network", 1, 0).Action, "unreachable: retry");
            Check.Equal(ReconnectAction.ReconnectAfterDelay, policy.AfterHelloFailed("service_unavailable", 1, 0).Action, "unavailable: retry");
            var refused = policy.AfterHelloFailed("forbidden", 1, 0);
            Check.That(refused.Action == ReconnectAction.Stop && !refused.ForgetSession, "a refused game: stop");
            Check.That(policy.AfterHelloFailed("session_revoked", 1, 0).ForgetSession, "a revoked session is forgotten");
            Check.That(policy.AfterRefreshFailed("token_expired", 1, 0).ForgetSession, "an expired refresh token: log in again");
            Check.Equal(ReconnectAction.ReconnectAfterDelay, policy.AfterRefreshFailed("timeout", 1, 0).Action, "a refresh that timed out: retry later");
        }

        private static IReadOnlyDictionary<string, object> Envelope(string json)
        {
            return (IReadOnlyDictionary<string, object>)Json.Parse(json);
        }

        private static void Replies()
        {
            var pending = new PendingReplies();
            var answer = pending.Expect("r1");
            Check.That(!pending.Deliver(Envelope(
                "{\"type\":\"notification\",\"correlationId\":\"r1\",\"id\":\"n\",\"timestamp\":1,\"payload\":{\"kind\":\"diagnostic.test\",\"message\":\"m\"}}")),
                "a notification caused by the request is not its reply");
            Check.That(!answer.IsCompleted, "the request still waits after the notification");
            Check.That(!pending.Deliver(Envelope("{\"type\":\"reply\",\"correlationId\":\"other\",\"payload\":{}}")), "a reply to an unknown id answers nothing");
            Check.That(!pending.Deliver(Envelope("{\"type\":\"reply\",\"payload\":{}}")), "an uncorrelated reply answers nothing");
            Check.That(pending.Deliver(Envelope("{\"type\":\"reply\",\"correlationId\":\"r1\",\"payload\":{\"ok\":1}}")), "the reply answers");
            Check.Equal<object>(1L, answer.Result["ok"], "the reply's payload");
            Check.That(!pending.Deliver(Envelope("{\"type\":\"reply\",\"correlationId\":\"r1\",\"payload\":{}}")), "a second reply answers nothing");

            var refused = pending.Expect("r2");
            Check.That(pending.Deliver(Envelope(
                "{\"type\":\"error\",\"correlationId\":\"r2\",\"payload\":{\"code\":\"rate_limited\",\"message\":\"slow\",\"field\":\"token\",\"retryAfterMilliseconds\":87}}")),
                "an error answers");
            var error = (PodiumException)refused.Exception.InnerException;
            Check.Equal("rate_limited", error.Code, "code");
            Check.Equal("token", error.Field, "field");
            Check.Equal<long?>(87, error.RetryAfterMilliseconds, "retry after");
            Check.Equal<int?>(null, error.Status, "no HTTP status on the socket");
            Check.Equal("r2", error.RequestId, "request id");

            var third = pending.Expect("r3");
            Check.Throws<PodiumException>(() => pending.Expect("r3"), "an id already waiting");
            pending.FailAll(id => new PodiumException("network", "closed", requestId: id));
            Check.Equal("network", ((PodiumException)third.Exception.InnerException).Code, "closing fails what waits");
            Check.Equal(0, pending.Count, "nothing waits after closing");
        }

        private static void Members()
        {
            var o = Envelope("{\"s\":\"x\",\"i\":5,\"w\":5.0,\"f\":5.5,\"b\":true,\"n\":null,\"l\":[\"a\",\"b\"],\"o\":{}}");
            Check.Equal(5L, o.GetInt64("i"), "an integer");
            Check.Equal(5L, o.GetInt64("w"), "a whole number written with a fraction is that integer");
            Check.Equal(5.5, o.GetDouble("f"), "a double");
            Check.Equal(5.0, o.GetDouble("i"), "an integer read as a number");
            Check.Equal<long?>(null, o.GetInt64OrNull("n"), "null is absent");
            Check.Equal<long?>(null, o.GetInt64OrNull("missing"), "absent");
            Check.That(!o.GetFlag("missing") && o.GetFlag("b"), "a flag left out is false");
            Check.Sequence(new[] { "a", "b" }, o.GetStrings("l"), "strings");
            Check.Equal(0, o.GetObject("o").Count, "an object");
            foreach (var bad in new Action[]
            {
                () => o.GetInt64("f"), () => o.GetInt64("s"), () => o.GetString("i"), () => o.GetString("missing"),
                () => o.GetBoolean("n"), () => o.GetList("o"), () => o.GetObject("l"), () => o.GetStringOrNull("b"),
            })
            {
                Check.Equal(ErrorCodes.InvalidReply, Check.Throws<PodiumException>(bad, "a member of the wrong type").Code, "the code");
            }
            var receipt = Envelope("{\"boardId\":\"b\",\"playerId\":\"p\",\"improved\":true,\"scopesBeaten\":[]}");
            var missing = Check.Throws<PodiumException>(() => new ScoreReceipt(receipt), "a receipt without its entry");
            Check.That(missing.Message.Contains("'entry'"), "the message names the member: " + missing.Message);
        }

        private static void Problems()
        {
            var error = HttpCall.Problem(404,
                "{\"code\":\"unknown_board\",\"detail\":\"no board 'x'\",\"field\":\"payload.boardId\",\"requestId\":\"k-1\",\"status\":404,\"title\":\"unknown_board\",\"type\":\"urn:podium:error:unknown_board\"}",
                "k-0", null);
            Check.Equal("unknown_board", error.Code, "code");
            Check.Equal<int?>(404, error.Status, "status");
            Check.Equal("payload.boardId", error.Field, "field");
            Check.Equal("no board 'x'", error.Message, "message from detail");
            Check.Equal("k-1", error.RequestId, "the request id the server names");
            var limited = HttpCall.Problem(429, "{\"code\":\"rate_limited\",\"detail\":\"d\",\"retryAfterMilliseconds\":1500}", "k", 2000);
            Check.Equal<long?>(1500, limited.RetryAfterMilliseconds, "the body's retryAfterMilliseconds before the header");
            var header = HttpCall.Problem(503, "{\"code\":\"overloaded\",\"detail\":\"d\"}", "k", 2000);
            Check.Equal<long?>(2000, header.RetryAfterMilliseconds, "the Retry-After header when the body has none");
            var proxy = HttpCall.Problem(502, "<html>Bad Gateway</html>", "k", null);
            Check.Equal("http_502", proxy.Code, "a page that is not a problem");
            Check.Equal("k", proxy.RequestId, "the key sent");
            Check.Equal("http_500", HttpCall.Problem(500, "", "k", null).Code, "an empty body");
        }

        private static void Calls()
        {
            var call = new HttpCall(HttpMethod.Get, HttpCall.Game("my game") + "/leaderboards/" + HttpCall.Segment("a/b?c"))
                .With("scope", "week").With("limit", 5).With("friendsOnly", true).With("cursor", null).With("offset", 12L);
            Check.Equal("http://h:1/v1/games/my%20game/leaderboards/a%2Fb%3Fc?scope=week&limit=5&friendsOnly=true&offset=12",
                call.BuildUri("http://h:1").AbsoluteUri, "the URI");
            Check.Throws<ArgumentException>(() => HttpCall.Segment(""), "an empty id");
        }

        private static void Sessions()
        {
            var json = "{\"created\":true,\"displayName\":\"Ann\",\"playerId\":\"p1\",\"refreshExpiresAt\":1797815797000,\"refreshToken\":\"r\",\"sessionExpiresAt\":1795224697000,\"sessionId\":\"s\",\"sessionToken\":\"t\",\"username\":\"ann\"}";
            var grant = SessionGrant.FromJson(json);
            Check.Equal("p1", grant.PlayerId, "player");
            Check.Equal(1795224697000L, grant.SessionExpiresAt, "expiry");
            Check.Equal(json, grant.ToJson(), "written back the same");
            Check.Throws<PodiumException>(() => SessionGrant.FromJson("{\"playerId\":\"p\"}"), "a grant without tokens");
            var folder = Path.Combine(Path.GetTempPath(), Stack.Unique("podium-store"));
            var store = new FileSessionStore(Path.Combine(folder, "deep", "session.json"));
            Check.That(store.Load() == null, "nothing stored yet");
            store.Save(grant);
            Check.Equal(json, store.Load().ToJson(), "loaded as saved");
            store.Save(SessionGrant.FromJson(json.Replace("\"t\"", "\"t2\"")));
            Check.Equal("t2", store.Load().SessionToken, "a second save replaces the first");
            Check.That(!File.Exists(store.Path + ".tmp"), "no temporary file left");
            File.WriteAllText(store.Path, "{not json");
            Check.That(store.Load() == null, "a damaged file is no session");
            store.Clear();
            Check.That(!File.Exists(store.Path) && store.Load() == null, "cleared");
            Directory.Delete(folder, true);
        }

        private static async Task Dispatching()
        {
            using (var main = new MainThreadContext())
            {
                var dispatcher = new CallbackDispatcher(main);
                var seen = new List<int>();
                var done = new TaskCompletionSource<bool>();
                await Task.Run(() =>
                {
                    for (var i = 0; i < 100; i++)
                    {
                        var n = i;
                        dispatcher.Post(() =>
                        {
                            main.Expect("posted callback " + n);
                            seen.Add(n);
                            if (n == 99) done.SetResult(true);
                        });
                    }
                });
                await done.Task;
                main.CheckClean();
                Check.Sequence(Enumerable.Range(0, 100), seen, "callbacks in the order posted");
                var inline = -1;
                new CallbackDispatcher(null).Post(() => inline = System.Threading.Thread.CurrentThread.ManagedThreadId);
                Check.Equal(System.Threading.Thread.CurrentThread.ManagedThreadId, inline, "without a context: on the calling thread");
            }
        }
    }
}
