using System;
using System.Collections.Generic;
using System.Globalization;
using System.Net.Http;
using System.Net.Http.Headers;
using System.Text;
using System.Threading.Tasks;

namespace Podium.Tests
{
    /// <summary>
    /// The real stack the integration tests talk to, from the environment scripts/test-clients
    /// sets: PODIUM_TEST_HTTP, PODIUM_TEST_WS, PODIUM_TEST_ADMIN_KEY, PODIUM_TEST_SERVER_KEY (game
    /// "g") and PODIUM_TEST_SESSION_TTL_S.
    /// </summary>
    internal static class Stack
    {
        public static readonly string Http = Environment.GetEnvironmentVariable("PODIUM_TEST_HTTP");
        public static readonly string Ws = Environment.GetEnvironmentVariable("PODIUM_TEST_WS");
        public static readonly string AdminKey = Environment.GetEnvironmentVariable("PODIUM_TEST_ADMIN_KEY");
        public static readonly string ServerKey = Environment.GetEnvironmentVariable("PODIUM_TEST_SERVER_KEY");
        public static readonly int SessionSeconds = int.Parse(
            Environment.GetEnvironmentVariable("PODIUM_TEST_SESSION_TTL_S") ?? "900", CultureInfo.InvariantCulture);
        private static readonly HttpClient Raw = new HttpClient { Timeout = TimeSpan.FromSeconds(15) };
        private static readonly Random Random = new Random();

        public static bool Available
        {
            get { return !string.IsNullOrEmpty(Http); }
        }

        /// <summary>A name no other run has: a prefix and eight hex digits.</summary>
        public static string Unique(string prefix)
        {
            lock (Random) return prefix + "-" + Random.Next().ToString("x8", CultureInfo.InvariantCulture);
        }

        public const string Password = "a long test password 7";

        /// <summary>Options for the stack; made on the main thread, the client runs its events there.</summary>
        public static PodiumOptions Options()
        {
            return new PodiumOptions { BaseUrl = Http, SocketUrl = Ws };
        }

        /// <summary>A new registered player's client, made on the calling (main) thread.</summary>
        public static async Task<PodiumClient> NewPlayerAsync(string name, PodiumOptions options = null)
        {
            var client = new PodiumClient(options ?? Options());
            await client.RegisterAsync(Unique("cs-" + name), Password, name);
            return client;
        }

        /// <summary>Any request with the admin key (POST /v1/call/{type}); answers the reply payload.</summary>
        public static async Task<IReadOnlyDictionary<string, object>> AdminAsync(
            string type, string gameId, IDictionary<string, object> payload)
        {
            var body = new Dictionary<string, object> { { "payload", payload } };
            if (gameId != null) body["gameId"] = gameId;
            using (var request = new HttpRequestMessage(HttpMethod.Post, Http + "/v1/call/" + type))
            {
                request.Headers.Add("X-Podium-Admin-Key", AdminKey);
                request.Content = new StringContent(Json.Write(body), Encoding.UTF8, "application/json");
                using (var response = await Raw.SendAsync(request))
                {
                    var text = await response.Content.ReadAsStringAsync();
                    if (!response.IsSuccessStatusCode) throw new CheckFailed(type + " with the admin key: " + (int)response.StatusCode + " " + text);
                    return (IReadOnlyDictionary<string, object>)Json.Parse(text);
                }
            }
        }

        /// <summary>GET with a bearer token, outside the client: the status and the error code (null on success).</summary>
        public static async Task<KeyValuePair<int, string>> RawGetAsync(string path, string token)
        {
            using (var request = new HttpRequestMessage(HttpMethod.Get, Http + path))
            {
                request.Headers.Authorization = new AuthenticationHeaderValue("Bearer", token);
                using (var response = await Raw.SendAsync(request))
                {
                    var text = await response.Content.ReadAsStringAsync();
                    string code = null;
                    if (!response.IsSuccessStatusCode)
                        code = ((IReadOnlyDictionary<string, object>)Json.Parse(text))["code"] as string;
                    return new KeyValuePair<int, string>((int)response.StatusCode, code);
                }
            }
        }

        /// <summary>Retries <paramref name="probe"/> until it answers true, for state the server reaches a moment later.</summary>
        public static async Task EventuallyAsync(Func<Task<bool>> probe, string what, double seconds = 15)
        {
            var deadline = DateTime.UtcNow.AddSeconds(seconds);
            while (true)
            {
                if (await probe()) return;
                if (DateTime.UtcNow > deadline) throw new CheckFailed(what + " (not within " + seconds + " s)");
                await Task.Delay(100);
            }
        }
    }
}
