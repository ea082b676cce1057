using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;

namespace Podium.Tests
{
    /// <summary>The client's own JSON reader and writer (Podium/Json.cs).</summary>
    internal static class JsonTests
    {
        public static void Register(List<TestCase> tests)
        {
            tests.Add(new TestCase { Name = "json: reads every kind of value", Body = () => Sync(ReadsValues) });
            tests.Add(new TestCase { Name = "json: reads integers exactly and other numbers as doubles", Body = () => Sync(ReadsNumbers) });
            tests.Add(new TestCase { Name = "json: reads string escapes and surrogate pairs", Body = () => Sync(ReadsStrings) });
            tests.Add(new TestCase { Name = "json: refuses text that is not strict JSON", Body = () => Sync(RefusesInvalid) });
            tests.Add(new TestCase { Name = "json: writes compact JSON with sorted keys and escapes", Body = () => Sync(Writes) });
            tests.Add(new TestCase { Name = "json: what it writes reads back the same", Body = () => Sync(RoundTrips) });
        }

        private static Task Sync(Action body)
        {
            body();
            return Task.FromResult(true);
        }

        private static IReadOnlyDictionary<string, object> Object(string text)
        {
            return (IReadOnlyDictionary<string, object>)Json.Parse(text);
        }

        private static void ReadsValues()
        {
            var o = Object(" {\"s\":\"x\", \"t\":true,\"f\":false,\"n\":null,\"a\":[1,[],{}],\"o\":{\"k\":-2}}\r\n\t");
            Check.Equal("x", o["s"], "a string");
            Check.Equal<object>(true, o["t"], "true");
            Check.Equal<object>(false, o["f"], "false");
            Check.That(o.ContainsKey("n") && o["n"] == null, "null is kept as a member with a null value");
            var a = (List<object>)o["a"];
            Check.Equal(3, a.Count, "array length");
            Check.Equal<object>(1L, a[0], "an integer is a long");
            Check.Equal(0, ((List<object>)a[1]).Count, "an empty array");
            Check.Equal(0, ((Dictionary<string, object>)a[2]).Count, "an empty object");
            Check.Equal<object>(-2L, ((IReadOnlyDictionary<string, object>)o["o"])["k"], "a nested member");
            Check.Equal<object>("top", Json.Parse("\"top\""), "a string at the top");
            Check.Equal<object>(7L, Json.Parse("7"), "a number at the top");
            Check.Equal<object>(2L, Object("{\"k\":1,\"k\":2}")["k"], "a repeated key keeps the last value");
            Check.That(Object("{\"Key\":1,\"key\":2}").Count == 2, "keys are case-sensitive");
        }

        private static void ReadsNumbers()
        {
            Check.Equal<object>(long.MaxValue, Json.Parse("9223372036854775807"), "Int64.MaxValue, exactly");
            Check.Equal<object>(long.MinValue, Json.Parse("-9223372036854775808"), "Int64.MinValue, exactly");
            Check.Equal<object>(9007199254740993L, Json.Parse("9007199254740993"), "2^53 + 1, not rounded through a double");
            Check.Equal<object>(9223372036854775808.0, Json.Parse("9223372036854775808"), "beyond Int64: a double");
            Check.Equal<object>(0L, Json.Parse("0"), "zero");
            Check.Equal<object>(0L, Json.Parse("-0"), "minus zero is the integer 0");
            Check.Equal<object>(1.5, Json.Parse("1.5"), "a fraction");
            Check.Equal<object>(100.0, Json.Parse("1e2"), "an exponent makes a double");
            Check.Equal<object>(5.0, Json.Parse("5.0"), "a fraction makes a double");
            Check.Equal<object>(-0.00125, Json.Parse("-1.25E-3"), "a negative exponent");
            Check.Equal<object>(0.0, Json.Parse("1e-400"), "underflow is zero");
        }

        private static void ReadsStrings()
        {
            Check.Equal<object>("\"\\/\b\f\n\r\t", Json.Parse("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\""), "the named escapes");
            Check.Equal<object>("é€", Json.Parse("\"\\u00e9\\u20AC\""), "\\u escapes, either case");
            Check.Equal<object>("\U0001F3C6", Json.Parse("\"\\ud83c\\udfc6\""), "an escaped surrogate pair");
            Check.Equal<object>("Ωmega 🏆", Json.Parse("\"Ωmega 🏆\""), "characters as they are");
            Check.Equal<object>("", Json.Parse("\"\""), "the empty string");
        }

        private static void RefusesInvalid()
        {
            var bad = new[]
            {
                "", " ", "[1,]", "{\"a\":1,}", "[01]", "-", "1.", ".5", "1e", "+1", "0x10", "NaN", "Infinity", "1e400",
                "-1e400", "\"a\u0001b\"", "\"\\ud83c\"", "\"\\udfc6\"", "\"\\ud83cx\"", "\"\\x\"", "\"\\u12\"", "\"abc",
                "'a'", "[1 2]", "{\"a\" 1}", "{a:1}", "{\"a\":1}}", "[1] [2]", "tru", "nul", "[", "{", "{\"a\":}",
                "[1,,2]", "\u00a0[]", new string('[', 513) + new string(']', 513),
            };
            foreach (var text in bad)
            {
                var error = Check.Throws<FormatException>(() => Json.Parse(text), "refusing " + Show(text));
                Check.That(error.Message.StartsWith("invalid JSON at offset "), "the error says where: " + error.Message);
            }
            var deep = new string('[', 512) + new string(']', 512);
            Check.That(Json.Parse(deep) is List<object>, "512 levels are read");
        }

        private static string Show(string text)
        {
            return text.Length > 20 ? text.Substring(0, 20) + "…" : text;
        }

        private static void Writes()
        {
            var value = new Dictionary<string, object>
            {
                { "b", new object[] { 1, 2L, -3.5, 1e21, 0.1f, 7m, true, null } },
                { "a", "q\"\\\n\r\t\b\f\u0001\u001f/é🏆" },
                { "c", new Dictionary<string, string> { { "z", "1" }, { "y", "2" } } },
                { "d", new List<string>() },
            };
            Check.Equal(
                "{\"a\":\"q\\\"\\\\\\n\\r\\t\\b\\f\\u0001\\u001f/é🏆\",\"b\":[1,2,-3.5,1E+21,0.1,7,true,null],\"c\":{\"y\":\"2\",\"z\":\"1\"},\"d\":[]}",
                Json.Write(value), "the written text");
            Check.Equal("9223372036854775807", Json.Write(long.MaxValue), "a long, exactly");
            Check.Equal("18446744073709551615", Json.Write(ulong.MaxValue), "an unsigned long");
            Check.Throws<ArgumentException>(() => Json.Write(double.NaN), "NaN is not JSON");
            Check.Throws<ArgumentException>(() => Json.Write(double.PositiveInfinity), "infinity is not JSON");
            Check.Throws<ArgumentException>(() => Json.Write("\ud83c"), "half a surrogate pair is not UTF-8");
            Check.Throws<ArgumentException>(() => Json.Write(new object()), "an object of no JSON kind");
            Check.Throws<ArgumentException>(() => Json.Write(DayOfWeek.Monday), "an enum is not written as a number");
        }

        private static void RoundTrips()
        {
            var original = new Dictionary<string, object>
            {
                { "text", "line\nbreak \u2028 \"quoted\" 🏆" },
                { "numbers", new List<object> { long.MinValue, 0L, 123456789012345L, 0.5, -1e-7, 1.7976931348623157e308 } },
                { "nested", new Dictionary<string, object> { { "flag", false }, { "none", null }, { "list", new List<object>() } } },
            };
            var text = Json.Write(original);
            var back = (IReadOnlyDictionary<string, object>)Json.Parse(text);
            Check.Equal(text, Json.Write(back), "written again, the same text");
            Check.Equal(original["text"], back["text"], "the string");
            Check.Sequence((List<object>)original["numbers"], (List<object>)back["numbers"], "the numbers, exactly");
        }
    }
}
