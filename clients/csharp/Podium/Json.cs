using System;
using System.Collections;
using System.Collections.Generic;
using System.Globalization;
using System.Text;

namespace Podium
{
    /// <summary>
    /// The client's own JSON reader and writer (RFC 8259), because .NET Standard 2.1 has no
    /// System.Text.Json and the client takes no third-party package.
    /// </summary>
    /// <remarks>
    /// Values are plain objects, as Unity's JSON helpers have them: an object is a
    /// <c>Dictionary&lt;string, object&gt;</c> (ordinal keys; a repeated key keeps the last value),
    /// an array a <c>List&lt;object&gt;</c>, a string a <c>string</c>, <c>true</c>/<c>false</c> a
    /// <c>bool</c>, <c>null</c> a null reference, and a number a <c>long</c> when it is written
    /// without a fraction or an exponent and fits 64 bits (read exactly, never through a double,
    /// as the server does: docs/PROTOCOL.md section 3), otherwise a <c>double</c>.
    /// The reader is strict: trailing commas, leading zeros, raw control characters in strings,
    /// unpaired surrogate escapes, numbers too large for a double and text after the value are
    /// refused with a <see cref="FormatException"/> that says where.
    /// </remarks>
    internal static class Json
    {
        /// <summary>Arrays and objects nested deeper than this are refused (the server's parser has the same limit).</summary>
        public const int MaxDepth = 512;

        /// <summary>Reads one JSON value that must fill the whole text (white space around it aside).</summary>
        public static object Parse(string text)
        {
            if (text == null) throw new ArgumentNullException("text");
            var reader = new Reader(text);
            reader.SkipWhiteSpace();
            var value = reader.ReadValue(0);
            reader.SkipWhiteSpace();
            if (!reader.AtEnd) throw reader.Error("text after the JSON value");
            return value;
        }

        /// <summary>Writes a value as compact JSON, object keys sorted by ordinal.</summary>
        public static string Write(object value)
        {
            var builder = new StringBuilder();
            Write(builder, value, 0);
            return builder.ToString();
        }

        private static void Write(StringBuilder output, object value, int depth)
        {
            if (depth > MaxDepth) throw new ArgumentException("JSON nested deeper than " + MaxDepth + " levels");
            if (value == null)
            {
                output.Append("null");
                return;
            }
            var text = value as string;
            if (text != null)
            {
                WriteString(output, text);
                return;
            }
            if (value is bool)
            {
                output.Append((bool)value ? "true" : "false");
                return;
            }
            if (value is long || value is int || value is short || value is sbyte || value is byte || value is ushort
                || value is uint || value is ulong)
            {
                output.Append(Convert.ToString(value, CultureInfo.InvariantCulture));
                return;
            }
            if (value is double || value is float)
            {
                var number = Convert.ToDouble(value, CultureInfo.InvariantCulture);
                if (double.IsNaN(number) || double.IsInfinity(number))
                    throw new ArgumentException("JSON has no NaN or infinity");
                // A float is written with its own shortest digits (0.1f as 0.1, not 0.100000001490116).
                output.Append(value is float
                    ? ((float)value).ToString("R", CultureInfo.InvariantCulture)
                    : number.ToString("R", CultureInfo.InvariantCulture));
                return;
            }
            if (value is decimal)
            {
                output.Append(((decimal)value).ToString(CultureInfo.InvariantCulture));
                return;
            }
            var members = Members(value);
            if (members != null)
            {
                members.Sort((a, b) => string.CompareOrdinal(a.Key, b.Key));
                output.Append('{');
                for (var i = 0; i < members.Count; i++)
                {
                    if (i > 0) output.Append(',');
                    WriteString(output, members[i].Key);
                    output.Append(':');
                    Write(output, members[i].Value, depth + 1);
                }
                output.Append('}');
                return;
            }
            var items = value as IEnumerable;
            if (items != null)
            {
                output.Append('[');
                var first = true;
                foreach (var item in items)
                {
                    if (!first) output.Append(',');
                    first = false;
                    Write(output, item, depth + 1);
                }
                output.Append(']');
                return;
            }
            throw new ArgumentException("cannot write a " + value.GetType().Name + " as JSON");
        }

        /// <summary>The members of a dictionary with string keys, or null for anything else.</summary>
        private static List<KeyValuePair<string, object>> Members(object value)
        {
            var generic = value as IEnumerable<KeyValuePair<string, object>>;
            if (generic != null) return new List<KeyValuePair<string, object>>(generic);
            var plain = value as IDictionary;
            if (plain == null) return null;
            var members = new List<KeyValuePair<string, object>>();
            foreach (DictionaryEntry entry in plain)
            {
                var key = entry.Key as string;
                if (key == null) throw new ArgumentException("JSON object keys are strings");
                members.Add(new KeyValuePair<string, object>(key, entry.Value));
            }
            return members;
        }

        private static void WriteString(StringBuilder output, string text)
        {
            output.Append('"');
            for (var i = 0; i < text.Length; i++)
            {
                var c = text[i];
                switch (c)
                {
                    case '"': output.Append("\\\""); break;
                    case '\\': output.Append("\\\\"); break;
                    case '\b': output.Append("\\b"); break;
                    case '\f': output.Append("\\f"); break;
                    case '\n': output.Append("\\n"); break;
                    case '\r': output.Append("\\r"); break;
                    case '\t': output.Append("\\t"); break;
                    default:
                        if (c < 0x20)
                        {
                            output.Append("\\u").Append(((int)c).ToString("x4", CultureInfo.InvariantCulture));
                        }
                        else if (char.IsHighSurrogate(c) && i + 1 < text.Length && char.IsLowSurrogate(text[i + 1]))
                        {
                            output.Append(c).Append(text[i + 1]);
                            i++;
                        }
                        else if (char.IsSurrogate(c))
                        {
                            // UTF-8 cannot carry half a pair, and the server refuses its escape.
                            throw new ArgumentException("a string has an unpaired surrogate at index " + i);
                        }
                        else
                        {
                            output.Append(c);
                        }
                        break;
                }
            }
            output.Append('"');
        }

        private sealed class Reader
        {
            private readonly string text;
            private int position;

            public Reader(string text)
            {
                this.text = text;
            }

            public bool AtEnd
            {
                get { return position >= text.Length; }
            }

            public FormatException Error(string problem)
            {
                return new FormatException("invalid JSON at offset " + position + ": " + problem);
            }

            public void SkipWhiteSpace()
            {
                while (position < text.Length)
                {
                    var c = text[position];
                    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return;
                    position++;
                }
            }

            public object ReadValue(int depth)
            {
                if (AtEnd) throw Error("a value was expected, the text ended");
                var c = text[position];
                switch (c)
                {
                    case '{': return ReadObject(depth + 1);
                    case '[': return ReadArray(depth + 1);
                    case '"': return ReadString();
                    case 't': return ReadLiteral("true", true);
                    case 'f': return ReadLiteral("false", false);
                    case 'n': return ReadLiteral("null", null);
                    default:
                        if (c == '-' || (c >= '0' && c <= '9')) return ReadNumber();
                        throw Error("unexpected character '" + c + "'");
                }
            }

            private object ReadLiteral(string word, object value)
            {
                if (string.CompareOrdinal(text, position, word, 0, word.Length) != 0) throw Error("unknown literal");
                position += word.Length;
                return value;
            }

            private Dictionary<string, object> ReadObject(int depth)
            {
                if (depth > MaxDepth) throw Error("nested deeper than " + MaxDepth + " levels");
                position++;
                var members = new Dictionary<string, object>(StringComparer.Ordinal);
                SkipWhiteSpace();
                if (!AtEnd && text[position] == '}')
                {
                    position++;
                    return members;
                }
                while (true)
                {
                    SkipWhiteSpace();
                    if (AtEnd || text[position] != '"') throw Error("a member name (a string) was expected");
                    var key = ReadString();
                    SkipWhiteSpace();
                    Expect(':');
                    SkipWhiteSpace();
                    members[key] = ReadValue(depth);
                    SkipWhiteSpace();
                    if (AtEnd) throw Error("the object is not closed");
                    var c = text[position++];
                    if (c == '}') return members;
                    if (c != ',') throw Error("',' or '}' was expected");
                }
            }

            private List<object> ReadArray(int depth)
            {
                if (depth > MaxDepth) throw Error("nested deeper than " + MaxDepth + " levels");
                position++;
                var items = new List<object>();
                SkipWhiteSpace();
                if (!AtEnd && text[position] == ']')
                {
                    position++;
                    return items;
                }
                while (true)
                {
                    SkipWhiteSpace();
                    items.Add(ReadValue(depth));
                    SkipWhiteSpace();
                    if (AtEnd) throw Error("the array is not closed");
                    var c = text[position++];
                    if (c == ']') return items;
                    if (c != ',') throw Error("',' or ']' was expected");
                }
            }

            private void Expect(char wanted)
            {
                if (AtEnd || text[position] != wanted) throw Error("'" + wanted + "' was expected");
                position++;
            }

            private string ReadString()
            {
                position++; // the opening quote
                var output = new StringBuilder();
                while (true)
                {
                    if (AtEnd) throw Error("the string is not closed");
                    var c = text[position++];
                    if (c == '"') return output.ToString();
                    if (c < 0x20) throw Error("a control character in a string must be escaped");
                    if (c != '\\')
                    {
                        output.Append(c);
                        continue;
                    }
                    if (AtEnd) throw Error("the escape is not finished");
                    var escape = text[position++];
                    switch (escape)
                    {
                        case '"': output.Append('"'); break;
                        case '\\': output.Append('\\'); break;
                        case '/': output.Append('/'); break;
                        case 'b': output.Append('\b'); break;
                        case 'f': output.Append('\f'); break;
                        case 'n': output.Append('\n'); break;
                        case 'r': output.Append('\r'); break;
                        case 't': output.Append('\t'); break;
                        case 'u':
                            var unit = ReadHex4();
                            if (char.IsHighSurrogate(unit))
                            {
                                if (position + 1 >= text.Length || text[position] != '\\' || text[position + 1] != 'u')
                                    throw Error("an unpaired surrogate escape");
                                position += 2;
                                var low = ReadHex4();
                                if (!char.IsLowSurrogate(low)) throw Error("an unpaired surrogate escape");
                                output.Append(unit).Append(low);
                            }
                            else if (char.IsLowSurrogate(unit))
                            {
                                throw Error("an unpaired surrogate escape");
                            }
                            else
                            {
                                output.Append(unit);
                            }
                            break;
                        default:
                            throw Error("unknown escape '\\" + escape + "'");
                    }
                }
            }

            private char ReadHex4()
            {
                if (position + 4 > text.Length) throw Error("\\u needs four hex digits");
                var value = 0;
                for (var i = 0; i < 4; i++)
                {
                    var c = text[position++];
                    int digit;
                    if (c >= '0' && c <= '9') digit = c - '0';
                    else if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
                    else if (c >= 'A' && c <= 'F') digit = c - 'A' + 10;
                    else throw Error("\\u needs four hex digits");
                    value = value * 16 + digit;
                }
                return (char)value;
            }

            private object ReadNumber()
            {
                var start = position;
                if (text[position] == '-') position++;
                if (AtEnd) throw Error("a digit was expected");
                if (text[position] == '0')
                {
                    position++;
                    if (!AtEnd && IsDigit(text[position])) throw Error("a number may not start with 0");
                }
                else if (IsDigit(text[position]))
                {
                    while (!AtEnd && IsDigit(text[position])) position++;
                }
                else
                {
                    throw Error("a digit was expected");
                }
                var integral = true;
                if (!AtEnd && text[position] == '.')
                {
                    integral = false;
                    position++;
                    if (AtEnd || !IsDigit(text[position])) throw Error("a digit was expected after '.'");
                    while (!AtEnd && IsDigit(text[position])) position++;
                }
                if (!AtEnd && (text[position] == 'e' || text[position] == 'E'))
                {
                    integral = false;
                    position++;
                    if (!AtEnd && (text[position] == '+' || text[position] == '-')) position++;
                    if (AtEnd || !IsDigit(text[position])) throw Error("a digit was expected in the exponent");
                    while (!AtEnd && IsDigit(text[position])) position++;
                }
                var literal = text.Substring(start, position - start);
                long whole;
                if (integral && long.TryParse(literal, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out whole))
                    return whole;
                double number;
                if (!double.TryParse(literal, NumberStyles.Float, CultureInfo.InvariantCulture, out number)
                    || double.IsInfinity(number))
                {
                    position = start;
                    throw Error("the number " + literal + " is too large");
                }
                return number;
            }

            private static bool IsDigit(char c)
            {
                return c >= '0' && c <= '9';
            }
        }
    }
}
