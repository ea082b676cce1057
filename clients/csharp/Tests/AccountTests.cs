using System;
using System.Collections.Generic;
using System.Linq;
using System.Reflection;
using System.Threading.Tasks;
using UnityEngine;

namespace Podium.Tests
{
    /// <summary>Accounts and sessions, the session stores, the MonoBehaviour sample, and a game server's key.</summary>
    internal static class AccountTests
    {
        public static void Register(List<TestCase> tests)
        {
            tests.Add(new TestCase
            {
                Name = "accounts: register, log out, log in, profile, wrong password, device login and link",
                NeedsServer = true, Body = World.Test(Accounts),
            });
            tests.Add(new TestCase
            {
                Name = "sessions: the PlayerPrefs store of the docs is called on the main thread and survives a restart",
                NeedsServer = true, Body = World.Test(PlayerPrefsStore),
            });
            tests.Add(new TestCase
            {
                Name = "unity: the MonoBehaviour of the docs logs in, connects, shows a notification, and resumes its session",
                NeedsServer = true, Body = World.Test(MonoBehaviourSample),
            });
            tests.Add(new TestCase
            {
                Name = "server key: a game server publishes for a player, idempotent, only in its own game",
                NeedsServer = true, Body = World.Test(ServerKey),
            });
        }

        private static async Task Accounts(World world)
        {
            var podium = world.Track(new PodiumClient(Stack.Options()));
            var username = Stack.Unique("cs-cy");
            var password = Stack.Password;
            // docs:begin auth
            var grant = await podium.RegisterAsync(username, password, "Cy");
            Debug.Log("registered player " + grant.PlayerId);
            await podium.LogoutAsync();
            await podium.LoginAsync(username, password);
            var profile = await podium.GetProfileAsync();
            // docs:end auth
            Check.That(grant.Created, "registering created the account");
            Check.Equal(grant.PlayerId, profile.PlayerId, "logged in as the same player");
            Check.Equal(username, profile.Username, "the username");
            Check.Equal("Cy", profile.DisplayName, "the display name");
            Check.NotEqual(grant.SessionId, podium.Session.SessionId, "a new session");
            var old = await Stack.RawGetAsync("/v1/me", grant.SessionToken);
            Check.Equal("session_revoked", old.Value, "the logged-out session's token is refused");
            Check.Equal("Cy the Bold", (await podium.SetDisplayNameAsync("Cy the Bold")).DisplayName, "renamed");

            var stranger = world.Track(new PodiumClient(Stack.Options()));
            var wrong = await Check.FailsAsync(ErrorCodes.InvalidCredentials,
                () => stranger.LoginAsync(username.ToUpperInvariant(), "not the password at all"), "a wrong password");
            Check.Equal<int?>(401, wrong.Status, "invalid_credentials is 401");
            Check.That(stranger.Session == null, "no session after a refused login");
            await Check.FailsAsync(ErrorCodes.UsernameTaken, () => stranger.RegisterAsync(username, password), "the username again");
            await Check.FailsAsync(ErrorCodes.Unauthenticated, () => stranger.GetProfileAsync(), "a request without a session");

            var deviceId = PodiumClient.NewRequestId();
            var device = world.Track(new PodiumClient(Stack.Options()));
            var firstLogin = await device.LoginWithDeviceAsync(deviceId, "Dee");
            Check.That(firstLogin.Created && firstLogin.Username == null, "a new device account, without a username");
            await device.LogoutAsync();
            Check.That(device.Session == null && !device.IsLoggedIn, "logged out");
            var secondLogin = await device.LoginWithDeviceAsync(deviceId);
            Check.That(!secondLogin.Created, "the same device finds its account");
            Check.Equal(firstLogin.PlayerId, secondLogin.PlayerId, "the same player");
            var linkedName = Stack.Unique("cs-dee");
            var linked = await device.LinkAccountAsync(linkedName, password);
            Check.Equal(linkedName, linked.Username, "linked to a username");
            Check.Equal(1L, linked.LinkedDevices, "one device");
        }

        private static async Task PlayerPrefsStore(World world)
        {
            PlayerPrefs.DeleteKey("podium.session");
            var options = Stack.Options();
            options.SessionStore = new PlayerPrefsSessionStore();
            var podium = world.Track(new PodiumClient(options));
            Check.That(podium.Session == null, "nothing kept yet");
            await podium.LoginWithDeviceAsync(PodiumClient.NewRequestId());
            await world.Main.DrainAsync();
            Check.That(PlayerPrefs.GetString("podium.session", "").Contains(podium.PlayerId), "the session is in PlayerPrefs");
            var restarted = world.Track(new PodiumClient(options));
            Check.Equal(podium.Session.SessionToken, restarted.Session.SessionToken, "a restarted game has the session");
            await restarted.LogoutAsync();
            await world.Main.DrainAsync();
            Check.That(!PlayerPrefs.HasKey("podium.session"), "logging out clears it");
            await Task.Run(() => Check.Throws<UnityException>(() => new PlayerPrefsSessionStore().Load(),
                "the stand-in PlayerPrefs refuses other threads, as Unity's does"));
        }

        private static void Call(PodiumManager manager, string method)
        {
            typeof(PodiumManager).GetMethod(method, BindingFlags.Instance | BindingFlags.NonPublic).Invoke(manager, null);
        }

        private static async Task MonoBehaviourSample(World world)
        {
            var manager = new PodiumManager { serverUrl = Stack.Http };
            Call(manager, "Awake");
            world.Track(manager.Client);
            var feed = world.FeedOf(manager.Client);
            Check.That(!manager.Client.IsLoggedIn, "a first launch has no session");
            Call(manager, "Start");
            await feed.UntilAsync(() => manager.Client.IsConnected
                && UnityEngine.Debug.Console().Contains("log: Podium: playing as " + manager.Client.PlayerId), "the sample logged in and connected");
            var player = manager.Client.PlayerId;
            var message = Stack.Unique("hello from the test");
            await manager.Client.CallAsync("challenge.test-notification", "dash", new Dictionary<string, object> { { "message", message } });
            await feed.UntilAsync(() => UnityEngine.Debug.Console().Contains("log: Podium: diagnostic.test: " + message),
                "the sample's handler logged the notification");
            Call(manager, "OnDestroy");

            var relaunched = new PodiumManager { serverUrl = Stack.Http };
            Call(relaunched, "Awake");
            world.Track(relaunched.Client);
            var relaunchedFeed = world.FeedOf(relaunched.Client);
            Check.Equal(player, relaunched.Client.PlayerId, "the next launch has the session from the file");
            Call(relaunched, "Start");
            await relaunchedFeed.UntilAsync(() => relaunchedFeed.Connections == 1, "the next launch connected");
            Call(relaunched, "OnDestroy");
            var errors = UnityEngine.Debug.Console().Where(l => l.StartsWith("error: Podium")).ToList();
            Check.That(errors.Count == 0, "no errors logged: " + string.Join("; ", errors));
        }

        private static async Task ServerKey(World world)
        {
            var player = await world.PlayerAsync("sam");
            var server = world.Track(new PodiumClient(new PodiumOptions { BaseUrl = Stack.Http, ServerKey = Stack.ServerKey }));
            var key = PodiumClient.NewRequestId();
            var payload = new Dictionary<string, object> { { "name", "match.end" }, { "value", 3 } };
            var ack = await server.CallAsync("event.publish", "g", payload, player.PlayerId, key);
            Check.That(ack["eventId"] is string && (long)ack["sequence"] > 0, "logged: " + Json.Write(ack));
            var again = await server.CallAsync("event.publish", "g", payload, player.PlayerId, key);
            Check.Equal(ack["sequence"], again["sequence"], "a resend is the same event");
            Check.Equal<object>(true, again["duplicate"], "marked duplicate");
            var other = await Check.FailsAsync(ErrorCodes.InvalidCredentials,
                () => server.CallAsync("event.publish", "dash", payload, player.PlayerId), "the key in another game");
            Check.Equal("serverKey", other.Field, "the key is to blame");
        }
    }
}
