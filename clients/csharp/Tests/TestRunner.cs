using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Threading.Tasks;

namespace Podium.Tests
{
    /// <summary>One test: a name, a body, and whether it needs the stack of PODIUM_TEST_HTTP.</summary>
    internal sealed class TestCase
    {
        public string Name;
        public Func<Task> Body;
        public bool NeedsServer;
        /// <summary>Started before the others and awaited at the end (a test that mostly waits for the clock).</summary>
        public bool Background;
        public TimeSpan Timeout = TimeSpan.FromSeconds(60);
    }

    /// <summary>
    /// The tests' own runner (no NUnit): unit tests first, then, against the stack, the
    /// background tests started at once and the others one after the other. Prints every test's
    /// name and result and a closing "N passed, N failed, N skipped" line; the exit status is 1
    /// when any test failed.
    /// </summary>
    internal static class TestRunner
    {
        private static readonly object Output = new object();

        public static int Main(string[] args)
        {
            var tests = new List<TestCase>();
            JsonTests.Register(tests);
            RuleTests.Register(tests);
            SurfaceTests.Register(tests);
            DocsTests.Register(tests);
            ReliabilityTests.Register(tests);
            WalkthroughTests.Register(tests);
            AccountTests.Register(tests);
            LeaderboardTests.Register(tests);
            AchievementTests.Register(tests);
            ChallengeTests.Register(tests);
            SocketTests.Register(tests);
            if (args.Length > 0) tests = tests.Where(t => args.Any(a => t.Name.Contains(a))).ToList();

            var clock = Stopwatch.StartNew();
            int passed = 0, failed = 0, skipped = 0;
            Action<string, Exception, long> report = (name, error, ms) =>
            {
                lock (Output)
                {
                    if (error == null)
                    {
                        passed++;
                        Console.WriteLine("  ok    " + name + " (" + ms + " ms)");
                    }
                    else
                    {
                        failed++;
                        Console.WriteLine("  FAIL  " + name + " (" + ms + " ms)");
                        foreach (var line in Describe(error).Split('\n')) Console.WriteLine("        " + line);
                    }
                }
            };
            foreach (var test in tests.Where(t => !t.NeedsServer)) Run(test, report).Wait();
            var server = tests.Where(t => t.NeedsServer).ToList();
            if (!Stack.Available)
            {
                foreach (var test in server)
                {
                    skipped++;
                    Console.WriteLine("  skip  " + test.Name + " (PODIUM_TEST_HTTP is not set)");
                }
            }
            else
            {
                Console.WriteLine("stack: " + Stack.Http + " (sessions of " + Stack.SessionSeconds + " s)");
                var background = server.Where(t => t.Background).Select(t => Run(t, report)).ToList();
                foreach (var test in server.Where(t => !t.Background)) Run(test, report).Wait();
                Task.WaitAll(background.ToArray());
            }
            UnityEngine.Application.RemoveData();
            Console.WriteLine("C# client tests: " + clock.ElapsedMilliseconds / 1000.0 + " s");
            Console.WriteLine(passed + " passed, " + failed + " failed, " + skipped + " skipped");
            return failed == 0 ? 0 : 1;
        }

        private static async Task Run(TestCase test, Action<string, Exception, long> report)
        {
            var clock = Stopwatch.StartNew();
            Exception error = null;
            try
            {
                var body = Task.Run(test.Body);
                var first = await Task.WhenAny(body, Task.Delay(test.Timeout)).ConfigureAwait(false);
                if (first != body) throw new TimeoutException("the test did not finish within " + test.Timeout.TotalSeconds + " s");
                await body.ConfigureAwait(false);
            }
            catch (Exception failure)
            {
                error = failure;
            }
            report(test.Name, error, clock.ElapsedMilliseconds);
        }

        private static string Describe(Exception error)
        {
            var aggregate = error as AggregateException;
            if (aggregate != null && aggregate.InnerExceptions.Count == 1) error = aggregate.InnerExceptions[0];
            if (error is CheckFailed) return error.Message;
            return error.ToString();
        }
    }
}
