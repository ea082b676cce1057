using System;
using System.Collections.Generic;

namespace Podium
{
    /// <summary>
    /// Typed reads of a reply object's members, for the model types. A required member that is
    /// absent or of another JSON type is a <see cref="PodiumException"/> with
    /// <see cref="ErrorCodes.InvalidReply"/>: a reply the client does not understand is an error,
    /// never a silent zero.
    /// </summary>
    internal static class JsonFields
    {
        internal static PodiumException Invalid(string member, string expected)
        {
            return new PodiumException(
                ErrorCodes.InvalidReply, "the reply's member '" + member + "' is missing or not " + expected);
        }

        public static IReadOnlyDictionary<string, object> AsObject(object value, string what)
        {
            var members = value as IReadOnlyDictionary<string, object>;
            if (members == null) throw Invalid(what, "an object");
            return members;
        }

        public static string GetString(this IReadOnlyDictionary<string, object> o, string key)
        {
            object value;
            var text = o.TryGetValue(key, out value) ? value as string : null;
            if (text == null) throw Invalid(key, "a string");
            return text;
        }

        public static string GetStringOrNull(this IReadOnlyDictionary<string, object> o, string key)
        {
            object value;
            if (!o.TryGetValue(key, out value) || value == null) return null;
            var text = value as string;
            if (text == null) throw Invalid(key, "a string");
            return text;
        }

        public static long GetInt64(this IReadOnlyDictionary<string, object> o, string key)
        {
            var number = o.GetInt64OrNull(key);
            if (!number.HasValue) throw Invalid(key, "an integer");
            return number.Value;
        }

        public static long? GetInt64OrNull(this IReadOnlyDictionary<string, object> o, string key)
        {
            object value;
            if (!o.TryGetValue(key, out value) || value == null) return null;
            if (value is long) return (long)value;
            if (value is double)
            {
                // A whole number written with a fraction or an exponent (section 3 of PROTOCOL.md).
                var number = (double)value;
                if (Math.Floor(number) == number && Math.Abs(number) < 9.2e18) return (long)number;
            }
            throw Invalid(key, "an integer");
        }

        public static double GetDouble(this IReadOnlyDictionary<string, object> o, string key)
        {
            var number = o.GetDoubleOrNull(key);
            if (!number.HasValue) throw Invalid(key, "a number");
            return number.Value;
        }

        public static double? GetDoubleOrNull(this IReadOnlyDictionary<string, object> o, string key)
        {
            object value;
            if (!o.TryGetValue(key, out value) || value == null) return null;
            if (value is long) return (long)value;
            if (value is double) return (double)value;
            throw Invalid(key, "a number");
        }

        public static bool GetBoolean(this IReadOnlyDictionary<string, object> o, string key)
        {
            object value;
            if (!o.TryGetValue(key, out value) || !(value is bool)) throw Invalid(key, "a boolean");
            return (bool)value;
        }

        /// <summary>A boolean that the server leaves out when it is false (such as <c>duplicate</c>).</summary>
        public static bool GetFlag(this IReadOnlyDictionary<string, object> o, string key)
        {
            object value;
            if (!o.TryGetValue(key, out value) || value == null) return false;
            if (!(value is bool)) throw Invalid(key, "a boolean");
            return (bool)value;
        }

        public static IReadOnlyDictionary<string, object> GetObject(this IReadOnlyDictionary<string, object> o, string key)
        {
            var members = o.GetObjectOrNull(key);
            if (members == null) throw Invalid(key, "an object");
            return members;
        }

        public static IReadOnlyDictionary<string, object> GetObjectOrNull(
            this IReadOnlyDictionary<string, object> o, string key)
        {
            object value;
            if (!o.TryGetValue(key, out value) || value == null) return null;
            var members = value as IReadOnlyDictionary<string, object>;
            if (members == null) throw Invalid(key, "an object");
            return members;
        }

        public static IReadOnlyList<object> GetList(this IReadOnlyDictionary<string, object> o, string key)
        {
            object value;
            var items = o.TryGetValue(key, out value) ? value as IReadOnlyList<object> : null;
            if (items == null) throw Invalid(key, "an array");
            return items;
        }

        public static IReadOnlyList<string> GetStrings(this IReadOnlyDictionary<string, object> o, string key)
        {
            var strings = new List<string>();
            foreach (var item in o.GetList(key))
            {
                var text = item as string;
                if (text == null) throw Invalid(key, "an array of strings");
                strings.Add(text);
            }
            return strings;
        }

        public static IReadOnlyList<T> GetObjects<T>(
            this IReadOnlyDictionary<string, object> o, string key, Func<IReadOnlyDictionary<string, object>, T> make)
        {
            var result = new List<T>();
            foreach (var item in o.GetList(key)) result.Add(make(AsObject(item, key + "[]")));
            return result;
        }

        /// <summary>An empty object, for optional <c>details</c> and the like.</summary>
        public static readonly IReadOnlyDictionary<string, object> Empty =
            new Dictionary<string, object>(StringComparer.Ordinal);
    }
}
