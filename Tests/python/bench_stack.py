#!/usr/bin/env python3
"""Podium as users run it, beside Redis, in one run (issue 19; scripts/bench --stack).

The stack: the release binaries as five separate processes started by scripts/run (SQLite,
durability on: synchronous=FULL, every acknowledgement after its commit), rate limits raised out
of the way. The load: podium-load (Tests/Load/podium_load.c), a C program against libzmq, in a
process of its own, with --clients DEALERs x --window requests in flight (a game server's key,
so that any player can be named). The board holds --entries entries, written through the stack
by podium-load before the measurements.

Rows (each the median of --runs runs of --seconds, with min and max):
  top 10 (leaderboard.top), rank (leaderboard.entry of a random player), durable score
  submission (leaderboard.submit), event.publish acknowledged, and ingest end to end (events
  acknowledged and applied by the achievement service: from the first send until its stream
  position reaches the log's head); single-client round trips (1 x 1) of top 10 and rank, p50
  and p99.
Redis, the same run, same machine: ZREVRANGE 0 9 WITHSCORES, ZREVRANK, ZADD on an --entries
member sorted set with redis-benchmark (-c --clients -P 16), once without persistence and, for
ZADD, once with appendonly yes / appendfsync always (the durable comparison). Ratios are
Podium / Redis.

Writes stack.json and stack.md into --out.

Usage: bench_stack.py --bin DIR --load FILE --out DIR [--entries 1000000] [--runs 3] [--seconds 10]
                      [--clients 4] [--window 64] [--no-redis]
"""

import argparse
import functools
import json
import os
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

    def run(self, request, connections, window, seconds=10, count=0, latency=False):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as file:
            file.write(json.dumps(request).replace('"__VALUE__"', "__VALUE__"))
        command = [self.binary, "--endpoint", self.endpoint, "--request", file.name, "--connections", str(connections),
                   "--window", str(window), "--seconds", str(seconds), "--players", str(self.players)]
        if count:
            command += ["--count", str(count)]
        if latency:
            command.append("--latency")
        try:
            result = subprocess.run(command, capture_output=True, text=True)
        finally:
            os.unlink(file.name)
        lines = result.stdout.strip().splitlines()
        if result.returncode != 0 or not lines:
            raise SystemExit(f"stack bench: podium-load failed ({result.returncode}):\n{result.stdout}{result.stderr}")
        return json.loads(lines[-1])


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
    options = parser.parse_args()
    out = Path(options.out)
    out.mkdir(parents=True, exist_ok=True)
    admin_key = "bench-admin-key-" + "y" * 32
    os.environ["PODIUM_ADMIN_KEY"] = admin_key
    results = {"entries": options.entries, "clients": options.clients, "window": options.window,
               "runs": options.runs, "seconds": options.seconds, "podium": {}, "redis": {}, "redisDurable": {}}
    stack = bench_fronts.Stack(options.bin, options.out)
    try:
        load = Load(options.load, stack.requests, options.entries)
        started = time.monotonic()
        preload = load.run({**request("leaderboard.submit", {"boardId": BOARD, "value": "__VALUE__"}), "playerId": "bench-__SEQ__"},
                           options.clients, options.window, count=options.entries)
        print(f"stack bench: {options.entries:,} entries written in {time.monotonic() - started:.0f} s "
              f"({preload['rate']:,.0f}/s)")
        pipelined = {
            "top 10": request("leaderboard.top", {"boardId": BOARD, "limit": 10}),
            "rank": request("leaderboard.entry", {"boardId": BOARD}),
            "durable score submission": request("leaderboard.submit", {"boardId": BOARD, "value": "__VALUE__"}),
            "event.publish (acknowledged)": request("event.publish", {"name": "bench.tick", "value": "__VALUE__"}),
        }
        for _ in range(options.runs):
            for label, template in pipelined.items():
                result = load.run(template, options.clients, options.window, options.seconds)
                results["podium"].setdefault(label, []).append(result["rate"])
                print(f"stack bench: {label}: {result['rate']:,.0f}/s")
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
    lines = [
        "## The stack as users run it, beside Redis",
        "",
        f"Five processes from scripts/run (release binaries, SQLite, durability on); load from podium-load (C, libzmq, "
        f"its own process), {options.clients} connections x {options.window} in flight; {options.entries:,} entries on the "
        f"board; Redis with redis-benchmark -c {options.clients} -P 16 on {options.entries:,} members. "
        f"{options.runs} runs of {options.seconds} s, median [min–max].",
        "",
        "| request | Podium | Redis, no persistence | Podium / Redis | Redis, appendfsync always | Podium / Redis |",
        "|---|---|---|---|---|---|",
    ]
    for label, values in results["podium"].items():
        digits = 0
        redis = results["redis"].get(label, [])
        durable = results["redisDurable"].get(label, [])
        ratio = f"{statistics.median(values) / statistics.median(redis):.3f}" if redis and "µs" not in label else "—"
        ratio_durable = f"{statistics.median(values) / statistics.median(durable):.3f}" if durable else "—"
        name = f" ({redis_names[label]})" if label in redis_names and redis else ""
        lines.append(f"| {label} | {figure(values, digits)} | {figure(redis)}{name} | {ratio} | {figure(durable)} | {ratio_durable} |")
    (out / "stack.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
