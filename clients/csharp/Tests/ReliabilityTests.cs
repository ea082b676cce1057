using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using UnityEngine;

namespace Podium.Tests
{
    /// <summary>
    /// Resends with the same idempotency key, the server's original answer to them, and sessions
    /// that expire (30 s on the test stack) refreshed without the game noticing.
    /// </summary>
    internal static class ReliabilityTests
    {
        private const string Coins = "com.example.dash.coins";

        public static void Register(List<TestCase> tests)
        {
            tests.Add(new TestCase
            {
                Name = "expiry: after the session token expires a score goes through by a refresh, same key, store updated",
                NeedsServer = true, Background = true, Timeout = TimeSpan.FromSeconds(Stack.SessionSeconds + 30),
                Body = World.Test(RefreshOnExpiry),
            });
            tests.Add(new TestCase
            {
                Name = "expiry: the socket closed with 4001 is refreshed and reconnected, and pushes again",
                NeedsServer = true, Background = true, Timeout = TimeSpan.FromSeconds(Stack.SessionSeconds + 30),
                Body = World.Test(SocketExpiry),
            });
            tests.Add(new TestCase
            {
                Name = "idempotency: the same request with the same key gets the original answer, applied once",
                NeedsServer = true, Body = World.Test(SameKey),
            });
            tests.Add(new TestCase
            {
                Name = "retries: a lost answer and a service_unavailable are resent with the same key, applied once",
                NeedsServer = true, Body = World.Test(Resends),
            });
        }

        private static async Task RefreshOnExpiry(World world)
        {
            var faults = new FaultInjection();
            var folder = Path.Combine(Path.GetTempPath(), Stack.Unique("podium-expiry"));
            var path = Path.Combine(folder, "session.json");
            var store = new MainThreadStore(path, world.Main);
            var options = Stack.Options();
            options.HttpHandler = faults;
            options.SessionStore = store;
            var podium = world.Track(new PodiumClient(options));
            Check.That(podium.Session == null, "an empty store: no session");
            var changes = new List<SessionGrant>();
            podium.SessionChanged += grant =>
            {
                world.Main.Expect("SessionChanged");
                changes.Add(grant);
            };
            await podium.RegisterAsync(Stack.Unique("cs-exp"), Stack.Password);
            var before = podium.Session;
            var lifetime = before.SessionExpiresAt - DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
            Check.That(lifetime <= (Stack.SessionSeconds + 1) * 1000L, "the stack's sessions last " + Stack.SessionSeconds + " s (" + lifetime + " ms left)");
            await Task.Delay(TimeSpan.FromMilliseconds(lifetime + 300));

            var refused = await Stack.RawGetAsync("/v1/me", before.SessionToken);
            Check.Equal(401, refused.Key, "the old token's status");
            Check.Equal("token_expired", refused.Value, "the server refuses the expired token");

            var already = faults.Attempts.Count;
            var key = PodiumClient.NewRequestId();
            var receipt = await podium.SubmitScoreAsync("dash", "com.example.dash.highscore", 77, idempotencyKey: key);
            Check.Equal(77L, receipt.Entry.Value, "the score went in");
            var after = podium.Session;
            Check.NotEqual(before.SessionToken, after.SessionToken, "a new session token");
            Check.NotEqual(before.RefreshToken, after.RefreshToken, "a new refresh token");
            Check.Equal(before.SessionId, after.SessionId, "the same session, refreshed");
            Check.That(after.SessionExpiresAt > before.SessionExpiresAt, "a later expiry");

            var attempts = faults.Attempts.Skip(already).ToList();
            Check.Sequence(
                new[] { "POST /v1/games/dash/leaderboards/com.example.dash.highscore/scores 401", "POST /v1/sessions/refresh 200",
                        "POST /v1/games/dash/leaderboards/com.example.dash.highscore/scores 200" },
                attempts.Select(a => a.Method + " " + a.Path + " " + a.Status), "the attempts");
            Check.That(attempts[0].IdempotencyKey == key && attempts[2].IdempotencyKey == key, "the score was resent with the same key");
            Check.Equal(before.SessionToken, attempts[0].Token, "first with the expired token");
            Check.Equal(after.SessionToken, attempts[2].Token, "then with the new one");
            Check.Equal(null, attempts[1].Token, "the refresh carries no session token");

            await world.Main.DrainAsync();
            Check.Equal(after.SessionToken, new FileSessionStore(path).Load().SessionToken, "the store has the refreshed session");
            Check.Equal(2, store.Saves, "saved after registering and after the refresh");
            Check.Sequence(new[] { before.SessionToken, after.SessionToken }, changes.Select(c => c.SessionToken), "SessionChanged twice");

            // A client made later from the same store carries on with the refreshed session.
            var again = world.Track(new PodiumClient(new PodiumOptions { BaseUrl = Stack.Http, SessionStore = store }));
            Check.Equal(after.SessionToken, again.Session.SessionToken, "loaded from the store");
            Check.Equal(podium.PlayerId, (await again.GetProfileAsync()).PlayerId, "the same player");
            Directory.Delete(folder, true);
        }

        private static async Task SocketExpiry(World world)
        {
            var podium = await world.PlayerAsync("fay");
            var feed = world.FeedOf(podium);
            var first = podium.Session;
            await podium.ConnectAsync(new[] { "dash" });
            Check.Equal(1, feed.Connections, "connected once");
            var seconds = (first.SessionExpiresAt - DateTimeOffset.UtcNow.ToUnixTimeMilliseconds()) / 1000.0 + 10;
            await feed.UntilAsync(() => feed.Disconnections.Count > 0, "the socket closed at the session's expiry", seconds);
            var closed = feed.Disconnections[0];
            Check.Equal<int?>(SocketCloseCodes.SessionExpired, closed.CloseCode, "closed with 4001");
            Check.That(closed.WillReconnect, "the client reconnects after 4001");
            Check.That(DateTimeOffset.UtcNow.ToUnixTimeMilliseconds() >= first.SessionExpiresAt - 1000, "not before the expiry");
            await feed.UntilAsync(() => feed.Connections == 2 && podium.IsConnected, "connected again");
            var renewed = podium.Session;
            Check.NotEqual(first.SessionToken, renewed.SessionToken, "refreshed before saying hello again");
            Check.Equal(first.SessionId, renewed.SessionId, "the same session");

            var reply = await podium.CallAsync("challenge.test-notification", "dash",
                new Dictionary<string, object> { { "message", "after the refresh" } });
            var pushed = await feed.WaitForAsync("diagnostic.test", n => n.Message == "after the refresh");
            Check.Equal(reply["notificationId"], pushed.Id, "the notification the request made, on the new socket");
            Check.Equal(1, feed.Disconnections.Count, "no other close");
        }

        private static async Task SameKey(World world)
        {
            var podium = await world.PlayerAsync("ida");
            // docs:begin idempotency
            var key = PodiumClient.NewRequestId(); // kept with the score until it is answered
            var first = await podium.SubmitScoreAsync("dash", "com.example.dash.coins", 5, idempotencyKey: key);
            // The game restarted before it heard the answer, and sends the same score again:
            var again = await podium.SubmitScoreAsync("dash", "com.example.dash.coins", 5, idempotencyKey: key);
            Debug.Log(again.Duplicate); // True: the original answer, counted once
            // docs:end idempotency
            Check.That(!first.Duplicate && again.Duplicate, "the second answer is marked duplicate");
            Check.Equal(first.Entry.Value, again.Entry.Value, "the same entry");
            Check.Equal(first.Entry.SubmittedAt, again.Entry.SubmittedAt, "the same submission");
            Check.Equal((await podium.GetEntryAsync("dash", Coins)).Value, 5L, "the increment board counted 5 once");
            var reused = await Check.FailsAsync(ErrorCodes.IdReused,
                () => podium.SubmitScoreAsync("dash", Coins, 6, idempotencyKey: key), "the key with another score");
            Check.Equal<int?>(409, reused.Status, "id_reused is 409");
            Check.Equal("id", reused.Field, "the field to blame");
            Check.Equal(key, reused.RequestId, "the request id");

            var eventKey = PodiumClient.NewRequestId();
            var logged = await podium.PublishEventAsync("dash", "run.end", 42, null, eventKey);
            var relogged = await podium.PublishEventAsync("dash", "run.end", 42, null, eventKey);
            Check.Equal(logged["eventId"], relogged["eventId"], "the same event");
            Check.Equal(logged["sequence"], relogged["sequence"], "logged once");
            Check.Equal<object>(true, relogged["duplicate"], "marked duplicate");
        }

        private static async Task Resends(World world)
        {
            var faults = new FaultInjection();
            var options = Stack.Options();
            options.HttpHandler = faults;
            options.RequestTimeout = TimeSpan.FromSeconds(2);
            var podium = await world.PlayerAsync("lou", options);

            faults.LoseNextAnswer();
            var seen = faults.Attempts.Count;
            var lost = await podium.SubmitScoreAsync("dash", Coins, 7);
            var attempts = faults.Attempts.Skip(seen).ToList();
            Check.Equal(2, attempts.Count, "sent twice");
            Check.Equal(attempts[0].IdempotencyKey, attempts[1].IdempotencyKey, "with the same key");
            Check.Sequence(new[] { 200, 200 }, attempts.Select(a => a.Status), "the server answered both");
            Check.That(lost.Duplicate, "the resend got the original answer");
            Check.Equal(7L, (await podium.GetEntryAsync("dash", Coins)).Value, "counted once, not 14");

            faults.RefuseNext();
            seen = faults.Attempts.Count;
            var refused = await podium.SubmitScoreAsync("dash", Coins, 3);
            attempts = faults.Attempts.Skip(seen).ToList();
            Check.Sequence(new[] { 503, 200 }, attempts.Select(a => a.Status), "service_unavailable, then resent");
            Check.Equal(attempts[0].IdempotencyKey, attempts[1].IdempotencyKey, "with the same key");
            Check.That(!refused.Duplicate, "the refused attempt never reached the server");
            Check.Equal(10L, refused.Entry.Value, "7 + 3");

            faults.RefuseNext();
            faults.RefuseNext();
            faults.RefuseNext();
            var gaveUp = await Check.FailsAsync(ErrorCodes.ServiceUnavailable,
                () => podium.SubmitScoreAsync("dash", Coins, 1), "three refusals in a row");
            Check.Equal<int?>(503, gaveUp.Status, "the last answer's status");
            Check.That(gaveUp.IsRetryable, "retryable, for the game to try later with the same key");
            Check.Equal(10L, (await podium.GetEntryAsync("dash", Coins)).Value, "nothing applied");
        }
    }
}
