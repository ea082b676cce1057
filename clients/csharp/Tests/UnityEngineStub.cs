using System;
using System.Collections.Generic;
using System.IO;
using System.Threading;

// The few UnityEngine types the documentation's samples use, with Unity's signatures, so that
// the samples compile and run here as they are: PlayerPrefs and Debug refuse other threads than
// the main one, as Unity's do (Unity throws "can only be called from the main thread").
namespace UnityEngine
{
    public class Object
    {
    }

    public class Component : Object
    {
    }

    public class Behaviour : Component
    {
        public bool enabled = true;
    }

    public class MonoBehaviour : Behaviour
    {
    }

    public class UnityException : Exception
    {
        public UnityException(string message)
            : base(message)
        {
        }
    }

    /// <summary>Unity's main thread here: a thread of the tests' <see cref="Podium.Tests.MainThreadContext"/>.</summary>
    public static class MainThread
    {
        public static void Require(string api)
        {
            if (!(SynchronizationContext.Current is Podium.Tests.MainThreadContext))
                throw new UnityException(api + " can only be called from the main thread.");
        }
    }

    public static class Debug
    {
        private static readonly List<string> Lines = new List<string>();

        public static void Log(object message)
        {
            Write("log", message);
        }

        public static void LogWarning(object message)
        {
            Write("warning", message);
        }

        public static void LogError(object message)
        {
            Write("error", message);
        }

        private static void Write(string level, object message)
        {
            lock (Lines) Lines.Add(level + ": " + message);
        }

        /// <summary>The test's view of the console.</summary>
        public static List<string> Console()
        {
            lock (Lines) return new List<string>(Lines);
        }
    }

    public static class PlayerPrefs
    {
        private static readonly Dictionary<string, string> Values = new Dictionary<string, string>();

        public static string GetString(string key, string defaultValue)
        {
            MainThread.Require("GetString");
            lock (Values) return Values.ContainsKey(key) ? Values[key] : defaultValue;
        }

        public static string GetString(string key)
        {
            return GetString(key, "");
        }

        public static void SetString(string key, string value)
        {
            MainThread.Require("SetString");
            lock (Values) Values[key] = value;
        }

        public static bool HasKey(string key)
        {
            MainThread.Require("HasKey");
            lock (Values) return Values.ContainsKey(key);
        }

        public static void DeleteKey(string key)
        {
            MainThread.Require("DeleteKey");
            lock (Values) Values.Remove(key);
        }

        public static void Save()
        {
            MainThread.Require("Save");
        }
    }

    public static class Application
    {
        private static readonly string Folder = Path.Combine(Path.GetTempPath(), "podium-unity-" + Guid.NewGuid().ToString("N"));

        public static string persistentDataPath
        {
            get
            {
                Directory.CreateDirectory(Folder);
                return Folder;
            }
        }

        /// <summary>The test runner's cleanup: removes the stand-in data folder.</summary>
        public static void RemoveData()
        {
            if (Directory.Exists(Folder)) Directory.Delete(Folder, true);
        }
    }
}
