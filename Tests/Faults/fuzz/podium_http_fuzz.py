"""Hostile input against the gateway's HTTP front and WebSocket: no crash, bounded memory, every
well-formed HTTP request answered without a 5xx and with a problem for every error, nothing
changed in any database, and the gateway answering other clients throughout.

Run by scripts/fuzz after the ZeroMQ fuzzer, on the same stack. Phases:

1. raw bytes on the HTTP port: garbage, broken request lines, header floods, huge heads, lying
   Content-Length, broken chunked bodies, invalid UTF-8 in the path;
2. well-formed HTTP with hostile content on every route: random methods and paths, random and
   forged credentials (never a valid one, so nothing may change), bodies that are not JSON, not
   objects, nested too deep, too large, invalid UTF-8, of random JSON;
3. slow clients: connections that send their head a byte at a time and never finish, while other
   clients are served;
4. WebSocket: garbage text, binary frames, oversized and fragmented messages, floods, a client
   that never reads, sockets dropped mid-message;
5. the head limits (PROTOCOL.md 20.2) with raw sockets: a head over 16 KiB and one with more than
   100 fields are answered 431 and closed, a head sent halfway is answered 408 and closed within
   its 10 s (timed beside phase 2), a path with a trailing slash is a 404;
6. last, with --shutdown: hostile connections open (a head sent halfway, a body sent halfway, a
   connection that sends nothing, a WebSocket), the gateway gets SIGTERM and must exit within
   DEPLOYMENT.md's 10 s.

Usage: podium_http_fuzz.py --http URL --data DIR --pid gateway=PID [--pid …] [--requests N]
       [--seed S] [--rss-limit-mb MB] [--shutdown]
"""

import argparse
import ast
import asyncio
import json
import os
import random
import signal
import socket
import sys
import threading
import time
from urllib.parse import urlparse

import httpx
import websockets

sys.path.insert(0, os.path.dirname(__file__))
from podium_fuzz import database_snapshot, diff_databases, proc_status  # noqa: E402

GAMES = ["dash", "whackacac", "blackjack", "nope", "g"]
BOARD = "com.example.dash.highscore"
# Routes that change nothing without a valid credential. The public ones that would create an
# account from a well-formed body (register, device login) get only unreadable bodies.
PATHS = [
    "/v1/health", "/v1/gateway/health", "/v1/me", "/v1/me/display-name", "/v1/me/link", "/v1/friends",
    "/v1/sessions", "/v1/sessions/refresh", "/v1/sessions/current",
    "/v1/games/{g}/events", "/v1/games/{g}/leaderboards", "/v1/games/{g}/leaderboard-sets",
    "/v1/games/{g}/leaderboards/{b}/scores", "/v1/games/{g}/leaderboards/{b}/top", "/v1/games/{g}/leaderboards/{b}/around",
    "/v1/games/{g}/leaderboards/{b}/entry", "/v1/games/{g}/leaderboards/{b}/history",
    "/v1/games/{g}/achievements", "/v1/games/{g}/achievements/reports", "/v1/games/{g}/achievements/reset",
    "/v1/games/{g}/challenges", "/v1/games/{g}/challenges/timed", "/v1/games/{g}/challenges/received",
    "/v1/games/{g}/challenges/issued", "/v1/games/{g}/challenges/candidates", "/v1/games/{g}/challenges/inbox",
    "/v1/games/{g}/challenges/inbox/read", "/v1/games/{g}/challenges/{x}", "/v1/games/{g}/challenges/{x}/decline",
    "/v1/games/{g}/notifications/subscription", "/v1/games/{g}/receipts/{x}", "/v1/friends/{x}/request",
    "/v1/call/{t}", "/v1/call/leaderboard.submit", "/v1/call/event.publish", "/v1/call/auth.friends.request",
    "/v1/nope", "/", "/v1", "/v1/games", "/v1/games/{g}",
]
CREATE_ON_WELL_FORMED = ["/v1/accounts", "/v1/sessions/device", "/v1/call/auth.register", "/v1/call/auth.device-login"]
METHODS = ["GET", "POST", "DELETE", "PUT", "PATCH", "OPTIONS", "HEAD"]
MEMBERS = ["value", "name", "boardId", "receivers", "kind", "message", "payload", "gameId", "playerId", "token", "id",
           "type", "reports", "confirm", "refreshToken", "username", "password", "attributes", "ids", "state", "limit"]


def log(*args):
    print("http-fuzz:", *args, flush=True)


class Verdict:
    def __init__(self):
        self.failures = []
        self.counts = {}

    def count(self, key):
        self.counts[key] = self.counts.get(key, 0) + 1

    def fail(self, message):
        if len(self.failures) < 50:
            self.failures.append(message)


def random_json(rng, depth=0):
    kind = rng.randrange(9 if depth < 6 else 5)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.choice([0, -1, 2**63 - 1, -(2**63), 2**64, 1.5, 1e308, rng.randrange(-10**6, 10**6)])
    if kind in (3, 4):
        return rng.choice(["", "x" * rng.randrange(300), "\u0000", "\ud7ff\ue000", "é" * 50, BOARD, "dash", "🎮" * 10])
    if kind in (5, 6):
        return {rng.choice(MEMBERS): random_json(rng, depth + 1) for _ in range(rng.randrange(6))}
    return [random_json(rng, depth + 1) for _ in range(rng.randrange(6))]


def hostile_body(rng, limit):
    choice = rng.randrange(10)
    if choice == 0:
        return b""
    if choice == 1:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 400)))
    if choice == 2:
        return b"[" * 5000 + b"]" * 5000
    if choice == 3:
        return b'{"value": 1, "name": "\xff\xfe"}'
    if choice == 4:
        return b"{" + b" " * (limit + rng.randrange(1, 5000)) + b"}"
    if choice == 5:
        return json.dumps(random_json(rng)).encode()
    if choice == 6:
        return b'{"a":' * 40 + b"1" + b"}" * 40
    return json.dumps({rng.choice(MEMBERS): random_json(rng) for _ in range(rng.randrange(1, 6))}).encode()


def hostile_headers(rng):
    headers = {}
    credential = rng.randrange(6)
    if credential == 1:
        headers["Authorization"] = "Bearer " + rng.choice(["", "x", "a.b.c", "eyJhbGciOiJub25lIn0.e30.", "é" * 10, "t" * 5000])
    elif credential == 2:
        headers["Authorization"] = rng.choice(["Basic Zm9vOmJhcg==", "Bearer", "bearer  ", "Token abc"])
    elif credential == 3:
        headers["X-Podium-Server-Key"] = "k" * rng.randrange(0, 100)
    elif credential == 4:
        headers["X-Podium-Admin-Key"] = "a" * rng.randrange(0, 100)
    if rng.random() < 0.3:
        headers["Idempotency-Key"] = rng.choice(["", "x" * 300, "sp ace", "ok-" + str(rng.randrange(10**9))])
    if rng.random() < 0.2:
        headers["Origin"] = rng.choice(["http://evil.example", "null", "http://127.0.0.1:1"])
    if rng.random() < 0.2:
        headers["Content-Type"] = rng.choice(["text/plain", "application/json; charset=latin1", "multipart/form-data"])
    # Header values as bytes: non-ASCII ones go out as UTF-8, as a hostile client would send them.
    return {name: value.encode("utf-8") for name, value in headers.items()}


def expand(path, rng):
    return (path.replace("{g}", rng.choice(GAMES)).replace("{b}", rng.choice([BOARD, "nope", "%2e%2e", "a" * 300]))
            .replace("{x}", rng.choice(["x", "%00", "..", "a%2Fb", "é", "z" * 500]))
            .replace("{t}", rng.choice(["health", "nope.nothing", "a" * 200, "%20", "auth.session-check"])))


# ---- phase 1: raw bytes ----------------------------------------------------------------------

def raw_payloads(rng):
    yield b"\x00" * 100
    yield bytes(rng.randrange(256) for _ in range(2000))
    yield b"GET / HTTP/9.9\r\n\r\n"
    yield b"GET\r\n\r\n"
    yield b"GET /v1/health HTTP/1.1\r\nHost: x\r\n" + b"X-Flood: y\r\n" * 500 + b"\r\n"
    yield b"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: " + b"z" * 40000 + b"\r\n\r\n"
    yield b"GET /v1/\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n"
    yield b"POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n{\"a\":"
    yield b"POST /v1/sessions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n"
    yield b"POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n"
    yield b"POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 9\r\n\r\nabc"
    yield b"GET /v1/socket HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n"
    for _ in range(30):
        yield bytes(rng.randrange(32, 127) for _ in range(rng.randrange(1, 300))) + b"\r\n\r\n"


def send_raw(host, port, payload):
    with socket.create_connection((host, port), timeout=5) as conn:
        try:
            conn.sendall(payload)
            conn.shutdown(socket.SHUT_WR)
            while conn.recv(65536):
                pass
        except OSError:
            pass


# ---- phase 5: head limits --------------------------------------------------------------------

HEAD_TIMEOUT_S = 10
SHUTDOWN_BOUND_S = 10


def read_until_closed(conn, limit_s):
    """Everything the server sends until it closes the connection; None if it stays open."""
    conn.settimeout(limit_s)
    received = b""
    deadline = time.monotonic() + limit_s
    try:
        while time.monotonic() < deadline:
            chunk = conn.recv(65536)
            if not chunk:
                return received
            received += chunk
    except ConnectionResetError:
        return received
    except socket.timeout:
        pass
    return None


def expect_refusal(host, port, payload, status, code, verdict, name, limit_s=5):
    with socket.create_connection((host, port), timeout=5) as conn:
        try:
            conn.sendall(payload)
        except OSError:
            pass  # closed while sending: the answer may still be there
        received = read_until_closed(conn, limit_s)
    if received is None:
        verdict.fail(f"{name}: the connection is still open after {limit_s} s")
        return
    head, _, body = received.partition(b"\r\n\r\n")
    if not head.startswith(f"HTTP/1.1 {status} ".encode()):
        verdict.fail(f"{name}: answered {head[:60]!r}, not {status}")
        return
    try:
        problem = json.loads(body)
    except ValueError:
        verdict.fail(f"{name}: the {status} body is not a problem: {body[:80]!r}")
        return
    if problem.get("code") != code or problem.get("status") != status:
        verdict.fail(f"{name}: problem {problem}, wanted code {code}")
    verdict.count(f"head limit {status}")


def head_limits(host, port, verdict):
    expect_refusal(host, port, b"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: " + b"z" * 17000 + b"\r\n\r\n",
                   431, "header_too_large", verdict, "a head over 16 KiB")
    expect_refusal(host, port, b"GET /v1/health HTTP/1.1\r\n" + b"X-Flood: y\r\n" * 150 + b"\r\n",
                   431, "header_too_large", verdict, "a head with 150 fields")
    # The same on a kept-alive connection, after a first request was answered.
    with socket.create_connection((host, port), timeout=5) as conn:
        conn.sendall(b"GET /v1/gateway/health HTTP/1.1\r\nHost: x\r\n\r\n")
        first = b""
        while b"\r\n\r\n" not in first:
            first += conn.recv(65536)
        conn.sendall(b"GET /v1/health HTTP/1.1\r\n" + b"X-Flood: y\r\n" * 150 + b"\r\n")
        rest = read_until_closed(conn, 5)
        if rest is None or b" 431 " not in (first + rest):
            verdict.fail(f"a second head with 150 fields on a kept-alive connection: {(rest or b'still open')[:80]!r}")
    slash = httpx.get(f"http://{host}:{port}/v1/health/", timeout=10)
    if slash.status_code != 404 or slash.headers.get("content-type") != "application/problem+json":
        verdict.fail(f"GET /v1/health/ answered {slash.status_code}, not a 404 problem")


def half_head(host, port, verdict, outcome):
    """A head sent halfway: 408 and closed within the head timeout (plus slack for a busy box)."""
    started = time.monotonic()
    try:
        with socket.create_connection((host, port), timeout=5) as conn:
            conn.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Half: ")
            received = read_until_closed(conn, HEAD_TIMEOUT_S + 15)
    except OSError as error:
        outcome["error"] = f"half head: {error}"
        return
    outcome["seconds"] = time.monotonic() - started
    outcome["received"] = received


# ---- phase 6: shutdown ------------------------------------------------------------------------

def shutdown(host, port, ws_url, pid, verdict):
    """Hostile connections open, then SIGTERM: the gateway exits within its bound."""
    conns = []
    for payload in [b"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Half: ",
                    b"POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{\"a\":",
                    b""]:
        conn = socket.create_connection((host, port), timeout=5)
        if payload:
            conn.sendall(payload)
        conns.append(conn)
    parsed = urlparse(ws_url)
    upgrade = socket.create_connection((parsed.hostname, parsed.port), timeout=5)
    upgrade.sendall(b"GET /v1/socket HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
    conns.append(upgrade)
    time.sleep(0.5)
    started = time.monotonic()
    os.kill(pid, signal.SIGTERM)
    while proc_status(pid)[0] and time.monotonic() - started < SHUTDOWN_BOUND_S + 20:
        time.sleep(0.05)
    seconds = time.monotonic() - started
    for conn in conns:
        conn.close()
    if proc_status(pid)[0]:
        verdict.fail(f"the gateway did not exit within {seconds:.0f} s of SIGTERM with hostile connections open")
    elif seconds > SHUTDOWN_BOUND_S:
        verdict.fail(f"the gateway took {seconds:.1f} s to exit on SIGTERM, over DEPLOYMENT.md's {SHUTDOWN_BOUND_S} s")
    log(f"shutdown with a half head, a half body, a silent connection and a WebSocket open: {seconds:.2f} s")


# ---- phase 3: slow clients -------------------------------------------------------------------

async def slow_clients(host, port, count, seconds, probe, verdict):
    writers = []
    for _ in range(count):
        try:
            reader, writer = await asyncio.open_connection(host, port)
            writers.append(writer)
        except OSError as error:
            verdict.fail(f"slow clients: could not connect: {error}")
            return
    head = b"POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n"
    deadline = time.monotonic() + seconds
    index = 0
    while time.monotonic() < deadline:
        for writer in writers:
            if index < len(head):
                try:
                    writer.write(head[index:index + 1])
                except (ConnectionError, RuntimeError):
                    pass
        index += 1
        await asyncio.sleep(0.2)
        await probe("during slow clients")
    for writer in writers:
        writer.close()


# ---- phase 4: WebSocket -----------------------------------------------------------------------

async def websocket_phase(ws_url, rng, probe, verdict):
    async def attempt(name, body):
        try:
            async with websockets.connect(ws_url, max_size=2**20, open_timeout=10, close_timeout=2) as ws:
                await body(ws)
        except (websockets.ConnectionClosed, OSError, asyncio.TimeoutError, websockets.InvalidStatus) as error:
            verdict.count(f"websocket {name}: {type(error).__name__}")

    async def garbage(ws):
        for _ in range(300):
            await ws.send(rng.choice([b"\x00\x01", "not json", "{", "[]", json.dumps(random_json(rng)), "{\"type\":" * 50]))
        for _ in range(50):
            await asyncio.wait_for(ws.recv(), 10)

    async def oversized(ws):
        await ws.send("x" * 70000)
        await asyncio.wait_for(ws.recv(), 10)

    async def fragmented(ws):
        await ws.send(("y" * 20000 for _ in range(5)))
        await asyncio.wait_for(ws.recv(), 10)

    async def never_reads(ws):
        for index in range(3000):
            await ws.send(json.dumps({"type": "gateway.health", "id": f"n{index}"}))

    async def hellos(ws):
        for _ in range(100):
            await ws.send(json.dumps({"type": "socket.hello", "id": "h", "token": rng.choice(["", "x", "a.b.c"]),
                                      "payload": {"games": rng.choice([[], ["dash"] * 30, ["é"], [1], "dash"])}}))
        for _ in range(100):
            await asyncio.wait_for(ws.recv(), 10)

    for name, body in [("garbage", garbage), ("oversized", oversized), ("fragmented", fragmented),
                       ("never reads", never_reads), ("hellos", hellos)]:
        await attempt(name, body)
        await probe(f"after websocket {name}")
    # Dropped mid-message: a raw upgrade, half a frame, gone.
    parsed = urlparse(ws_url)
    with socket.create_connection((parsed.hostname, parsed.port), timeout=5) as conn:
        conn.sendall(b"GET /v1/socket HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        conn.recv(4096)
        conn.sendall(b"\x81\xfe\xff\xff" + b"\x00" * 100)
    await probe("after a dropped socket")


# ---- main -------------------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--http", required=True)
    parser.add_argument("--data", required=True)
    parser.add_argument("--pid", action="append", default=[], metavar="NAME=PID")
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--seed", type=int)
    parser.add_argument("--rss-limit-mb", type=int, default=256)
    parser.add_argument("--max-bytes", type=int, default=65536)
    parser.add_argument("--shutdown", action="store_true",
                        help="end by stopping the gateway with SIGTERM, hostile connections open (phase 6)")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    rng = random.Random(seed)
    log(f"seed {seed}, {args.requests} requests against {args.http}")
    parsed = urlparse(args.http)
    host, port = parsed.hostname, parsed.port
    pids = dict(item.split("=", 1) for item in args.pid)
    verdict = Verdict()
    before = database_snapshot(args.data)
    rss_before = {name: proc_status(int(pid))[1] for name, pid in pids.items()}
    client = httpx.Client(base_url=args.http, timeout=15)

    probes = {"sent": 0}

    def probe_sync(when):
        probes["sent"] += 1
        try:
            response = httpx.get(args.http + "/v1/gateway/health", timeout=10)
            if response.status_code != 200:
                verdict.fail(f"probe {when}: status {response.status_code}")
        except httpx.HTTPError as error:
            verdict.fail(f"probe {when}: {type(error).__name__} {error}")

    async def probe(when):
        await asyncio.to_thread(probe_sync, when)

    # 1. raw bytes.
    for payload in raw_payloads(rng):
        try:
            send_raw(host, port, payload)
            verdict.count("raw")
        except OSError as error:
            verdict.fail(f"raw payload {payload[:40]!r}: {error}")
    probe_sync("after raw bytes")

    # 5. the head limits; the half head's 10 s run beside phase 2.
    head_limits(host, port, verdict)
    half = {}
    half_thread = threading.Thread(target=half_head, args=(host, port, verdict, half), daemon=True)
    half_thread.start()

    # 2. well-formed HTTP, hostile content.
    for index in range(args.requests):
        method = rng.choice(METHODS)
        if rng.random() < 0.1:
            path = rng.choice(CREATE_ON_WELL_FORMED)
            body = rng.choice([b"{", b"[1]", b"\xff", b'{"deviceId": 1}', b'{"username": []}', b"null"])
            method = "POST"
        else:
            path = expand(rng.choice(PATHS), rng)
            body = hostile_body(rng, args.max_bytes) if method in ("POST", "DELETE", "PUT", "PATCH") else b""
        query = {}
        if rng.random() < 0.4:
            query = {rng.choice(["limit", "offset", "scope", "cursor", "friendsOnly", "playerId", "radius", "state", "x"]):
                     rng.choice(["", "-1", "99999999999999999999", "true", "maybe", "é", "%00", "a" * 1000]) for _ in range(3)}
        try:
            response = client.request(method, path, params=query, content=body, headers=hostile_headers(rng))
        except httpx.LocalProtocolError:
            verdict.count("refused by the client library itself")
            continue
        except httpx.HTTPError as error:
            verdict.fail(f"{method} {path}: no response: {type(error).__name__} {error}")
            continue
        verdict.count(f"status {response.status_code}")
        if response.status_code >= 500 and response.status_code not in (503,):
            verdict.fail(f"{method} {path} body {body[:60]!r}: status {response.status_code}: {response.text[:200]}")
        if response.status_code >= 400 and method != "HEAD":
            kind = response.headers.get("content-type", "")
            if kind != "application/problem+json":
                verdict.fail(f"{method} {path}: error {response.status_code} is {kind!r}, not a problem")
            else:
                problem = response.json()
                if problem.get("status") != response.status_code or not problem.get("code"):
                    verdict.fail(f"{method} {path}: problem {problem} does not match status {response.status_code}")
        if index % 500 == 0:
            probe_sync(f"after {index} requests")
    # The operators' console: without a valid session nothing is shown or done. Pages send the
    # browser to the login page, forms are refused (HTML pages, not problems: it is a web UI).
    console_paths = ["/console", "/console/overview", "/console/players", "/console/leaderboards", "/console/audit",
                     "/console/events", "/console/games", "/console/challenges", "/console/api/overview", "/console/login",
                     "/console/logout", "/console/players/ban", "/console/players/unban", "/console/leaderboards/reset",
                     "/console/leaderboards/remove-score", "/console/challenges/end", "/console/sessions/revoke",
                     "/console/static/console.js", "/console/nope"]
    for _ in range(max(100, args.requests // 10)):
        method = rng.choice(["GET", "POST", "POST", "DELETE"])
        path = rng.choice(console_paths)
        cookie = rng.choice(["", "x", "0" * 64, "'; DROP", "%C3%A9" * 10, "a" * 5000]) if rng.random() < 0.7 else None
        body = rng.choice([b"", b"csrf=" + b"0" * 64 + b"&player=p", b"key=wrong", b"key=", b"\xff\xfe", b"%%%", hostile_body(rng, 4096)])
        headers = dict(rng.choice([{}, {"Origin": "http://evil.example"}, {"Sec-Fetch-Site": "cross-site"},
                                   {"Content-Type": "application/x-www-form-urlencoded"}]))
        if cookie is not None:
            headers["Cookie"] = f"podium_console={cookie}"
        try:
            response = client.request(method, path, content=body if method != "GET" else b"", headers=headers)
        except httpx.HTTPError as error:
            verdict.fail(f"console {method} {path}: no response: {type(error).__name__} {error}")
            continue
        verdict.count(f"console status {response.status_code}")
        if response.status_code >= 500:
            verdict.fail(f"console {method} {path}: status {response.status_code}: {response.text[:200]}")
        private = path not in ("/console/login", "/console/static/console.js", "/console")
        if private and response.status_code == 200:
            verdict.fail(f"console {method} {path} answered 200 without a session")
    client.close()

    half_thread.join(HEAD_TIMEOUT_S + 20)
    if "error" in half:
        verdict.fail(half["error"])
    elif half.get("received") is None:
        verdict.fail(f"a head sent halfway is still open after {HEAD_TIMEOUT_S + 15} s")
    elif not half["received"].startswith(b"HTTP/1.1 408 ") or b'"code":"request_timeout"' not in half["received"]:
        verdict.fail(f"a head sent halfway was answered {half['received'][:80]!r}, not 408 request_timeout")
    else:
        log(f"a head sent halfway: 408 and closed after {half['seconds']:.1f} s")
        verdict.count("head limit 408")

    # 3 and 4.
    asyncio.run(slow_clients(host, port, 40, 3, probe, verdict))
    asyncio.run(websocket_phase(args.http.replace("http", "ws", 1) + "/v1/socket", rng, probe, verdict))

    # The end: alive, bounded, nothing changed.
    time.sleep(1)
    for name, pid in pids.items():
        alive, rss, _, _ = proc_status(int(pid))
        if not alive:
            verdict.fail(f"podium-{name} (pid {pid}) is gone")
        elif rss is not None and rss_before.get(name) is not None and rss - rss_before[name] > args.rss_limit_mb * 1024:
            verdict.fail(f"podium-{name} grew from {rss_before[name] // 1024} to {rss // 1024} MB")
    probe_sync("at the end")
    after = database_snapshot(args.data)
    # Every console login attempt is audited by design (PROTOCOL.md 22.7): the fuzzer's wrong keys
    # leave `console.login` entries, none of them a login that succeeded. Nothing else may change.
    before_audit = set(before.get("gateway-audit.sqlite", {}).get("audit", []))
    logins = [row for row in after.get("gateway-audit.sqlite", {}).get("audit", [])
              if row not in before_audit and "console.login" in row]
    for row in logins:
        outcome = ast.literal_eval(row)[-1]  # rows are repr()s of the table's tuples
        if outcome not in ("invalid_credentials", "rate_limited"):
            verdict.fail(f"a console login without the admin key was audited as {outcome!r}: {row}")
        verdict.count("console login attempts audited")
    if logins:
        after["gateway-audit.sqlite"]["audit"] = [row for row in after["gateway-audit.sqlite"]["audit"]
                                                  if row not in logins]
    changes = diff_databases(before, after)
    for change in changes[:20]:
        verdict.fail(f"state changed: {change}")
    if args.shutdown and "gateway" in pids:
        shutdown(host, port, args.http.replace("http", "ws", 1) + "/v1/socket", int(pids["gateway"]), verdict)
    log("counts: " + ", ".join(f"{key} {value}" for key, value in sorted(verdict.counts.items())))
    log(f"probes answered: {probes['sent'] - sum(1 for f in verdict.failures if f.startswith('probe'))}/{probes['sent']}")
    if verdict.failures:
        log("FAIL")
        for failure in verdict.failures:
            log("  " + failure)
        return 1
    log(f"PASS (seed {seed})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
