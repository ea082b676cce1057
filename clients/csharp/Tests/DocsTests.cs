using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using System.Threading.Tasks;

namespace Podium.Tests
{
    /// <summary>
    /// The C# samples of docs/clients/unity.md are the code the tests run: each fenced
    /// <c>csharp</c> block follows a <c>&lt;!-- snippet: NAME --&gt;</c> line and must be
    /// byte-identical to the lines between <c>// docs:begin NAME</c> and <c>// docs:end NAME</c>
    /// in clients/csharp/Tests (less the marker's indentation), and every marked snippet is in the page.
    /// </summary>
    internal static class DocsTests
    {
        public static void Register(List<TestCase> tests)
        {
            tests.Add(new TestCase { Name = "docs: every C# sample in docs/clients/unity.md is a snippet the tests run", Body = Samples });
        }

        /// <summary>clients/csharp, from PODIUM_CSHARP_DIR (test.sh sets it).</summary>
        private static string ClientDirectory()
        {
            var dir = Environment.GetEnvironmentVariable("PODIUM_CSHARP_DIR");
            Check.That(!string.IsNullOrEmpty(dir) && Directory.Exists(dir), "PODIUM_CSHARP_DIR names clients/csharp (run test.sh)");
            return dir;
        }

        public static Dictionary<string, string> Snippets(string testsDirectory)
        {
            var snippets = new Dictionary<string, string>();
            foreach (var file in Directory.GetFiles(testsDirectory, "*.cs").OrderBy(f => f, StringComparer.Ordinal))
            {
                var lines = File.ReadAllText(file, Encoding.UTF8).Replace("\r\n", "\n").Split('\n');
                for (var i = 0; i < lines.Length; i++)
                {
                    var begin = lines[i].Trim();
                    if (!begin.StartsWith("// docs:begin ")) continue;
                    var name = begin.Substring("// docs:begin ".Length).Trim();
                    var indent = lines[i].Substring(0, lines[i].Length - lines[i].TrimStart().Length);
                    var body = new StringBuilder();
                    var j = i + 1;
                    for (; j < lines.Length && lines[j].Trim() != "// docs:end " + name; j++)
                    {
                        var line = lines[j];
                        if (line.Trim().Length == 0) line = "";
                        else if (line.StartsWith(indent)) line = line.Substring(indent.Length);
                        else throw new CheckFailed(Path.GetFileName(file) + ":" + (j + 1) + ": snippet " + name + " is indented less than its marker");
                        body.Append(line).Append('\n');
                    }
                    Check.That(j < lines.Length, "snippet " + name + " in " + Path.GetFileName(file) + " has its '// docs:end " + name + "'");
                    Check.That(!snippets.ContainsKey(name), "snippet " + name + " is marked once");
                    snippets[name] = body.ToString();
                    i = j;
                }
            }
            return snippets;
        }

        private static Task Samples()
        {
            var dir = ClientDirectory();
            var snippets = Snippets(Path.Combine(dir, "Tests"));
            Check.That(snippets.Count >= 8, "the tests mark their samples (" + snippets.Count + ")");
            var page = Path.Combine(dir, "..", "..", "docs", "clients", "unity.md");
            Check.That(File.Exists(page), page + " exists");
            var lines = File.ReadAllText(page, Encoding.UTF8).Split('\n');
            var shown = new List<string>();
            string pending = null;
            for (var i = 0; i < lines.Length; i++)
            {
                var line = lines[i];
                if (line.StartsWith("<!-- snippet: "))
                {
                    pending = line.Substring("<!-- snippet: ".Length).Replace("-->", "").Trim();
                    continue;
                }
                if (!line.StartsWith("```")) continue;
                var language = line.Substring(3).Trim();
                var body = new StringBuilder();
                var j = i + 1;
                for (; j < lines.Length && lines[j] != "```"; j++) body.Append(lines[j]).Append('\n');
                Check.That(j < lines.Length, "the fence at line " + (i + 1) + " of unity.md is closed");
                if (language == "csharp" || language == "cs" || language == "c#")
                {
                    Check.That(pending != null, "the C# sample at line " + (i + 1) + " of unity.md follows a <!-- snippet: NAME --> line");
                    Check.That(snippets.ContainsKey(pending), "snippet " + pending + " (unity.md line " + i + ") is marked in the tests");
                    if (snippets[pending] != body.ToString())
                        throw new CheckFailed("the sample " + pending + " at line " + (i + 1) + " of unity.md differs from the tests' snippet:\n"
                            + FirstDifference(snippets[pending], body.ToString()));
                    shown.Add(pending);
                }
                pending = null;
                i = j;
            }
            var unshown = snippets.Keys.Except(shown).ToList();
            Check.That(unshown.Count == 0, "every snippet is shown in unity.md; not shown: " + string.Join(", ", unshown));
            return Task.FromResult(true);
        }

        private static string FirstDifference(string expected, string actual)
        {
            var a = expected.Split('\n');
            var b = actual.Split('\n');
            for (var i = 0; i < Math.Max(a.Length, b.Length); i++)
            {
                var x = i < a.Length ? a[i] : "(end)";
                var y = i < b.Length ? b[i] : "(end)";
                if (x != y) return "line " + (i + 1) + " of the sample:\n  tests: " + x + "\n  docs:  " + y;
            }
            return "(same lines)";
        }
    }
}
