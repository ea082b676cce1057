using System.Reflection;
using System.Runtime.CompilerServices;

[assembly: AssemblyTitle("Podium")]
[assembly: AssemblyDescription("Podium's client for games: HTTP and WebSocket, no dependencies (docs/clients/unity.md)")]
[assembly: AssemblyVersion("1.0.0.0")]

// The tests (clients/csharp/Tests) check the JSON codec and the pure rules without a server.
[assembly: InternalsVisibleTo("PodiumTests")]
