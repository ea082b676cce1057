using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;

namespace Podium.Tests
{
    /// <summary>A failed expectation.</summary>
    internal sealed class CheckFailed : Exception
    {
        public CheckFailed(string message)
            : base(message)
        {
        }
    }

    /// <summary>Expectations; each failure says what was expected and what came.</summary>
    internal static class Check
    {
        public static void That(bool condition, string what)
        {
            if (!condition) throw new CheckFailed("expected: " + what);
        }

        public static void Equal<T>(T expected, T actual, string what)
        {
            if (!EqualityComparer<T>.Default.Equals(expected, actual))
                throw new CheckFailed(what + ": expected " + Show(expected) + ", got " + Show(actual));
        }

        public static void NotEqual<T>(T unexpected, T actual, string what)
        {
            if (EqualityComparer<T>.Default.Equals(unexpected, actual))
                throw new CheckFailed(what + ": expected anything but " + Show(unexpected));
        }

        public static T NotNull<T>(T value, string what) where T : class
        {
            if (value == null) throw new CheckFailed(what + ": expected a value, got null");
            return value;
        }

        public static void Sequence<T>(IEnumerable<T> expected, IEnumerable<T> actual, string what)
        {
            if (!expected.SequenceEqual(actual))
                throw new CheckFailed(what + ": expected [" + string.Join(", ", expected.Select(Show)) + "], got ["
                    + string.Join(", ", actual.Select(Show)) + "]");
        }

        /// <summary>Runs <paramref name="body"/>, which must throw a <see cref="PodiumException"/> with <paramref name="code"/>.</summary>
        public static async Task<PodiumException> FailsAsync(string code, Func<Task> body, string what)
        {
            try
            {
                await body();
            }
            catch (PodiumException error)
            {
                if (error.Code != code)
                    throw new CheckFailed(what + ": expected error " + code + ", got " + error);
                return error;
            }
            throw new CheckFailed(what + ": expected error " + code + ", but it succeeded");
        }

        public static TException Throws<TException>(Action body, string what) where TException : Exception
        {
            try
            {
                body();
            }
            catch (TException error)
            {
                return error;
            }
            catch (Exception other)
            {
                throw new CheckFailed(what + ": expected " + typeof(TException).Name + ", got " + other.GetType().Name + ": " + other.Message);
            }
            throw new CheckFailed(what + ": expected " + typeof(TException).Name + ", nothing was thrown");
        }

        private static string Show<T>(T value)
        {
            if (value == null) return "null";
            if (value is string) return "\"" + value + "\"";
            return value.ToString();
        }
    }
}
