#!/usr/bin/env python3
"""Podium as users run it, beside Redis, in one run (issue 19; scripts/bench --stack).

The stack: the release binaries as five separate processes started by scripts/run (SQLite,
durability on: synchronous=FULL, every acknowledgement after its commit), rate limits raised out
of the way. The load: podium-load (Tests/Benchmarks/Load/podium_load.c), a C program against libzmq, in a
process of its own, with --clients DEALERs x --window requests in flight (a game server's key,
so that any player can be named). The board holds --entries entries, written through the stack
by podium-load before the measurements.

Rows (each the median of --runs runs of --seconds, with min and max):
  top 10 (leaderboard.top), rank (leaderboard.entry of a random player), durable score
  submission (leaderboard.submit), event.publish acknowledged, and ingest end to end (events
  acknowledged and applied by the achievement service: from the first send until its stream
  position reaches the log's head); single-client round trips (1 x 1) of top 10 and rank, p50
  and p99.
The same rows over HTTP (the other transport a game uses): wrk (Debian) with --clients x --window
keep-alive connections, one request in flight each (HTTP/1.1 has no more), a Lua script naming a
random player and value per request; one connection for the single-client round trips (wrk's
p50 and p99). Every run must be answered without one error or non-2xx response.
Profiles: after the measured runs, each load runs once more with `perf record -g` on the five
processes (when perf is installed); profile-stack-<load>.txt holds each process's share of the
CPU, the split by library and the hottest functions.
Redis, the same run, same machine: ZREVRANGE 0 9 WITHSCORES, ZREVRANK, ZADD on an --entries
member sorted set with redis-benchmark (-c --clients -P 16), once without persistence and, for
ZADD, once with appendonly yes / appendfsync always (the durable comparison). Ratios are
Podium / Redis.

Writes stack.json and stack.md into --out.

Usage: bench_stack.py --bin DIR --load FILE --out DIR [--entries 1000000] [--runs 3] [--seconds 10]
                      [--clients 4] [--window 64] [--no-redis] [--no-http] [--no-profile]
"""

import argparse
import functools
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_fronts  # noqa: E402  (the stack from scripts/run, as the fronts bench starts it)

print = functools.partial(print, flush=True)
GAME, BOARD, KEY = bench_fronts.GAME, bench_fronts.BOARD, bench_fronts.SERVER_KEY


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Load:
    """Runs podium-load with a request template (placeholders: see podium_load.c)."""

    def __init__(self, binary, endpoint, players):
        self.binary, self.endpoint, self.players = binary, endpoint, players

    def command(self, request, connections, window, seconds=10, count=0, latency=False):
        """The podium-load command line and the request file it reads (the caller removes it)."""
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as file:
            file.write(json.dumps(request).replace('"__VALUE__"', "__VALUE__"))
        command = [self.binary, "--endpoint", self.endpoint, "--request", file.name, "--connections", str(connections),
                   "--window", str(window), "--seconds", str(seconds), "--players", str(self.players)]
        if count:
            command += ["--count", str(count)]
        if latency:
            command.append("--latency")
        return command, file.name

    def start(self, request, connections, window, seconds, rate=0):
        """The load in the background (for a profile, or paced at `rate` per second in all); the
        caller waits for it or ends it."""
        command, _ = self.command(request, connections, window, seconds)
        if rate:
            command += ["--rate", str(rate)]
        return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def run(self, request, connections, window, seconds=10, count=0, latency=False):
        command, name = self.command(request, connections, window, seconds, count, latency)
        try:
            result = subprocess.run(command, capture_output=True, text=True)
        finally:
            os.unlink(name)
        lines = result.stdout.strip().splitlines()
        if result.returncode != 0 or not lines:
            raise SystemExit(f"stack bench: podium-load failed ({result.returncode}):\n{result.stdout}{result.stderr}")
        return json.loads(lines[-1])


class Wrk:
    """Runs wrk against the HTTP front with a Lua script per request kind."""

    def __init__(self, base, out, players):
        self.base, self.out, self.players = base, Path(out), players

    def script(self, name, method, path, body=None):
        """A Lua script: `path` and `body` may hold {player} and {value}, drawn per request."""
        lua = self.out / f"wrk-{name}.lua"
        def lua_string(text):
            return '"' + text.replace('"', '\\"') + '"'
        def expand(text):
            parts = re.split(r"(\{player\}|\{value\})", text)
            pieces = []
            for part in parts:
                if part == "{player}":
                    pieces.append(f'"bench-" .. math.random(0, {self.players - 1})')
                elif part == "{value}":
                    pieces.append("math.random(0, 999999)")
                elif part:
                    pieces.append(lua_string(part))
            return " .. ".join(pieces) if pieces else '""'
        lua.write_text(
            f'wrk.method = "{method}"\n'
            f'wrk.headers["Content-Type"] = "application/json"\n'
            f'wrk.headers["X-Podium-Server-Key"] = "{KEY}"\n'
            'request = function()\n'
            f'  return wrk.format(nil, {expand(path)}, nil, {expand(body) if body else "nil"})\n'
            'end\n')
        return str(lua)

    def run(self, script, connections, seconds):
        command = ["wrk", f"-t{min(2, connections)}", f"-c{connections}", f"-d{seconds}s", "--latency", "-s", script, self.base]
        output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
        bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", output)
        errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output)
        if bad or (errors and any(int(n) for n in errors.groups())):
            raise SystemExit(f"stack bench: wrk saw failures:\n{output}")
        result = {"rate": float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))}
        for percentile in ("50", "99"):
            found = re.search(rf"^\s+{percentile}%\s+([\d.]+)(us|ms|s)\s*$", output, re.M)
            if found:
                value, unit = float(found.group(1)), found.group(2)
                result[f"p{percentile}_us"] = round(value * {"us": 1, "ms": 1000, "s": 1_000_000}[unit])
        return result


def stack_pids(bin_dir):
    found = subprocess.run(["pgrep", "-f", f"{bin_dir}/podium-(gateway|auth|leaderboard|achievement|challenge)"],
                           capture_output=True, text=True).stdout.split()
    return [int(pid) for pid in found]


def profile(out, label, pids, start_load, seconds=5):
    """Runs a load with perf record on the stack's processes; writes profile-stack-<label>.txt."""
    slug = re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-")
    data = Path(out) / f"perf-stack-{slug}.data"
    load = start_load()
    time.sleep(1)
    subprocess.run(["perf", "record", "-F", "499", "-g", "-o", str(data), "-p", ",".join(map(str, pids)), "--", "sleep",
                    str(seconds)], capture_output=True)
    load.wait()
    def report(*args):
        return subprocess.run(["perf", "report", "-i", str(data), "--stdio", "--no-children", "-g", "none", *args],
                              capture_output=True, text=True).stdout
    def lines(text, limit):
        return [line for line in text.splitlines() if line.strip() and not line.startswith("#")][:limit]
    names = {str(pid): Path(f"/proc/{pid}/comm").read_text().strip() if Path(f"/proc/{pid}/comm").exists() else str(pid)
             for pid in pids}
    per_process = subprocess.run(["perf", "script", "-i", str(data), "-F", "pid"], capture_output=True, text=True).stdout.split()
    counts = {}
    for pid in per_process:
        counts[names.get(pid, pid)] = counts.get(names.get(pid, pid), 0) + 1
    total = max(1, sum(counts.values()))
    text = [f"# perf record -g, {seconds} s of {label} (samples at 499 Hz on the five processes: {total})", "",
            "## Share of the samples by process"]
    text += [f"{count / total * 100:6.1f}%  {name}" for name, count in sorted(counts.items(), key=lambda item: -item[1])]
    text += ["", "## By library (self)"] + lines(report("--sort", "dso"), 12)
    text += ["", "## Hottest functions (self, >= 0.7 %)"] + lines(report("--sort", "dso,symbol", "--percent-limit", "0.7"), 40)
    body = "\n".join(text) + "\n"
    if shutil.which("swift-demangle"):
        body = subprocess.run(["swift-demangle", "--simplified", "--compact"], input=body, capture_output=True, text=True).stdout
    (Path(out) / f"profile-stack-{slug}.txt").write_text(body)
    data.unlink(missing_ok=True)
    print(f"stack bench: profile of {label} in profile-stack-{slug}.txt")


def request(type_, payload, game=GAME):
    return {"id": "__ID__", "type": type_, "gameId": game, "serverKey": KEY, "playerId": "__PLAYER__", "payload": payload}


def admin_call(endpoint, admin_key, type_, payload):
    import zmq
    context = zmq.Context.instance()
    dealer = context.socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    dealer.connect(endpoint)
    try:
        dealer.send_json({"id": str(time.time_ns()), "type": type_, "adminKey": admin_key, "payload": payload})
        if dealer.poll(5000):
            return json.loads(dealer.recv())
        return None
    finally:
        dealer.close()


class Redis:
    """A redis-server on a free port, preloaded with `entries` members like redis-benchmark's."""

    def __init__(self, out, name, entries, durable):
        self.port = free_port()
        self.dir = tempfile.mkdtemp(prefix=f"podium-bench-redis-{name}-")
        persistence = ["--appendonly", "yes", "--appendfsync", "always"] if durable else ["--appendonly", "no"]
        self.process = subprocess.Popen(
            ["redis-server", "--bind", "127.0.0.1", "--port", str(self.port), "--save", "", "--dir", self.dir,
             "--logfile", str(Path(out) / f"redis-{name}.log"), *persistence])
        deadline = time.time() + 20
        while subprocess.run(["redis-cli", "-p", str(self.port), "ping"], capture_output=True).returncode != 0:
            if time.time() > deadline:
                raise SystemExit("stack bench: redis-server did not start")
            time.sleep(0.1)
        lines = []
        for start in range(0, entries, 1000):
            members = " ".join(f"{(start + i) * 7919 % 1000000} member:{start + i:012d}"
                               for i in range(min(1000, entries - start)))
            lines.append(f"ZADD bench {members}")
        subprocess.run(["redis-cli", "-p", str(self.port), "--pipe"], input="\n".join(lines) + "\n", text=True,
                       capture_output=True, check=True)

    def benchmark(self, clients, pipeline, requests, entries, *command):
        result = subprocess.run(
            ["redis-benchmark", "-p", str(self.port), "-c", str(clients), "-P", str(pipeline), "-n", str(requests),
             "-r", str(entries), "--csv", *command], capture_output=True, text=True, check=True)
        # "test","rps",... then one row per test; the rate is the second field.
        row = result.stdout.strip().splitlines()[-1]
        return float(row.split(",")[1].strip('"'))

    def stop(self):
        subprocess.run(["redis-cli", "-p", str(self.port), "shutdown", "nosave"], capture_output=True)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
        subprocess.run(["rm", "-rf", self.dir])


def settle(endpoint, admin_key, limit=600):
    """Waits until every service has applied every stream it follows up to its head (the preload
    leaves the challenge service a score message per entry to apply), so that no run measures
    the catching up of the one before."""
    started = time.monotonic()
    while time.monotonic() - started < limit:
        behind = 0
        for service in ("leaderboard", "achievement", "challenge"):
            health = admin_call(endpoint, admin_key, f"{service}.health", {}) or {}
            for stream in ((health.get("payload") or {}).get("streams") or {}).values():
                behind += max(0, stream.get("head", 0) - stream.get("position", 0))
        if behind == 0:
            return time.monotonic() - started
        time.sleep(0.5)
    raise SystemExit(f"stack bench: the services did not catch up within {limit} s")


def notification_latency(stack, load, admin_key, samples, rate, seconds_per_sample=0.05):
    """Submission -> challenge.completed notification under a paced event.publish load.

    Two players who are friends; the issuer has 100 on the board. Per sample the issuer
    challenges the receiver (and the bench waits for challenge.received on the receiver's
    subscription), then the receiver submits a higher score over a DEALER of its own: the time
    from that send to challenge.completed arriving on the SUB socket. The background load is
    podium-load sending event.publish at `rate` per second in all, from its own process.
    Returns (p50 ms, p99 ms, the background rate achieved, from the event log's head)."""
    import zmq
    context = zmq.Context.instance()
    dealer = context.socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    dealer.connect(stack.requests)
    numbers = iter(range(1_000_000))

    def call(type_, payload, token=None, game=None):
        request_id = f"n{next(numbers)}-{time.time_ns()}"
        request = {"id": request_id, "type": type_, "payload": payload}
        if token:
            request["token"] = token
        if game:
            request["gameId"] = game
        dealer.send_json(request)
        while True:
            if not dealer.poll(10_000):
                raise SystemExit(f"stack bench: no reply to {type_}")
            reply = json.loads(dealer.recv())
            if reply.get("correlationId") == request_id:
                break
        if reply["type"] == "error":
            raise SystemExit(f"stack bench: {type_} failed: {reply['payload']}")
        return reply["payload"]

    suffix = str(time.time_ns())[-9:]
    issuer = call("auth.register", {"username": f"nissuer{suffix}", "password": "bench-password-1"})
    receiver = call("auth.register", {"username": f"nreceiver{suffix}", "password": "bench-password-1"})
    call("auth.friends.request", {"playerId": receiver["playerId"]}, issuer["sessionToken"])
    call("auth.friends.accept", {"playerId": issuer["playerId"]}, receiver["sessionToken"])
    call("leaderboard.submit", {"boardId": BOARD, "value": 100}, issuer["sessionToken"], GAME)
    topic = call("notifications.subscribe", {}, receiver["sessionToken"], GAME)["topic"]
    sub = context.socket(zmq.SUB)
    sub.setsockopt(zmq.LINGER, 0)
    sub.setsockopt(zmq.SUBSCRIBE, topic.encode())
    sub.connect(stack.notifications)
    submitter = context.socket(zmq.DEALER)
    submitter.setsockopt(zmq.LINGER, 0)
    submitter.connect(stack.requests)

    def wait_for(kind, limit=10.0):
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            if sub.poll(100):
                _, body = sub.recv_multipart()
                if json.loads(body)["payload"]["kind"] == kind:
                    return time.perf_counter()
        return None

    def issue():
        call("challenge.issue", {"kind": "score", "boardId": BOARD, "receivers": [receiver["playerId"]]},
             issuer["sessionToken"], GAME)

    # Subscriptions are not confirmed: issue until a challenge.received arrives.
    for _ in range(50):
        issue()
        if wait_for("challenge.received", 0.5):
            break
    else:
        raise SystemExit("stack bench: no challenge.received reached the subscriber")
    # The receiver completes what is pending before the samples start.
    call("leaderboard.submit", {"boardId": BOARD, "value": 1000}, receiver["sessionToken"], GAME)
    while wait_for("challenge.completed", 0.5):
        pass
    background = load.start(request("event.publish", {"name": "bench.tick", "value": "__VALUE__"}), 4, 64,
                            samples * (seconds_per_sample + 0.05) + 10, rate=rate)
    times = []
    try:
        time.sleep(1)
        head_before = admin_call(stack.requests, admin_key, "events.read", {"after": 0, "limit": 1})["payload"]["head"]
        measured_from = time.monotonic()
        for index in range(samples):
            issue()
            if wait_for("challenge.received") is None:
                raise SystemExit("stack bench: challenge.received did not arrive")
            started = time.perf_counter()
            submitter.send_json({"id": f"ns{index}-{time.time_ns()}", "type": "leaderboard.submit", "gameId": GAME,
                                 "token": receiver["sessionToken"], "payload": {"boardId": BOARD, "value": 1001 + index}})
            arrived = wait_for("challenge.completed")
            if arrived is None:
                raise SystemExit("stack bench: challenge.completed did not arrive")
            times.append((arrived - started) * 1000)
            if submitter.poll(5000):
                submitter.recv()
            time.sleep(seconds_per_sample)
        head_after = admin_call(stack.requests, admin_key, "events.read", {"after": 0, "limit": 1})["payload"]["head"]
        achieved = (head_after - head_before) / (time.monotonic() - measured_from)
    finally:
        background.terminate()
        background.wait()
    times.sort()
    dealer.close()
    sub.close()
    submitter.close()
    return statistics.median(times), times[min(len(times) - 1, int(len(times) * 0.99))], achieved


def figure(values, digits=0):
    if not values:
        return "—"
    fmt = f"{{:,.{digits}f}}"
    return f"{fmt.format(statistics.median(values))} [{fmt.format(min(values))}–{fmt.format(max(values))}]"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--load", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--entries", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--window", type=int, default=64)
    parser.add_argument("--no-redis", action="store_true")
    parser.add_argument("--no-http", action="store_true")
    parser.add_argument("--no-profile", action="store_true")
    options = parser.parse_args()
    with_http = not options.no_http and shutil.which("wrk") is not None
    with_profile = not options.no_profile and shutil.which("perf") is not None
    if not options.no_http and not with_http:
        print("stack bench: wrk not installed; the HTTP rows are left out")
    out = Path(options.out)
    out.mkdir(parents=True, exist_ok=True)
    admin_key = "bench-admin-key-" + "y" * 32
    os.environ["PODIUM_ADMIN_KEY"] = admin_key
    results = {"entries": options.entries, "clients": options.clients, "window": options.window,
               "runs": options.runs, "seconds": options.seconds, "podium": {}, "http": {}, "redis": {},
               "redisDurable": {}}
    stack = bench_fronts.Stack(options.bin, options.out)
    try:
        load = Load(options.load, stack.requests, options.entries)
        started = time.monotonic()
        preload = load.run({**request("leaderboard.submit", {"boardId": BOARD, "value": "__VALUE__"}), "playerId": "bench-__SEQ__"},
                           options.clients, options.window, count=options.entries)
        print(f"stack bench: {options.entries:,} entries written in {time.monotonic() - started:.0f} s "
              f"({preload['rate']:,.0f}/s); the services caught up {settle(stack.requests, admin_key):.0f} s later")
        pipelined = {
            "top 10": request("leaderboard.top", {"boardId": BOARD, "limit": 10}),
            "rank": request("leaderboard.entry", {"boardId": BOARD}),
            "durable score submission": request("leaderboard.submit", {"boardId": BOARD, "value": "__VALUE__"}),
            "event.publish (acknowledged)": request("event.publish", {"name": "bench.tick", "value": "__VALUE__"}),
        }
        web = Wrk(stack.base, out, options.entries)
        board_path = f"/v1/games/{GAME}/leaderboards/{BOARD}"
        http_scripts = {
            "top 10": web.script("top", "GET", f"{board_path}/top?limit=10"),
            "rank": web.script("rank", "GET", f"{board_path}/entry?playerId={{player}}"),
            "durable score submission": web.script("submit", "POST", f"{board_path}/scores?playerId={{player}}",
                                                   '{"value": {value}}'),
            "event.publish (acknowledged)": web.script("event", "POST", f"/v1/games/{GAME}/events?playerId={{player}}",
                                                       '{"name": "bench.tick", "value": {value}}'),
        }
        connections = options.clients * options.window
        for _ in range(options.runs):
            for label, template in pipelined.items():
                result = load.run(template, options.clients, options.window, options.seconds)
                results["podium"].setdefault(label, []).append(result["rate"])
                print(f"stack bench: {label}: {result['rate']:,.0f}/s")
                if with_http:
                    result = web.run(http_scripts[label], connections, options.seconds)
                    results["http"].setdefault(label, []).append(result["rate"])
                    print(f"stack bench: {label} over HTTP ({connections} connections): {result['rate']:,.0f}/s")
            # Ingest end to end: a fixed number of events, timed until the achievement service
            # has applied the log up to its head.
            events = max(10_000, options.seconds * 5_000)
            head_before = admin_call(stack.requests, admin_key, "events.read", {"after": 0, "limit": 1})["payload"]["head"]
            t0 = time.monotonic()
            load.run(request("event.publish", {"name": "bench.tick", "value": "__VALUE__"}), options.clients, options.window,
                     count=events)
            head = head_before + events
            while True:
                health = admin_call(stack.requests, admin_key, "achievement.health", {})
                position = ((health or {}).get("payload", {}).get("streams") or {}).get("events", {}).get("position", 0)
                if position >= head:
                    break
                if time.monotonic() - t0 > 300:
                    raise SystemExit("stack bench: the achievement service did not catch up within 300 s")
                time.sleep(0.05)
            rate = events / (time.monotonic() - t0)
            results["podium"].setdefault("ingest end to end (applied by achievement)", []).append(rate)
            print(f"stack bench: ingest end to end: {rate:,.0f}/s")
            for label, template in (("top 10", pipelined["top 10"]), ("rank", pipelined["rank"])):
                result = load.run(template, 1, 1, options.seconds, latency=True)
                results["podium"].setdefault(f"{label}, one client: p50 µs", []).append(result["p50_us"])
                results["podium"].setdefault(f"{label}, one client: p99 µs", []).append(result["p99_us"])
                print(f"stack bench: {label} one client: p50 {result['p50_us']} µs, p99 {result['p99_us']} µs")
                if with_http:
                    result = web.run(http_scripts[label], 1, options.seconds)
                    for percentile in ("p50", "p99"):
                        if f"{percentile}_us" in result:
                            results["http"].setdefault(f"{label}, one client: {percentile} µs", []).append(result[f"{percentile}_us"])
                    print(f"stack bench: {label} one client over HTTP: p50 {result.get('p50_us')} µs, p99 {result.get('p99_us')} µs")
        for _ in range(options.runs):
            p50, p99, achieved = notification_latency(stack, load, admin_key, samples=100, rate=10_000)
            label = "notification after a completing submission, events paced at 10,000/s"
            results["podium"].setdefault(f"{label}: p50 ms", []).append(round(p50, 2))
            results["podium"].setdefault(f"{label}: p99 ms", []).append(round(p99, 2))
            results["podium"].setdefault(f"{label}: events/s achieved", []).append(round(achieved))
            print(f"stack bench: notification under events paced at 10,000/s ({achieved:,.0f}/s achieved): "
                  f"p50 {p50:.2f} ms, p99 {p99:.2f} ms")
        if with_profile:
            pids = stack_pids(options.bin)
            for label, template in pipelined.items():
                profile(out, label, pids, lambda: load.start(template, options.clients, options.window, 7))
            if with_http:
                for label in ("top 10", "durable score submission"):
                    profile(out, f"{label} over HTTP", pids, lambda: subprocess.Popen(
                        ["wrk", "-t2", f"-c{connections}", "-d7s", "-s", http_scripts[label], web.base],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    finally:
        stack.stop()

    if not options.no_redis:
        plain = Redis(out, "plain", options.entries, durable=False)
        try:
            for _ in range(options.runs):
                n = 1_000_000
                for label, command in (("top 10", ["zrevrange", "bench", "0", "9", "withscores"]),
                                       ("rank", ["zrevrank", "bench", "member:__rand_int__"]),
                                       ("durable score submission", ["zadd", "bench", "__rand_int__", "member:__rand_int__"])):
                    rate = plain.benchmark(options.clients, 16, n, options.entries, *command)
                    results["redis"].setdefault(label, []).append(rate)
                    print(f"stack bench: redis {label}: {rate:,.0f}/s")
        finally:
            plain.stop()
        durable = Redis(out, "durable", options.entries, durable=True)
        try:
            for _ in range(options.runs):
                rate = durable.benchmark(options.clients, 16, 200_000, options.entries, "zadd", "bench", "__rand_int__",
                                         "member:__rand_int__")
                results["redisDurable"].setdefault("durable score submission", []).append(rate)
                print(f"stack bench: redis appendfsync always ZADD: {rate:,.0f}/s")
        finally:
            durable.stop()

    (out / "stack.json").write_text(json.dumps(results, indent=2) + "\n")
    redis_names = {"top 10": "ZREVRANGE 0 9 WITHSCORES", "rank": "ZREVRANK", "durable score submission": "ZADD"}
    http_note = (f"; HTTP: wrk, {options.clients * options.window} keep-alive connections x 1 in flight"
                 if results["http"] else "; HTTP rows left out" + ("" if options.no_http else " (no wrk)"))
    lines = [
        "## The stack as users run it, beside Redis",
        "",
        f"Five processes from scripts/run (release binaries, SQLite, durability on); ZeroMQ: podium-load (C, libzmq, "
        f"its own process), {options.clients} connections x {options.window} in flight{http_note}; {options.entries:,} "
        f"entries on the board; Redis with redis-benchmark -c {options.clients} -P 16 on {options.entries:,} members. "
        f"{options.runs} runs of {options.seconds} s, median [min–max]. Ratios: Podium / Redis.",
        "",
        "| request | Podium, ZeroMQ | Podium, HTTP | Redis, no persistence | ZeroMQ / Redis | HTTP / Redis "
        "| Redis, appendfsync always | ZeroMQ / Redis | HTTP / Redis |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    def ratio(values, reference):
        return f"{statistics.median(values) / statistics.median(reference):.3f}" if values and reference else "—"
    for label, values in results["podium"].items():
        over_http = results["http"].get(label, [])
        redis = [] if ("µs" in label or " ms" in label) else results["redis"].get(label, [])
        durable = results["redisDurable"].get(label, [])
        name = f" ({redis_names[label]})" if label in redis_names and redis else ""
        digits = 2 if label.endswith(" ms") else 0
        lines.append(f"| {label} | {figure(values, digits)} | {figure(over_http)} | {figure(redis)}{name} | {ratio(values, redis)} "
                     f"| {ratio(over_http, redis)} | {figure(durable)} | {ratio(values, durable)} | {ratio(over_http, durable)} |")
    (out / "stack.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
