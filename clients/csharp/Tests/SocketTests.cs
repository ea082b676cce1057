using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using UnityEngine;

namespace Podium.Tests
{
    /// <summary>The WebSocket: requests and replies, notifications, catching up, refusals, and the close codes that stop it.</summary>
    internal static class SocketTests
    {
        public static void Register(List<TestCase> tests)
        {
            tests.Add(new TestCase
            {
                Name = "socket: a request's reply is matched by id, its notification (same correlationId) is a notification",
                NeedsServer = true, Body = World.Test(ReplyAndNotification),
            });
            tests.Add(new TestCase
            {
                Name = "socket: after connecting, what the inbox kept is caught up (the docs' handler)",
                NeedsServer = true, Body = World.Test(CatchUp),
            });
            tests.Add(new TestCase
            {
                Name = "errors: typed PodiumException over HTTP and the socket; a refused hello stops the client",
                NeedsServer = true, Body = World.Test(Errors),
            });
            tests.Add(new TestCase
            {
                Name = "socket: a broken connection is reconnected with backoff, and pushes again",
                NeedsServer = true, Body = World.Test(Reconnects),
            });
            tests.Add(new TestCase
            {
                Name = "socket: 4003 (sessions revoked) and 4005 (account deleted) stop reconnecting and forget the session",
                NeedsServer = true, Body = World.Test(Stops),
            });
        }

        private static async Task ReplyAndNotification(World world)
        {
            var podium = await world.PlayerAsync("sol");
            var feed = world.FeedOf(podium);
            await podium.ConnectAsync(new[] { "dash" });
            for (var i = 0; i < 5; i++)
            {
                var key = PodiumClient.NewRequestId();
                var reply = await podium.SendOverSocketAsync("challenge.test-notification", "dash",
                    new Dictionary<string, object> { { "message", "ping " + i } }, key);
                Check.That(reply.ContainsKey("notificationId") && reply.ContainsKey("topic"), "the reply's payload, not the notification's");
                var pushed = await feed.WaitForAsync("diagnostic.test", n => n.CorrelationId == key);
                Check.Equal(reply["notificationId"], pushed.Id, "the notification the request caused");
                Check.Equal("ping " + i, pushed.Message, "its message");
            }
            var entry = await podium.SendOverSocketAsync("leaderboard.entry", "dash",
                new Dictionary<string, object> { { "boardId", "com.example.dash.highscore" } });
            Check.That(entry.ContainsKey("entry") && entry["entry"] == null, "a reply with a null member, over the socket");
            await podium.DisconnectAsync();
            Check.That(!podium.IsConnected, "disconnected");
            Check.Equal<int?>(SocketCloseCodes.Normal, feed.Disconnections.Single().CloseCode, "closed by the client");
            Check.That(!feed.Disconnections.Single().WillReconnect, "not reconnecting");
            await Check.FailsAsync(ErrorCodes.Network, () => podium.SendOverSocketAsync("leaderboard.entry", "dash"), "sending without a socket");
        }

        private static async Task CatchUp(World world)
        {
            var podium = await world.PlayerAsync("cat");
            var asker = await world.PlayerAsync("ask");
            await asker.RequestFriendAsync(podium.PlayerId, "dash");
            // The request is kept (from the auth service's stream) a moment after it is answered.
            await Stack.EventuallyAsync(async () => await podium.GetUnreadCountAsync("dash") == 1, "the friend request is in the inbox");
            // docs:begin notifications
            long lastPosition = 0; // keep it with the game's state
            podium.NotificationReceived += notification =>
                Debug.Log("live: " + notification.Kind + ": " + notification.Message);
            podium.Connected += async () =>
            {
                // Live delivery is at most once: after every (re)connection, read what was missed.
                InboxPage missed;
                do
                {
                    missed = await podium.GetInboxAsync("dash", after: lastPosition);
                    foreach (var item in missed.Items)
                    {
                        Debug.Log("missed: " + item.Message);
                        lastPosition = Math.Max(lastPosition, item.Position ?? lastPosition);
                    }
                } while (missed.Items.Count > 0);
            };
            podium.Disconnected += closed => Debug.Log("live updates " + (closed.WillReconnect ? "paused" : "stopped") + ": " + closed);
            await podium.ConnectAsync(new[] { "dash" });
            // docs:end notifications
            var feed = world.FeedOf(podium);
            var expected = "log: missed: " + asker.Session.DisplayName + " wants to be your friend";
            await feed.UntilAsync(() => lastPosition > 0 && UnityEngine.Debug.Console().Contains(expected),
                "the friend request was caught up");
            var kept = await podium.GetInboxAsync("dash");
            Check.Equal(lastPosition, kept.Items.Max(i => i.Position.Value), "caught up to the newest item");
            Check.That(kept.Items.Single().Kind == "friend.requested" && kept.Unread == 1, "one unread friend request");
            Check.Equal(1L, await podium.MarkAllReadAsync("dash"), "all marked read");
            Check.Equal(0L, await podium.GetUnreadCountAsync("dash"), "nothing unread");
            Check.Equal(1L, await podium.DeleteInboxItemsAsync("dash", new[] { kept.Items[0].Id }), "deleted");
            Check.Equal(0, (await podium.GetInboxAsync("dash")).Items.Count, "the inbox is empty");
        }

        private static async Task Errors(World world)
        {
            var podium = await world.PlayerAsync("err");
            var warned = false;
            // docs:begin errors
            try
            {
                await podium.SubmitScoreAsync("dash", "no.such.board", 10);
            }
            catch (PodiumException error) when (error.Code == ErrorCodes.UnknownBoard)
            {
                Debug.LogWarning("no such board: " + error.Field + ", HTTP " + error.Status); // payload.boardId, HTTP 404
                warned = true;
            }
            // docs:end errors
            Check.That(warned, "the docs' catch caught unknown_board");
            var http = await Check.FailsAsync(ErrorCodes.UnknownBoard, () => podium.GetTopAsync("dash", "no.such.board"), "an unknown board over HTTP");
            Check.Equal<int?>(404, http.Status, "status");
            Check.Equal("payload.boardId", http.Field, "field");
            Check.NotNull(http.RequestId, "the request id");
            Check.That(!http.IsRetryable, "not retryable");
            var limit = await Check.FailsAsync(ErrorCodes.InvalidField, () => podium.GetTopAsync("dash", "com.example.dash.highscore", limit: 0), "limit 0");
            Check.That(limit.Status == 400 && limit.Field == "payload.limit", "400, payload.limit");
            await Check.FailsAsync(ErrorCodes.UnknownGame, () => podium.GetLeaderboardsAsync("no-such-game"), "an unknown game");
            await Check.FailsAsync(ErrorCodes.UnknownType, () => podium.CallAsync("teleport.player"), "an unknown request type");

            var feed = world.FeedOf(podium);
            await podium.ConnectAsync(new[] { "dash" });
            var socket = await Check.FailsAsync(ErrorCodes.UnknownBoard, () => podium.SendOverSocketAsync("leaderboard.top", "dash",
                new Dictionary<string, object> { { "boardId", "no.such.board" } }), "an unknown board over the socket");
            Check.Equal<int?>(null, socket.Status, "no HTTP status on the socket");
            Check.Equal("payload.boardId", socket.Field, "field over the socket");

            var hello = await Check.FailsAsync(ErrorCodes.InvalidField, () => podium.ConnectAsync(new[] { "dash", "no game!" }), "a hello with a bad game id");
            Check.Equal("payload.games.1", hello.Field, "the game to blame");
            await feed.UntilAsync(() => feed.Disconnections.Any(d => !d.WillReconnect && d.Error != null), "the client gave up");
            Check.That(!podium.IsConnected, "a refused hello stops the client");
            Check.Equal(ErrorCodes.InvalidField, feed.Disconnections.Last(d => d.Error != null).Error.Code, "and says why");
            Check.That(podium.IsLoggedIn, "the session stays");
        }

        private static async Task Reconnects(World world)
        {
            using (var relay = new TcpRelay(new Uri(Stack.Http)))
            {
                var options = Stack.Options();
                options.SocketUrl = "ws://127.0.0.1:" + relay.Port + "/v1/socket";
                var podium = await world.PlayerAsync("rex", options);
                var feed = world.FeedOf(podium);
                await podium.ConnectAsync(new[] { "dash" });
                relay.Refusing = true;
                relay.CutAll();
                await feed.UntilAsync(() => feed.Disconnections.Count == 1, "the cut socket is reported");
                var broken = feed.Disconnections[0];
                Check.Equal<int?>(SocketCloseCodes.Abnormal, broken.CloseCode, "closed without a close frame: 1006");
                Check.That(broken.WillReconnect, "the client will reconnect");
                await feed.UntilAsync(() => relay.Refused >= 2, "the client tried again while the way was closed");
                Check.That(!podium.IsConnected, "not connected while refused");
                relay.Refusing = false;
                await feed.UntilAsync(() => feed.Connections == 2 && podium.IsConnected, "connected again once the way is open");
                Check.Equal(1, feed.Disconnections.Count, "failed attempts are not reported as closes");
                var reply = await podium.CallAsync("challenge.test-notification", "dash",
                    new Dictionary<string, object> { { "message", "through again" } });
                var pushed = await feed.WaitForAsync("diagnostic.test", n => n.Message == "through again");
                Check.Equal(reply["notificationId"], pushed.Id, "pushed on the new socket");
            }
        }

        private static async Task Stops(World world)
        {
            var username = Stack.Unique("cs-two");
            var first = world.Track(new PodiumClient(Stack.Options()));
            await first.RegisterAsync(username, Stack.Password);
            var second = world.Track(new PodiumClient(Stack.Options()));
            await second.LoginAsync(username, Stack.Password);
            var feed = world.FeedOf(second);
            var forgotten = 0;
            second.SessionChanged += session => { if (session == null) forgotten++; };
            await second.ConnectAsync(new[] { "dash" });
            await first.CallAsync("auth.revoke", null, new Dictionary<string, object> { { "allSessions", true } });
            await feed.UntilAsync(() => feed.Disconnections.Count > 0, "the revoked session's socket closed");
            var revoked = feed.Disconnections[0];
            Check.Equal<int?>(SocketCloseCodes.SessionRevoked, revoked.CloseCode, "closed with 4003");
            Check.That(!revoked.WillReconnect, "no reconnection after 4003");
            await feed.UntilAsync(() => forgotten == 1, "the session was forgotten");
            Check.That(!second.IsLoggedIn && !second.IsConnected, "logged out, not connected");
            await Check.FailsAsync(ErrorCodes.SessionRevoked, () => first.GetProfileAsync(), "the revoking session is revoked too");
            Check.That(!first.IsLoggedIn, "an HTTP answer session_revoked forgets the session");

            var gone = world.Track(new PodiumClient(Stack.Options()));
            await gone.LoginAsync(username, Stack.Password);
            var deleting = world.Track(new PodiumClient(Stack.Options()));
            await deleting.LoginAsync(username, Stack.Password);
            var goneFeed = world.FeedOf(gone);
            await gone.ConnectAsync(new[] { "dash" });
            await deleting.DeleteAccountAsync(Stack.Password);
            Check.That(!deleting.IsLoggedIn, "the deleting client forgot its session");
            await goneFeed.UntilAsync(() => goneFeed.Disconnections.Count > 0, "the deleted account's socket closed");
            Check.Equal<int?>(SocketCloseCodes.AccountDeleted, goneFeed.Disconnections[0].CloseCode, "closed with 4005");
            Check.That(!goneFeed.Disconnections[0].WillReconnect, "no reconnection after 4005");
            await goneFeed.UntilAsync(() => !gone.IsLoggedIn, "the session was forgotten");
            await Check.FailsAsync(ErrorCodes.InvalidCredentials, () => gone.LoginAsync(username, Stack.Password), "the account is gone");
        }
    }
}
