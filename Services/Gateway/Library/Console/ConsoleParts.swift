import PodiumRuntime

/// What the operators' console (``GatewayConsole``) uses of the gateway, handed to it by the
/// composition root (``Gateway/consoleParts``): the request pipeline every page and form goes
/// through (and its counts, health and credentials), the console's own sessions, the event log
/// the event page reads, the clock and the settings. The console reaches nothing else.
struct ConsoleParts: Sendable {
    /// Every console request goes through it with the admin key, as an operator's own would.
    let pipeline: GatewayPipeline
    /// The console's logged-in sessions, in memory (a restart logs every operator out).
    let sessions: Locked<ConsoleSessions>
    /// Failed console logins, for slowing a guesser of the admin key.
    let loginThrottle: Locked<ConsoleLoginThrottle>
    /// Read by the overview (head, size) and the event page.
    let eventLog: EventLog
    let clock: any PodiumClock
    let settings: GatewaySettings
}
