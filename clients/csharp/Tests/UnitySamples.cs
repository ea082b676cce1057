// docs:begin monobehaviour
using System;
using Podium;
using UnityEngine;

public class PodiumManager : MonoBehaviour
{
    public string serverUrl = "https://podium.example.com";

    public PodiumClient Client { get; private set; }

    void Awake()
    {
        // Made on the main thread: its events and its session store run here too.
        Client = new PodiumClient(new PodiumOptions
        {
            BaseUrl = serverUrl,
            SessionStore = new FileSessionStore(Application.persistentDataPath + "/podium-session.json"),
        });
        Client.NotificationReceived += OnNotification;
    }

    async void Start()
    {
        try
        {
            if (!Client.IsLoggedIn)
                await Client.LoginWithDeviceAsync(DeviceId());
            await Client.ConnectAsync(new[] { "dash" });
            Debug.Log("Podium: playing as " + Client.PlayerId);
        }
        catch (PodiumException error)
        {
            Debug.LogError("Podium: " + error.Code + ": " + error.Message);
        }
    }

    void OnNotification(PodiumNotification notification)
    {
        // The main thread: the UI may be touched here.
        Debug.Log("Podium: " + notification.Kind + ": " + notification.Message);
    }

    static string DeviceId()
    {
        var id = PlayerPrefs.GetString("podium.deviceId", "");
        if (id == "")
        {
            id = PodiumClient.NewRequestId();
            PlayerPrefs.SetString("podium.deviceId", id);
            PlayerPrefs.Save();
        }
        return id;
    }

    void OnDestroy()
    {
        if (Client != null) Client.Dispose();
    }
}
// docs:end monobehaviour

// docs:begin player-prefs-store
public sealed class PlayerPrefsSessionStore : ISessionStore
{
    const string Key = "podium.session";

    public SessionGrant Load()
    {
        var json = PlayerPrefs.GetString(Key, "");
        if (json == "") return null;
        try
        {
            return SessionGrant.FromJson(json);
        }
        catch (Exception)
        {
            return null;
        }
    }

    public void Save(SessionGrant session)
    {
        PlayerPrefs.SetString(Key, session.ToJson());
        PlayerPrefs.Save();
    }

    public void Clear()
    {
        PlayerPrefs.DeleteKey(Key);
        PlayerPrefs.Save();
    }
}
// docs:end player-prefs-store
