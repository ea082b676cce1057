using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Text.RegularExpressions;
using System.Threading.Tasks;

namespace Podium.Tests
{
    /// <summary>
    /// Podium.dll, compiled by mcs against Mono's framework, uses only types that .NET Standard 2.1
    /// has (Unity's API compatibility level): every type it references from the framework must be
    /// one that Mono's netstandard.dll (2.1.0.0) forwards. Types only; members are not checked.
    /// </summary>
    internal static class SurfaceTests
    {
        private const string Facade = "/usr/lib/mono/4.5/Facades/netstandard.dll";

        public static void Register(List<TestCase> tests)
        {
            tests.Add(new TestCase { Name = "surface: Podium.dll references only .NET Standard 2.1 types", Body = Surface });
        }

        private static Task Surface()
        {
            var standard = Disassemble(Facade);
            Check.That(standard.Contains(".assembly netstandard") && standard.Contains(".ver 2:1:0:0"), Facade + " is .NET Standard 2.1");
            var forwarded = new HashSet<string>(
                Regex.Matches(standard, @"^\.class extern forwarder (\S+)", RegexOptions.Multiline).Cast<Match>().Select(m => m.Groups[1].Value));
            Check.That(forwarded.Count > 2000, "the facade lists its types (" + forwarded.Count + ")");
            var library = Disassemble(typeof(PodiumClient).Assembly.Location);
            var used = new SortedSet<string>(
                Regex.Matches(library, @"\[(?:mscorlib|System|System\.Core|System\.Net\.Http|netstandard)\]([A-Za-z0-9_.`]+)")
                    .Cast<Match>().Select(m => m.Groups[1].Value));
            Check.That(used.Contains("System.Net.WebSockets.ClientWebSocket") && used.Contains("System.Net.Http.HttpClient"),
                "the scan sees the framework types the client uses");
            var missing = used.Where(type => !forwarded.Contains(type)).ToList();
            Check.That(missing.Count == 0, "no type outside .NET Standard 2.1, found: " + string.Join(", ", missing));
            var references = Regex.Matches(library, @"^\.assembly extern (\S+)", RegexOptions.Multiline).Cast<Match>()
                .Select(m => m.Groups[1].Value).OrderBy(n => n, StringComparer.Ordinal).ToList();
            Check.Sequence(new[] { "System", "System.Net.Http", "mscorlib" }, references, "the assemblies Podium.dll references");
            return Task.FromResult(true);
        }

        private static string Disassemble(string path)
        {
            var start = new ProcessStartInfo("ikdasm", "\"" + path + "\"")
            {
                UseShellExecute = false, RedirectStandardOutput = true, RedirectStandardError = true,
            };
            using (var process = Process.Start(start))
            {
                var output = process.StandardOutput.ReadToEnd();
                process.WaitForExit();
                Check.Equal(0, process.ExitCode, "ikdasm " + path);
                return output;
            }
        }
    }
}
