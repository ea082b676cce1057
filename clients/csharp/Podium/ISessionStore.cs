namespace Podium
{
    /// <summary>
    /// Where the client keeps the session between launches. The client calls it on the
    /// synchronization context it was made on (Unity's main thread), so an implementation may use
    /// PlayerPrefs: <c>PlayerPrefs.SetString(key, session.ToJson())</c>. See docs/clients/unity.md.
    /// </summary>
    public interface ISessionStore
    {
        /// <summary>The kept session, or null when there is none (or it cannot be read).</summary>
        SessionGrant Load();

        /// <summary>Keeps a new session; called after every login and refresh.</summary>
        void Save(SessionGrant session);

        /// <summary>Forgets the session; called on logout and when the account is gone.</summary>
        void Clear();
    }
}
