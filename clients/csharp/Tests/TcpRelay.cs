using System;
using System.Collections.Generic;
using System.IO;
using System.Net;
using System.Net.Sockets;
using System.Threading;
using System.Threading.Tasks;

namespace Podium.Tests
{
    /// <summary>
    /// A TCP relay on 127.0.0.1 in front of the gateway, to break the client's connections on
    /// purpose: <see cref="CutAll"/> drops every relayed connection at once (no WebSocket close
    /// frame, as when a network goes away), and while <see cref="Refusing"/> new connections are
    /// closed as soon as they come.
    /// </summary>
    internal sealed class TcpRelay : IDisposable
    {
        private readonly TcpListener listener = new TcpListener(IPAddress.Loopback, 0);
        private readonly string host;
        private readonly int port;
        private readonly List<TcpClient> open = new List<TcpClient>();
        private int refused;

        public TcpRelay(Uri target)
        {
            host = target.Host;
            port = target.Port;
            listener.Start();
            Port = ((IPEndPoint)listener.LocalEndpoint).Port;
            Task.Run(AcceptAsync);
        }

        public int Port { get; private set; }

        /// <summary>While true, connections are closed as soon as they are accepted.</summary>
        public volatile bool Refusing;

        /// <summary>Connections refused so far.</summary>
        public int Refused
        {
            get { return Volatile.Read(ref refused); }
        }

        private async Task AcceptAsync()
        {
            while (true)
            {
                TcpClient client;
                try
                {
                    client = await listener.AcceptTcpClientAsync();
                }
                catch (Exception)
                {
                    return; // stopped
                }
                if (Refusing)
                {
                    Interlocked.Increment(ref refused);
                    client.Close();
                    continue;
                }
                var server = new TcpClient();
                try
                {
                    await server.ConnectAsync(host, port);
                }
                catch (Exception)
                {
                    client.Close();
                    continue;
                }
                lock (open)
                {
                    open.Add(client);
                    open.Add(server);
                }
                Pump(client.GetStream(), server.GetStream());
                Pump(server.GetStream(), client.GetStream());
            }
        }

        private static async void Pump(Stream from, Stream to)
        {
            var buffer = new byte[16384];
            try
            {
                int read;
                while ((read = await from.ReadAsync(buffer, 0, buffer.Length)) > 0) await to.WriteAsync(buffer, 0, read);
            }
            catch (Exception)
            {
                // One side was cut.
            }
        }

        /// <summary>Resets every relayed connection.</summary>
        public void CutAll()
        {
            lock (open)
            {
                foreach (var connection in open)
                {
                    try
                    {
                        connection.Client.LingerState = new LingerOption(true, 0);
                        connection.Close();
                    }
                    catch (Exception)
                    {
                        // Closed already.
                    }
                }
                open.Clear();
            }
        }

        public void Dispose()
        {
            listener.Stop();
            CutAll();
        }
    }
}
