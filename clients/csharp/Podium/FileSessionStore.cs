using System;
using System.IO;
using System.Text;

namespace Podium
{
    /// <summary>
    /// Keeps the session as JSON in one file (in Unity, under <c>Application.persistentDataPath</c>).
    /// Each save writes a new file and moves it over the old one, so a crash never leaves half a
    /// session. The file holds the refresh token: keep it where other apps cannot read it.
    /// </summary>
    public sealed class FileSessionStore : ISessionStore
    {
        private readonly object gate = new object();

        /// <summary>A store in <paramref name="path"/>; its folder is created when needed.</summary>
        public FileSessionStore(string path)
        {
            if (string.IsNullOrEmpty(path)) throw new ArgumentException("a file path is needed", "path");
            Path = path;
        }

        /// <summary>The file.</summary>
        public string Path { get; private set; }

        /// <inheritdoc />
        public SessionGrant Load()
        {
            lock (gate)
            {
                try
                {
                    return File.Exists(Path) ? SessionGrant.FromJson(File.ReadAllText(Path, Encoding.UTF8)) : null;
                }
                catch (Exception error) when (error is IOException || error is FormatException || error is PodiumException
                    || error is UnauthorizedAccessException)
                {
                    // An unreadable session is no session: the player logs in again.
                    return null;
                }
            }
        }

        /// <inheritdoc />
        public void Save(SessionGrant session)
        {
            if (session == null)
            {
                Clear();
                return;
            }
            lock (gate)
            {
                var folder = System.IO.Path.GetDirectoryName(System.IO.Path.GetFullPath(Path));
                if (!string.IsNullOrEmpty(folder)) Directory.CreateDirectory(folder);
                var temporary = Path + ".tmp";
                File.WriteAllText(temporary, session.ToJson(), new UTF8Encoding(false));
                if (File.Exists(Path)) File.Replace(temporary, Path, null);
                else File.Move(temporary, Path);
            }
        }

        /// <inheritdoc />
        public void Clear()
        {
            lock (gate)
            {
                if (File.Exists(Path)) File.Delete(Path);
            }
        }
    }
}
