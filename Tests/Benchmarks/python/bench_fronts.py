#!/usr/bin/env python3
"""The HTTP front beside the ZeroMQ front, on the stack as users run it (scripts/bench).

Starts the release binaries as five separate processes with scripts/run (its own data directory,
free ports, logs at error level, rate limits raised out of the way), preloads a leaderboard, then
drives the same requests through both fronts from separate load-generator processes, each
compiled and on its own threads:

  HTTP:    wrk (Debian), keep-alive connections, one request in flight each;
  ZeroMQ:  podium-bench-zmq --drive, DEALERs with a window of requests in flight.

Rows: top 10 with 4 connections x 1 in flight; top 10 with 64 in flight (64 HTTP connections,
4 DEALERs x 16); durable score submission with 64 in flight. Every run must be answered without
one error or non-2xx response, or the bench fails. Each figure is the median of --runs runs with
min and max; the ratio is HTTP / ZeroMQ. Writes fronts.json and fronts.md into --out.

Usage: fronts.py --bin DIR --out DIR [--runs 3] [--seconds 10] [--entries 2000]
"""

import argparse
import functools
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

print = functools.partial(print, flush=True)  # progress shows at once, also into a log
ROOT = Path(__file__).resolve().parents[3]
GAME = "dash"
BOARD = "com.example.dash.highscore"
SERVER_KEY = "bench-server-key-" + "x" * 32


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(method, url, body=None, headers=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json", **(headers or {})})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read() or b"{}")


class Stack:
    def __init__(self, bin_dir, log_dir):
        self.data = tempfile.mkdtemp(prefix="podium-bench-fronts-")
        self.http_port = free_port()
        self.requests = f"tcp://127.0.0.1:{free_port()}"
        self.notifications = f"tcp://127.0.0.1:{free_port()}"
        env = dict(os.environ)
        env.update({
            "PODIUM_DATA": self.data,
            "PODIUM_BIN": bin_dir,
            "PODIUM_LOG_LEVEL": "error",
            "PODIUM_HTTP": f"127.0.0.1:{self.http_port}",
            "PODIUM_METRICS": os.environ.get("BENCH_METRICS", "off"),
            "PODIUM_GATEWAY_REQUESTS": self.requests,
            "PODIUM_GATEWAY_NOTIFICATIONS": self.notifications,
            "PODIUM_BUS_PUBLISH": f"tcp://127.0.0.1:{free_port()}",
            "PODIUM_BUS_SUBSCRIBE": f"tcp://127.0.0.1:{free_port()}",
            "PODIUM_BUS_SERVICES": f"tcp://127.0.0.1:{free_port()}",
            "PODIUM_GAME_SERVER_KEYS": f"{GAME}={SERVER_KEY}",
            "PODIUM_RATE_CONNECTION_PER_SECOND": "10000000",
            "PODIUM_RATE_CONNECTION_BURST": "10000000",
            "PODIUM_RATE_PLAYER_PER_SECOND": "10000000",
            "PODIUM_RATE_PLAYER_BURST": "10000000",
            "PODIUM_MAX_IN_FLIGHT_PER_CONNECTION": "1000",
        })
        self.log = open(Path(log_dir) / "fronts-run.log", "w")
        self.process = subprocess.Popen(
            [str(ROOT / "scripts/run"), "--no-build"], env=env, stdout=self.log, stderr=subprocess.STDOUT,
            start_new_session=True)
        self.base = f"http://127.0.0.1:{self.http_port}"
        self.env = env
        deadline = time.time() + 90
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise SystemExit(f"fronts: scripts/run exited {self.process.returncode}; see {self.log.name}")
            try:
                if http("GET", self.base + "/v1/health").get("ready"):
                    return
            except Exception:
                pass
            time.sleep(0.3)
        raise SystemExit("fronts: the stack did not become ready in 90 s")

    def stop(self):
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
        subprocess.run(["rm", "-rf", self.data])


def wrk(url, connections, seconds, headers, script=None):
    command = ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency"]
    for name, value in headers.items():
        command += ["-H", f"{name}: {value}"]
    if script:
        command += ["-s", script]
    command.append(url)
    # One second of warm-up, not counted.
    subprocess.run(command[:3] + ["-d1s"] + command[4:], capture_output=True, text=True)
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", output)
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output)
    if bad or (errors and any(int(n) for n in errors.groups())):
        raise SystemExit(f"fronts: wrk saw failures:\n{output}")
    return rate


def drive(bench_zmq, endpoint, request, connections, window, seconds):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as file:
        # "__VALUE__" stands for a number: the driver puts one in without quotes.
        file.write(json.dumps(request).replace('"__VALUE__"', "__VALUE__"))
    try:
        result = subprocess.run(
            [bench_zmq, "--drive", endpoint, "--request", file.name, "--connections", str(connections),
             "--window", str(window), "--seconds", str(seconds)],
            capture_output=True, text=True)
    finally:
        os.unlink(file.name)
    if result.returncode != 0:
        raise SystemExit(f"fronts: the ZeroMQ driver failed:\n{result.stdout}{result.stderr}")
    return json.loads(result.stdout.strip().splitlines()[-1])["rate"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--entries", type=int, default=2000)
    options = parser.parse_args()
    bench_zmq = str(Path(options.bin) / "podium-bench-zmq")
    stack = Stack(options.bin, options.out)
    try:
        # One player whose session token both fronts use; a board of --entries players, written
        # by the game server key.
        name = f"bench{int(time.time())}"
        http("POST", stack.base + "/v1/accounts", {"username": name, "password": "bench-password-1"})
        token = http("POST", stack.base + "/v1/sessions", {"username": name, "password": "bench-password-1"})["sessionToken"]
        for index in range(options.entries):
            http("POST", f"{stack.base}/v1/games/{GAME}/leaderboards/{BOARD}/scores?playerId=bench-{index}",
                 {"value": (index * 7919) % 1_000_000}, {"X-Podium-Server-Key": SERVER_KEY})
        print(f"fronts: stack ready, {options.entries} entries on {BOARD}")
        auth = {"Authorization": f"Bearer {token}"}
        top_url = f"{stack.base}/v1/games/{GAME}/leaderboards/{BOARD}/top?limit=10"
        top_request = {"id": "__ID__", "type": "leaderboard.top", "gameId": GAME, "token": token,
                       "payload": {"boardId": BOARD, "limit": 10}}
        submit_url = f"{stack.base}/v1/games/{GAME}/leaderboards/{BOARD}/scores"
        submit_request = {"id": "__ID__", "type": "leaderboard.submit", "gameId": GAME, "token": token,
                          "payload": {"boardId": BOARD, "value": "__VALUE__"}}
        lua = Path(options.out) / "fronts-submit.lua"
        lua.write_text(
            'wrk.method = "POST"\n'
            'wrk.headers["Content-Type"] = "application/json"\n'
            'request = function()\n'
            '  return wrk.format(nil, nil, nil, string.format(\'{"value": %d}\', math.random(0, 999999)))\n'
            'end\n')
        rows = [
            ("top 10, 4 connections x 1 in flight", "queries/s",
             lambda: wrk(top_url, 4, options.seconds, auth),
             lambda: drive(bench_zmq, stack.requests, top_request, 4, 1, options.seconds)),
            ("top 10, 64 in flight (64 HTTP connections; 4 DEALERs x 16)", "queries/s",
             lambda: wrk(top_url, 64, options.seconds, auth),
             lambda: drive(bench_zmq, stack.requests, top_request, 4, 16, options.seconds)),
            ("score submission (durable), 64 in flight", "scores/s",
             lambda: wrk(submit_url, 64, options.seconds, auth, str(lua)),
             lambda: drive(bench_zmq, stack.requests, submit_request, 4, 16, options.seconds)),
        ]
        results = []
        for label, unit, run_http, run_zmq in rows:
            http_rates, zmq_rates = [], []
            # Alternate the fronts run by run, so that drift in the machine touches both alike.
            for _ in range(options.runs):
                http_rates.append(run_http())
                zmq_rates.append(run_zmq())
            row = {"measurement": label, "unit": unit, "http": http_rates, "zeromq": zmq_rates,
                   "ratio": statistics.median(http_rates) / statistics.median(zmq_rates)}
            results.append(row)
            print(f"fronts: {label}: HTTP {statistics.median(http_rates):,.0f}, ZeroMQ {statistics.median(zmq_rates):,.0f} "
                  f"{unit} (HTTP/ZeroMQ {row['ratio']:.2f})")
    finally:
        stack.stop()
        (Path(options.out) / "fronts-submit.lua").unlink(missing_ok=True)

    def figure(values):
        return f"{statistics.median(values):,.0f} ({min(values):,.0f}-{max(values):,.0f})"

    (Path(options.out) / "fronts.json").write_text(json.dumps(results, indent=2) + "\n")
    lines = [
        "## The HTTP front beside the ZeroMQ front (separate processes, release binaries)",
        "",
        f"Five processes from scripts/run; load from wrk (HTTP, keep-alive) and podium-bench-zmq --drive "
        f"(ZeroMQ), {options.runs} runs of {options.seconds} s each, median (min-max); {options.entries} entries on the board.",
        "",
        "| measurement | unit | HTTP (wrk) | ZeroMQ (DEALER) | HTTP / ZeroMQ |",
        "|---|---|---|---|---|",
    ]
    for row in results:
        lines.append(f"| {row['measurement']} | {row['unit']} | {figure(row['http'])} | {figure(row['zeromq'])} | {row['ratio']:.2f} |")
    (Path(options.out) / "fronts.md").write_text("\n".join(lines) + "\n")
    print(f"fronts: wrote {options.out}/fronts.md")


if __name__ == "__main__":
    main()
