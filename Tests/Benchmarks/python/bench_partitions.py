#!/usr/bin/env python3
"""How the leaderboard's work splits over its instances (scripts/bench --partitions).

The stack as users run it on PostgreSQL (scripts/run: five processes, one PostgreSQL cluster),
16 boards of one game, and one, two, then three podium-leaderboard processes sharing the
boards' 16 partitions (PODIUM_PARTITIONS). For each count, once every instance holds its share:
podium-load (C, its own process) sends `leaderboard.top` and then durable `leaderboard.submit`
(a game server key, a random player, a random board of the 16), and the run records, per
leaderboard instance, the requests it served (its `podium_partition_requests_total`) and the
CPU it used (`/proc/<pid>/stat`), beside the whole stack's rate.

On a machine with two cores every process shares them, so adding instances cannot add
throughput here: what this measures is the split (each instance's share of the requests and of
the leaderboard's CPU) and the CPU per request, from which docs/SCALING.md projects what more
hosts carry. Every figure printed is measured; the projection is the document's.
"""

import argparse
import functools
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench_fronts  # noqa: E402
import bench_postgres_stack  # noqa: E402
import bench_stack  # noqa: E402

print = functools.partial(print, flush=True)
GAME = bench_fronts.GAME
ADMIN_KEY = bench_postgres_stack.ADMIN_KEY
BOARDS = 16
TICKS = os.sysconf("SC_CLK_TCK")


def admin(endpoint, type_, payload, game=None):
    import zmq
    dealer = zmq.Context.instance().socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    dealer.connect(endpoint)
    try:
        body = {"id": str(time.time_ns()), "type": type_, "adminKey": ADMIN_KEY, "payload": payload}
        if game:
            body["gameId"] = game
        dealer.send_json(body)
        return json.loads(dealer.recv()) if dealer.poll(10_000) else None
    finally:
        dealer.close()


def metrics(address):
    try:
        with urllib.request.urlopen(f"http://{address}/metrics", timeout=2) as response:
            return response.read().decode()
    except OSError:
        return ""


def metric_sum(text, name, **labels):
    total = 0.0
    for line in text.splitlines():
        if not line.startswith(name + "{") and not line.startswith(name + " "):
            continue
        if all(f'{key}="{value}"' in line for key, value in labels.items()):
            total += float(line.rsplit(" ", 1)[1])
    return total


def cpu_seconds(pid):
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


class Instance:
    """A leaderboard process: the stack's own, or one more started beside it."""

    def __init__(self, name, pid, metrics_address, process=None):
        self.name, self.pid, self.metrics, self.process = name, pid, metrics_address, process

    @classmethod
    def extra(cls, stack, index, bin_dir, log_dir):
        address = f"127.0.0.1:{bench_stack.free_port()}"
        env = dict(stack.stack.env)
        env.update(stack.secrets())
        env.update({"PODIUM_DATA": tempfile.mkdtemp(prefix="podium-bench-partitions-"),
                    "PODIUM_DATABASE_URL": stack.database_url, "PODIUM_INSTANCE_ID": f"leaderboard-{index}",
                    "PODIUM_METRICS": address, "PODIUM_LOG_LEVEL": "error",
                    "PODIUM_GAMES_DIR": os.environ.get("PODIUM_GAMES_DIR", str(bench_fronts.ROOT / "docs/examples/games"))})
        log = open(Path(log_dir) / f"leaderboard-{index}.log", "w")
        process = subprocess.Popen([f"{bin_dir}/podium-leaderboard"], env=env, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        return cls(f"leaderboard-{index}", process.pid, address, process)

    def owned(self):
        return int(metric_sum(metrics(self.metrics), "podium_partitions_owned", service="leaderboard"))

    def served(self):
        return metric_sum(metrics(self.metrics), "podium_partition_requests_total", outcome="served")

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()


def wait_shares(instances, seconds=60):
    share = BOARDS // len(instances)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        owned = [i.owned() for i in instances]
        if sum(owned) == BOARDS and all(o >= share for o in owned):
            return owned
        time.sleep(0.5)
    raise SystemExit(f"partitions bench: the instances did not take their shares: {[i.owned() for i in instances]}")


def measure(load, instances, template, seconds, connections, window):
    before = [(i.served(), cpu_seconds(i.pid)) for i in instances]
    started = time.monotonic()
    result = load.run(template, connections, window, seconds=seconds)
    elapsed = time.monotonic() - started
    after = [(i.served(), cpu_seconds(i.pid)) for i in instances]
    rows = []
    for instance, (served0, cpu0), (served1, cpu1) in zip(instances, before, after):
        rows.append({"instance": instance.name, "served": int(served1 - served0), "cpu_s": round(cpu1 - cpu0, 2)})
    return {"rate": round(result.get("rate", 0)), "errors": result.get("errors", 0), "elapsed": round(elapsed, 1),
            "instances": rows}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", required=True)
    parser.add_argument("--load", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--seconds", type=float, default=8)
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--window", type=int, default=64)
    parser.add_argument("--instances", type=int, default=3)
    args = parser.parse_args()
    Path(args.out).mkdir(parents=True, exist_ok=True)
    cluster = bench_postgres_stack.Cluster()
    stack = None
    extras = []
    results = {}
    try:
        cluster.start()
        url = cluster.createdb("partitions")
        stack = bench_postgres_stack.PodiumStack("partitions", args.bin, args.out, url)
        for k in range(BOARDS):
            reply = admin(stack.requests, "leaderboard.admin.define", {"definition": {"id": f"board-{k}", "title": f"Board {k}"}},
                          GAME)
            if not reply or reply.get("type") != "reply":
                raise SystemExit(f"partitions bench: defining board-{k} failed: {reply}")
        pids = [pid for pid in bench_stack.stack_pids(args.bin)
                if Path(f"/proc/{pid}/comm").read_text().strip().startswith("podium-leaderbo")]
        if len(pids) != 1:
            raise SystemExit(f"partitions bench: expected one leaderboard process, found {pids}")
        instances = [Instance("leaderboard-1", pids[0], stack.metrics["leaderboard"])]
        load = bench_stack.Load(args.load, stack.requests, 10_000)
        top = bench_stack.request("leaderboard.top", {"boardId": "__BOARD__", "limit": 10})
        submit = bench_stack.request("leaderboard.submit", {"boardId": "__BOARD__", "value": "__VALUE__"})
        load.command = functools.partial(with_boards, load.command)
        for count in range(1, args.instances + 1):
            while len(instances) < count:
                extra = Instance.extra(stack, len(instances) + 1, args.bin, args.out)
                extras.append(extra)
                instances.append(extra)
            owned = wait_shares(instances)
            time.sleep(2)
            print(f"partitions bench: {count} instance(s), partitions owned {owned}")
            # What each instance costs without requests (lease rounds, announcements, the outbox
            # relay's ticks, metrics): the fixed cost an added instance brings.
            idle0 = [cpu_seconds(i.pid) for i in instances]
            time.sleep(args.seconds)
            idle = [round((cpu_seconds(i.pid) - c) / args.seconds * 100, 1) for i, c in zip(instances, idle0)]
            results[count] = {"owned": owned, "idle_cpu_percent": idle,
                              "top": measure(load, instances, top, args.seconds, args.connections, args.window),
                              "submit": measure(load, instances, submit, args.seconds, args.connections, args.window)}
            print(json.dumps(results[count]))
    finally:
        for extra in extras:
            extra.stop()
        if stack:
            stack.stop()
        cluster.stop()
    (Path(args.out) / "partitions.json").write_text(json.dumps(results, indent=1))
    lines = ["| instances | request | stack rate /s | per instance: share of requests | per instance: CPU s (of the run) | leaderboard CPU ms per 1,000 requests | idle CPU per instance |",
             "|---|---|---|---|---|---|---|"]
    for count, result in results.items():
        for kind in ("top", "submit"):
            run = result[kind]
            served = [row["served"] for row in run["instances"]]
            total = max(1, sum(served))
            cpu = [row["cpu_s"] for row in run["instances"]]
            shares = " / ".join(f"{s / total * 100:.0f} %" for s in served)
            lines.append(f"| {count} | {kind} | {run['rate']:,} | {shares} | {' / '.join(f'{c:.2f}' for c in cpu)} | "
                         f"{sum(cpu) * 1000 / total * 1000:.0f} | {' / '.join(f'{c} %' for c in result['idle_cpu_percent'])} |")
    table = "\n".join(lines)
    (Path(args.out) / "partitions.md").write_text(table + "\n")
    print(table)


def with_boards(command, *args, **kwargs):
    """podium-load's command with --boards (the 16 boards of the run)."""
    line, name = command(*args, **kwargs)
    return line + ["--boards", str(BOARDS)], name


if __name__ == "__main__":
    main()
