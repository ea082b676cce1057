#!/usr/bin/env python3
"""Podium's durable writes on PostgreSQL as users run it, beside SQLite and beside pgbench, in one
run on one machine (scripts/bench --postgres-stack).

The stacks: the release binaries as five separate processes started by scripts/run (as
bench_stack.py starts them: bench_fronts.Stack, rate limits raised out of the way, logs at error
level), once on SQLite files and once on PostgreSQL. PostgreSQL is one throwaway 15 cluster
(scripts/postgres: 127.0.0.1, fsync and synchronous_commit on) with a database of its own for
Podium's stack and another for the pgbench tables, so that Podium's schemas are untouched. A
second podium-gateway (same binaries, same PODIUM_DATABASE_URL, secrets, keys and games, its own
ports) writes into the same event log for the two-gateway row; the services stay connected to
the first gateway's hub only (scripts/run gives every process the same bus endpoints), so they
learn of the second gateway's events from the log (gap repair), not from its hub.

The load: podium-load (Tests/Benchmarks/Load/podium_load.c), as bench_stack.py's Load runs it:
--clients DEALERs x --window requests in flight, a game server's key, a random player of the
board's per request. Each board is preloaded with --entries entries by podium-load --count.
Before every measurement each stack's services have caught up with every stream they follow.

Rows (each the median of --runs runs of --seconds, with min and max; runs alternate between the
backends so that drift of the machine touches all alike):
  durable score submission (leaderboard.submit), SQLite and PostgreSQL: acknowledged per second
    and, from podium-load --latency, p50 and p99 under the load (podium-load matches replies to
    sends in order per DEALER: exact when a connection's replies come back in the order sent);
  event.publish acknowledged: SQLite (one gateway), PostgreSQL with one gateway, and PostgreSQL
    with two gateways at once (a podium-load of --clients/2 x --window at each; rates summed);
  pgbench reference on the same cluster, same run: a custom script (-f, -M prepared) writing the
    rows of a durable score submission as Podium writes them (entry upsert, score history row,
    receipt, outbox message, in tables of the same columns and indexes), (a) 100 submissions of
    100 distinct players per transaction (multi-row INSERT ... SELECT FROM generate_series),
    4 clients, -j 2, reported as submissions per second (tps x 100); (b) one submission per
    transaction, 64 clients.
A request counts only when acknowledged: error replies (podium-load's "errors"; by code from the
gateway's /metrics) are subtracted from the rate and listed.

Writes postgres-stack.json and postgres-stack.md into --out (process logs and pgbench scripts
under --out/postgres-stack-logs) and prints the table.

Usage: bench_postgres_stack.py --bin DIR --load FILE --out DIR [--entries 55000] [--runs 3] [--seconds 10]
                               [--clients 4] [--window 64] [--pgbench PATH]
"""

import argparse
import functools
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_fronts  # noqa: E402  (the stack from scripts/run)
import bench_stack  # noqa: E402  (podium-load, requests, settling)

print = functools.partial(print, flush=True)
ROOT = bench_fronts.ROOT
GAME, BOARD, KEY = bench_fronts.GAME, bench_fronts.BOARD, bench_fronts.SERVER_KEY
free_port = bench_fronts.free_port
request = bench_stack.request
ADMIN_KEY = "bench-admin-key-" + "y" * 32
BATCH = 100  # submissions per pgbench transaction in the batched reference

# The reference rows' sizes, as Podium writes them for one leaderboard.submit (read from
# podium_leaderboard on a PostgreSQL stack after a preload): the receipt's scope "dash/bench-N",
# fingerprint 16 hex digits, "-" and a number, reply ~233 bytes; the outbox topic
# "score/dash/<board>", envelope ~438 bytes. The request id: a UUID, as clients should send.
REPLY_BYTES, ENVELOPE_BYTES = 233, 438
TOPIC = f"score/{GAME}/{BOARD}"


# --- PostgreSQL ------------------------------------------------------------------------------

class Cluster:
    """A throwaway PostgreSQL cluster (scripts/postgres) in a temporary directory."""

    def __init__(self):
        # Outside a mode-700 directory: the cluster's owner is an unprivileged user (as scripts/bench).
        self.dir = tempfile.mkdtemp(prefix="podium-bench-pgstack-")
        os.chmod(self.dir, 0o755)
        self.started = False

    def script(self, *args):
        result = subprocess.run([str(ROOT / "scripts/postgres"), *args], capture_output=True, text=True)
        if result.returncode != 0:
            raise SystemExit(f"postgres stack bench: scripts/postgres {args[0]} failed:\n{result.stdout}{result.stderr}")
        return result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""

    def start(self):
        self.started = True
        return self.script("start", self.dir)

    def createdb(self, name):
        return self.script("createdb", self.dir, name)

    def stop(self):
        if self.started:
            subprocess.run([str(ROOT / "scripts/postgres"), "stop", self.dir], capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)


def connection_args(url):
    """psql/pgbench arguments and environment for a postgres:// URL."""
    parts = urllib.parse.urlsplit(url)
    env = dict(os.environ, PGPASSWORD=urllib.parse.unquote(parts.password or ""), PGSSLMODE="disable")
    return ["-h", parts.hostname, "-p", str(parts.port), "-U", urllib.parse.unquote(parts.username)], \
        parts.path.lstrip("/"), env


def psql(url, sql):
    args, database, env = connection_args(url)
    result = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-tA", *args, "-d", database, "-c", sql],
                            capture_output=True, text=True, env=env)
    if result.returncode != 0:
        raise SystemExit(f"postgres stack bench: psql failed:\n{result.stderr}")
    return result.stdout.strip()


# --- the stacks -------------------------------------------------------------------------------

class PodiumStack:
    """bench_fronts.Stack (scripts/run) on SQLite or, given a URL, on PostgreSQL, with the
    operations listener of the gateway and the leaderboard on free ports (for error codes and
    group commit sizes)."""

    def __init__(self, name, bin_dir, out, database_url=None):
        self.name = name
        self.logs = Path(out) / "postgres-stack-logs" / name
        self.logs.mkdir(parents=True, exist_ok=True)
        self.metrics = {"gateway": f"127.0.0.1:{free_port()}", "leaderboard": f"127.0.0.1:{free_port()}"}
        overrides = {"PODIUM_DATABASE_URL": database_url, "PODIUM_ADMIN_KEY": ADMIN_KEY,
                     "PODIUM_METRICS_GATEWAY": self.metrics["gateway"],
                     "PODIUM_METRICS_LEADERBOARD": self.metrics["leaderboard"]}
        saved = {name: os.environ.get(name) for name in overrides}
        try:
            for key, value in overrides.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
            self.stack = bench_fronts.Stack(bin_dir, str(self.logs))
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
        self.requests = self.stack.requests
        self.database_url = database_url

    def secrets(self):
        """The secrets scripts/run generated for this stack (secrets.env), for a second gateway."""
        found = {}
        for line in (Path(self.stack.data) / "secrets.env").read_text().splitlines():
            if "=" in line and not line.startswith("#"):
                key, value = line.split("=", 1)
                found[key] = value
        return found

    def stop(self):
        """Keeps the processes' logs (under --out), then stops the stack."""
        source = Path(self.stack.data) / "logs"
        if source.is_dir():
            for log in source.glob("*.log"):
                shutil.copy(log, self.logs / log.name)
        self.stack.stop()


class SecondGateway:
    """Another podium-gateway on the same PostgreSQL event log, with its own ports."""

    def __init__(self, bin_dir, first, log_dir):
        self.data = tempfile.mkdtemp(prefix="podium-bench-gateway2-")
        self.requests = f"tcp://127.0.0.1:{free_port()}"
        self.metrics = f"127.0.0.1:{free_port()}"
        env = dict(os.environ)
        env.pop("PODIUM_DATABASE_URL", None)
        env.update(first.secrets())
        env.update({
            "PODIUM_DATA": self.data,
            "PODIUM_DATABASE_URL": first.database_url,
            "PODIUM_LOG_LEVEL": "error",
            "PODIUM_GAMES_DIR": os.environ.get("PODIUM_GAMES_DIR", str(ROOT / "docs/examples/games")),
            "PODIUM_GAME_SERVER_KEYS": f"{GAME}={KEY}",
            "PODIUM_ADMIN_KEY": ADMIN_KEY,
            "PODIUM_HTTP": f"127.0.0.1:{free_port()}",
            "PODIUM_METRICS": self.metrics,
            "PODIUM_GATEWAY_REQUESTS": self.requests,
            "PODIUM_GATEWAY_NOTIFICATIONS": f"tcp://127.0.0.1:{free_port()}",
            "PODIUM_BUS_PUBLISH": f"tcp://127.0.0.1:{free_port()}",
            "PODIUM_BUS_SUBSCRIBE": f"tcp://127.0.0.1:{free_port()}",
            "PODIUM_BUS_SERVICES": f"tcp://127.0.0.1:{free_port()}",
            # The same limits as bench_fronts.Stack sets for the first.
            "PODIUM_RATE_CONNECTION_PER_SECOND": "10000000",
            "PODIUM_RATE_CONNECTION_BURST": "10000000",
            "PODIUM_RATE_PLAYER_PER_SECOND": "10000000",
            "PODIUM_RATE_PLAYER_BURST": "10000000",
            "PODIUM_MAX_IN_FLIGHT_PER_CONNECTION": "1000",
        })
        self.log = open(Path(log_dir) / "gateway-2.log", "w")
        self.process = subprocess.Popen([str(Path(bin_dir) / "podium-gateway")], env=env, stdin=subprocess.DEVNULL,
                                        stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        # Ready when it acknowledges an event (no service is connected to it: its health stays
        # "not ready", but event.publish is the gateway's own).
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise SystemExit(f"postgres stack bench: the second gateway exited {self.process.returncode}; "
                                 f"see {self.log.name}")
            reply = publish_once(self.requests)
            if reply and reply.get("type") != "error":
                return
            time.sleep(0.3)
        raise SystemExit("postgres stack bench: the second gateway did not acknowledge an event within 60 s")

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        shutil.rmtree(self.data, ignore_errors=True)


def publish_once(endpoint):
    """One event.publish with the server key; the reply, or None after 2 s."""
    import zmq
    dealer = zmq.Context.instance().socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    dealer.connect(endpoint)
    try:
        dealer.send_json({"id": f"ready-{time.time_ns()}", "type": "event.publish", "gameId": GAME, "serverKey": KEY,
                          "playerId": "bench-0", "payload": {"name": "bench.tick", "value": 1}})
        return json.loads(dealer.recv()) if dealer.poll(2000) else None
    finally:
        dealer.close()


# --- measuring --------------------------------------------------------------------------------

def scrape(address):
    """A process's /metrics as {(name, frozenset of labels): value}; {} if unreachable."""
    try:
        with urllib.request.urlopen(f"http://{address}/metrics", timeout=10) as response:
            text = response.read().decode()
    except Exception:
        return {}
    samples = {}
    for line in text.splitlines():
        found = re.match(r"^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)", line)
        if not found or line.startswith("#"):
            continue
        labels = frozenset(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', found.group(2) or ""))
        try:
            samples[(found.group(1), labels)] = float(found.group(3))
        except ValueError:
            pass
    return samples


def replies_by_code(before, after, type_):
    """Replies of one request type between two gateway scrapes, by code ("ok" or the error)."""
    codes = {}
    for (name, labels), value in after.items():
        if name != "podium_gateway_requests_total":
            continue
        label = dict(labels)
        if label.get("type") != type_:
            continue
        delta = value - before.get((name, labels), 0)
        if delta:
            codes[label.get("code", "?")] = codes.get(label.get("code", "?"), 0) + int(delta)
    return codes


def commit_batches(before, after, service, queue):
    """Mean batch size and mean transaction time (ms) of a group-commit queue between two scrapes."""
    def delta(name):
        total = 0.0
        for (metric, labels), value in after.items():
            label = dict(labels)
            if metric == name and label.get("service") == service and label.get("queue") == queue:
                total += value - before.get((metric, labels), 0)
        return total
    batches = delta("podium_group_commit_batch_size_count")
    if not batches:
        return None
    return {"transactions": int(batches), "mean_batch": round(delta("podium_group_commit_batch_size_sum") / batches, 1),
            "mean_commit_ms": round(delta("podium_group_commit_duration_seconds_sum") / batches * 1000, 2)}


def run_loads(loads, seconds, latency=False):
    """Runs podium-load processes at once, each (Load, template, connections, window); sums what
    they report. Error replies do not fail the run: they are counted and taken out of the rate."""
    started = []
    try:
        for load, template, connections, window in loads:
            command, name = load.command(template, connections, window, seconds, latency=latency)
            started.append((subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True), name))
        outputs = [(process.communicate(), process.returncode) for process, _ in started]
    finally:
        for process, name in started:
            if process.poll() is None:
                process.kill()
                process.wait()
            os.unlink(name)
    total = {"answered": 0, "errors": 0, "seconds": 0.0, "acknowledged_rate": 0.0, "first_errors": []}
    for (stdout, stderr), returncode in outputs:
        lines = stdout.strip().splitlines()
        if returncode not in (0, 1) or not lines:
            raise SystemExit(f"postgres stack bench: podium-load failed ({returncode}):\n{stdout}{stderr}")
        result = json.loads(lines[-1])
        total["answered"] += result["answered"]
        total["errors"] += result["errors"]
        total["seconds"] = max(total["seconds"], result["seconds"])
        total["acknowledged_rate"] += (result["answered"] - result["errors"]) / result["seconds"]
        if result.get("firstError"):
            total["first_errors"].append(result["firstError"])
        for key in ("p50_us", "p99_us", "p999_us", "max_us"):
            if key in result:
                total[key] = result[key]
    return total


class Pgbench:
    """The reference: the rows of a durable score submission written by pgbench, in a database of
    their own on the same cluster, tables shaped like Podium's (entry, score, podium_receipt,
    podium_outbox: same columns, keys and indexes), preloaded like the board."""

    def __init__(self, binary, url, entries, script_dir):
        self.binary, self.url, self.entries = binary, url, entries
        self.dir = Path(script_dir)
        psql(url, f"""
            CREATE TABLE entry (game_id text NOT NULL, board_id text NOT NULL, player_id text NOT NULL, value bigint NOT NULL,
                context bigint, metadata text, submitted_at bigint NOT NULL, PRIMARY KEY (game_id, board_id, player_id));
            CREATE INDEX entry_rank ON entry (game_id, board_id, value, submitted_at, player_id);
            CREATE TABLE score (id bigserial PRIMARY KEY, game_id text NOT NULL, board_id text NOT NULL, player_id text NOT NULL,
                value bigint NOT NULL, submitted_at bigint NOT NULL);
            CREATE INDEX score_player ON score (game_id, board_id, player_id, value);
            CREATE INDEX score_time ON score (game_id, board_id, submitted_at);
            CREATE TABLE receipt (scope text NOT NULL, request_id text NOT NULL, request_type text, fingerprint text NOT NULL,
                reply text NOT NULL, created_at bigint NOT NULL, PRIMARY KEY (scope, request_id));
            CREATE INDEX receipt_created_at ON receipt (created_at);
            CREATE SEQUENCE outbox_seq;
            CREATE TABLE outbox (seq bigint PRIMARY KEY, topic text NOT NULL, envelope bytea NOT NULL, created_at bigint NOT NULL);
            CREATE INDEX outbox_created_at ON outbox (created_at);
            INSERT INTO entry SELECT '{GAME}', '{BOARD}', 'bench-' || k, k * 7919 % 1000000, NULL, NULL, 0
                FROM generate_series(0, {entries - 1}) AS k;
            INSERT INTO score (game_id, board_id, player_id, value, submitted_at) SELECT game_id, board_id, player_id, value, 0 FROM entry;
            INSERT INTO receipt SELECT '{GAME}/bench-' || k, gen_random_uuid()::text, 'leaderboard.submit',
                left(md5(k::text), 16) || '-' || k % 100, repeat('r', {REPLY_BYTES}), 0 FROM generate_series(0, {entries - 1}) AS k;
            INSERT INTO outbox SELECT nextval('outbox_seq'), '{TOPIC}', convert_to(repeat('e', {ENVELOPE_BYTES}), 'UTF8'), 0
                FROM generate_series(1, {entries}) AS k;
            """)
        psql(url, "VACUUM ANALYZE")
        self.settings = {name: psql(url, f"SHOW {name}") for name in ("fsync", "synchronous_commit", "wal_sync_method",
                                                                        "full_page_writes", "shared_buffers")}
        if self.settings["fsync"] != "on" or self.settings["synchronous_commit"] != "on":
            raise SystemExit(f"postgres stack bench: the cluster is not durable: {self.settings}")
        self.batched = self.write_script("batched", self.batched_sql())
        self.single = self.write_script("single", self.single_sql())

    @staticmethod
    def columns(player, value):
        """The SQL of one submission's rows (as expressions of `player` and `value`): the
        receipt's reply and the outbox envelope carry the player and the value like Podium's."""
        now = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint"
        reply = (f"rpad('{{\"type\":\"leaderboard.submit\",\"payload\":{{\"boardId\":\"{BOARD}\",\"playerId\":\"' || {player} "
                 f"|| '\",\"value\":' || {value} || ',\"improved\": true', {REPLY_BYTES} - 2, ' ') || '}}}}'")
        envelope = (f"convert_to(rpad('{{\"type\":\"leaderboard.score-accepted\",\"playerId\":\"' || {player} || '\",\"value\":' "
                    f"|| {value}, {ENVELOPE_BYTES} - 1, ' ') || '}}', 'UTF8')")
        fingerprint = f"left(encode(sha256(convert_to({player} || '/' || {value}, 'UTF8')), 'hex'), 16) || '-' || {value} % 100"
        return now, reply, envelope, fingerprint

    def batched_sql(self):
        """(a) BATCH distinct players per transaction, one multi-row statement per table.
        Players: (base + i * stride) mod entries for i < BATCH, distinct since the stride is
        prime to entries; the upsert takes them in key order (no deadlock between clients)."""
        stride = next(s for s in (7919, 7907, 7901, 7883) if self.entries % s)
        player = f"('bench-' || ((:base + i * {stride}) % {self.entries}))"
        value = f"((:seed + i * 104729) % 1000000)"
        now, reply, envelope, fingerprint = self.columns(player, value)
        rows = f"FROM generate_series(0, {BATCH - 1}) AS i"
        return f"""\\set base random(0, {self.entries - 1})
\\set seed random(0, 999999)
BEGIN;
INSERT INTO entry (game_id, board_id, player_id, value, context, metadata, submitted_at)
  SELECT '{GAME}', '{BOARD}', {player}, {value}, NULL, NULL, {now} {rows} ORDER BY 3
  ON CONFLICT (game_id, board_id, player_id) DO UPDATE SET value = excluded.value, context = excluded.context,
    metadata = excluded.metadata, submitted_at = excluded.submitted_at;
INSERT INTO score (game_id, board_id, player_id, value, submitted_at)
  SELECT '{GAME}', '{BOARD}', {player}, {value}, {now} {rows} ORDER BY i RETURNING id;
INSERT INTO receipt (scope, request_id, request_type, fingerprint, reply, created_at)
  SELECT '{GAME}/' || {player}, gen_random_uuid()::text, 'leaderboard.submit', {fingerprint}, {reply}, {now} {rows};
INSERT INTO outbox (seq, topic, envelope, created_at)
  SELECT nextval('outbox_seq'), '{TOPIC}', {envelope}, {now} {rows};
COMMIT;
"""

    def single_sql(self):
        """(b) one submission per transaction."""
        player, value = "('bench-' || :player)", ":value"
        now, reply, envelope, fingerprint = self.columns(player, value)
        return f"""\\set player random(0, {self.entries - 1})
\\set value random(0, 999999)
BEGIN;
INSERT INTO entry (game_id, board_id, player_id, value, context, metadata, submitted_at)
  VALUES ('{GAME}', '{BOARD}', {player}, {value}, NULL, NULL, {now})
  ON CONFLICT (game_id, board_id, player_id) DO UPDATE SET value = excluded.value, context = excluded.context,
    metadata = excluded.metadata, submitted_at = excluded.submitted_at;
INSERT INTO score (game_id, board_id, player_id, value, submitted_at)
  VALUES ('{GAME}', '{BOARD}', {player}, {value}, {now}) RETURNING id;
INSERT INTO receipt (scope, request_id, request_type, fingerprint, reply, created_at)
  VALUES ('{GAME}/' || {player}, gen_random_uuid()::text, 'leaderboard.submit', {fingerprint}, {reply}, {now});
INSERT INTO outbox (seq, topic, envelope, created_at)
  VALUES (nextval('outbox_seq'), '{TOPIC}', {envelope}, {now});
COMMIT;
"""

    def write_script(self, name, text):
        path = self.dir / f"pgbench-{name}.sql"
        path.write_text(text)
        path.chmod(0o644)
        return path

    def run(self, script, clients, seconds):
        """pgbench -f script: transactions per second, failures, average latency (ms)."""
        args, database, env = connection_args(self.url)
        # One second more than measured, as podium-load's warm-up: 64 clients' connections (SCRAM)
        # take a while, and pgbench's tps leaves the connection time out.
        command = [self.binary, "-n", "-M", "prepared", "-c", str(clients), "-j", str(min(2, clients)), "-T",
                   str(seconds + 1), "-f", str(script), *args, database]
        result = subprocess.run(command, capture_output=True, text=True, env=env)
        output = result.stdout + result.stderr
        tps = re.search(r"^tps = ([\d.]+) \(without initial connection time\)", output, re.M)
        if result.returncode != 0 or not tps:
            raise SystemExit(f"postgres stack bench: pgbench failed ({result.returncode}):\n{output}")
        failed = re.search(r"number of failed transactions: (\d+)", output)
        latency = re.search(r"latency average = ([\d.]+) ms", output)
        return {"tps": float(tps.group(1)), "failed": int(failed.group(1)) if failed else 0,
                "latency_ms": float(latency.group(1)) if latency else None}


def figure(values, digits=0):
    return bench_stack.figure(values, digits)


def ratio(values, reference):
    return f"{statistics.median(values) / statistics.median(reference):.2f}" if values and reference else "—"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--load", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--entries", type=int, default=55_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--window", type=int, default=64)
    parser.add_argument("--pgbench", default="/usr/lib/postgresql/15/bin/pgbench")
    options = parser.parse_args()
    if options.clients < 2 or options.clients % 2:
        raise SystemExit("postgres stack bench: --clients must be even (the two-gateway row splits them)")
    if options.entries < BATCH:
        raise SystemExit(f"postgres stack bench: --entries must be at least {BATCH}")
    pgbench_binary = options.pgbench if Path(options.pgbench).exists() else shutil.which("pgbench")
    if not pgbench_binary:
        raise SystemExit("postgres stack bench: no pgbench (apt-get install postgresql-contrib or postgresql-15)")
    out = Path(options.out)
    out.mkdir(parents=True, exist_ok=True)
    logs = out / "postgres-stack-logs"
    shutil.rmtree(logs, ignore_errors=True)
    logs.mkdir(parents=True)
    began = time.monotonic()
    submit = request("leaderboard.submit", {"boardId": BOARD, "value": "__VALUE__"})
    publish = request("event.publish", {"name": "bench.tick", "value": "__VALUE__"})
    results = {"entries": options.entries, "clients": options.clients, "window": options.window, "runs": options.runs,
               "seconds": options.seconds, "rates": {}, "latency": {}, "errors": {}, "commits": {}, "pgbench": {},
               "preload": {}}

    def note_rate(label, backend, value):
        results["rates"].setdefault(label, {}).setdefault(backend, []).append(round(value, 1))

    cluster = Cluster()
    stacks, second = {}, None
    try:
        podium_url = None
        cluster.start()
        podium_url = cluster.createdb("podium_stack")
        reference_url = cluster.createdb("podium_reference")
        print(f"postgres stack bench: PostgreSQL cluster in {cluster.dir}")
        for name, url in (("sqlite", None), ("postgresql", podium_url)):
            stacks[name] = stack = PodiumStack(name, options.bin, out, url)
            load = bench_stack.Load(options.load, stack.requests, options.entries)
            started = time.monotonic()
            preload = load.run({**request("leaderboard.submit", {"boardId": BOARD, "value": "__VALUE__"}),
                                "playerId": "bench-__SEQ__"}, options.clients, options.window, count=options.entries)
            written = time.monotonic() - started
            caught_up = bench_stack.settle(stack.requests, ADMIN_KEY)
            results["preload"][name] = {"seconds": round(written, 1), "rate": preload["rate"], "settle_seconds": round(caught_up, 1)}
            print(f"postgres stack bench: {name}: {options.entries:,} entries written in {written:.0f} s "
                  f"({preload['rate']:,.0f}/s); the services caught up {caught_up:.0f} s later")
        second = SecondGateway(options.bin, stacks["postgresql"], logs / "postgresql")
        reference = Pgbench(pgbench_binary, reference_url, options.entries, logs)
        results["postgresql_settings"] = reference.settings

        def settled():
            """Waits until both stacks' services have caught up (time counted in settle_seconds)."""
            for stack in stacks.values():
                results["settle_seconds"] = round(results.get("settle_seconds", 0)
                                                  + bench_stack.settle(stack.requests, ADMIN_KEY), 1)

        def measure(label, backend, type_, loads, gateways, latency=False):
            """One run of podium-load(s) against a settled stack; rate, latency, errors, commits."""
            settled()
            stack = stacks[backend]
            addresses = [stack.metrics["gateway"]] + ([second.metrics] if len(gateways) > 1 else [])
            before = [scrape(address) for address in addresses]
            board_before = scrape(stack.metrics["leaderboard"])
            result = run_loads(loads, options.seconds, latency)
            after = [scrape(address) for address in addresses]
            board_after = scrape(stack.metrics["leaderboard"])
            note_rate(label, backend, result["acknowledged_rate"])
            codes = {}
            for first, last in zip(before, after):
                for code, count in replies_by_code(first, last, type_).items():
                    codes[code] = codes.get(code, 0) + count
            errors = {code: count for code, count in codes.items() if code != "ok"}
            record = results["errors"].setdefault(label, {}).setdefault(backend, [])
            record.append({"podium_load_errors": result["errors"], "answered": result["answered"], "by_code": errors,
                           "first_errors": result["first_errors"][:2]})
            if type_ == "leaderboard.submit":
                commits = commit_batches(board_before, board_after, "leaderboard", "scores")
            else:
                commits = [commit_batches(first, last, "gateway", "events") for first, last in zip(before, after)]
            results["commits"].setdefault(label, {}).setdefault(backend, []).append(commits)
            text = f"postgres stack bench: {label}, {backend}: {result['acknowledged_rate']:,.0f}/s acknowledged"
            if latency and "p50_us" in result:
                results["latency"].setdefault(label, {}).setdefault(backend, {}).setdefault("p50_us", []).append(result["p50_us"])
                results["latency"][label][backend].setdefault("p99_us", []).append(result["p99_us"])
                text += f", p50 {result['p50_us'] / 1000:.1f} ms, p99 {result['p99_us'] / 1000:.1f} ms"
            if result["errors"] or errors:
                text += f"; ERRORS: podium-load {result['errors']:,} of {result['answered']:,}, by code {errors}"
            print(text)

        half = options.clients // 2
        submission = "durable score submission"
        one_gateway, two_gateways = "event.publish acknowledged, one gateway", "event.publish acknowledged, two gateways"
        batched_label = f"pgbench: {BATCH} submissions per transaction, 4 clients"
        single_label = "pgbench: 1 submission per transaction, 64 clients"
        for run in range(options.runs):
            print(f"postgres stack bench: run {run + 1} of {options.runs}")
            for backend in ("sqlite", "postgresql"):
                load = bench_stack.Load(options.load, stacks[backend].requests, options.entries)
                measure(submission, backend, "leaderboard.submit", [(load, submit, options.clients, options.window)],
                        [stacks[backend]], latency=True)
            for backend in ("sqlite", "postgresql"):
                load = bench_stack.Load(options.load, stacks[backend].requests, options.entries)
                measure(one_gateway, backend, "event.publish", [(load, publish, options.clients, options.window)],
                        [stacks[backend]])
            first = bench_stack.Load(options.load, stacks["postgresql"].requests, options.entries)
            other = bench_stack.Load(options.load, second.requests, options.entries)
            measure(two_gateways, "postgresql", "event.publish",
                    [(first, publish, half, options.window), (other, publish, half, options.window)],
                    [stacks["postgresql"], second])
            for label, script, clients, per_transaction in ((batched_label, reference.batched, 4, BATCH),
                                                             (single_label, reference.single, 64, 1)):
                settled()
                outcome = reference.run(script, clients, options.seconds)
                rate = outcome["tps"] * per_transaction
                note_rate(label, "reference", rate)
                results["pgbench"].setdefault(label, []).append(outcome)
                print(f"postgres stack bench: {label}: {rate:,.0f} submissions/s ({outcome['tps']:,.1f} tps, "
                      f"latency average {outcome['latency_ms']} ms, failed transactions {outcome['failed']})")
    finally:
        if second:
            second.stop()
        for stack in stacks.values():
            stack.stop()
        cluster.stop()
    results["wall_seconds"] = round(time.monotonic() - began)

    (out / "postgres-stack.json").write_text(json.dumps(results, indent=2) + "\n")
    rates = results["rates"]

    def rate_of(label, backend):
        return rates.get(label, {}).get(backend, [])

    batched, single = rate_of(batched_label, "reference"), rate_of(single_label, "reference")
    load_note = f"podium-load (C, libzmq, its own process), {options.clients} connections x {options.window} in flight"
    lines = [
        "## Durable writes on PostgreSQL, as users run Podium, beside SQLite and pgbench",
        "",
        f"Five processes from scripts/run (release binaries), once on SQLite (synchronous=FULL) and once on a local "
        f"PostgreSQL 15 (fsync and synchronous_commit on); {load_note}, a game server key, a random player of "
        f"{options.entries:,} on the board per request. Two gateways: a second podium-gateway on the same event log, "
        f"{half} x {options.window} at each, rates summed. pgbench on the same cluster in the same run, -M prepared, "
        f"tables shaped like Podium's (same columns, keys, indexes), preloaded likewise. {options.runs} runs of "
        f"{options.seconds} s, median [min–max], per second, acknowledged requests only (error replies taken out).",
        "",
        "| request | SQLite | PostgreSQL | PostgreSQL / SQLite | pgbench reference | PostgreSQL / reference |",
        "|---|---|---|---|---|---|",
    ]
    for label in (submission, one_gateway, two_gateways):
        sqlite, postgres = rate_of(label, "sqlite"), rate_of(label, "postgresql")
        reference_cell, reference_ratio = "—", "—"
        if label == submission:
            reference_cell = f"{figure(batched)} ({BATCH}/tx, 4 clients)"
            reference_ratio = ratio(postgres, batched)
        lines.append(f"| {label} | {figure(sqlite)} | {figure(postgres)} | {ratio(postgres, sqlite)} "
                     f"| {reference_cell} | {reference_ratio} |")
        if label == submission:
            for percentile in ("p50", "p99"):
                latency = results["latency"].get(label, {})
                sqlite_ms = [value / 1000 for value in latency.get("sqlite", {}).get(f"{percentile}_us", [])]
                postgres_ms = [value / 1000 for value in latency.get("postgresql", {}).get(f"{percentile}_us", [])]
                lines.append(f"| {label}: {percentile} ms under the load | {figure(sqlite_ms, 1)} | {figure(postgres_ms, 1)} "
                             f"| {ratio(postgres_ms, sqlite_ms)} | — | — |")
    submitted = rate_of(submission, "postgresql")
    lines.append(f"| {batched_label} (submissions/s = tps x {BATCH}) | — | — | — | {figure(batched)} "
                 f"| {ratio(submitted, batched)} |")
    lines.append(f"| {single_label} (submissions/s = tps) | — | — | — | {figure(single)} | {ratio(submitted, single)} |")
    lines += [
        "",
        "PostgreSQL / reference: Podium's durable score submissions on PostgreSQL over pgbench writing the same rows. "
        "Latency: podium-load --latency under the full load; it matches each reply to the oldest request in flight on "
        "its DEALER, exact when a connection's replies come back in the order sent (a reply overtaking another "
        "shifts both samples). The reference writes what a submission writes, without Podium's reads (the stored "
        "entries and receipts of the batch), numbers its outbox from a sequence (Podium takes the outbox's lock and "
        "numbers after the highest, gap-free in commit order) and upserts every entry (Podium only a better score).",
        "",
        "Group commit (from the processes' /metrics over each run, warm-up included), mean per transaction:",
        "",
    ]
    for label, backends in results["commits"].items():
        for backend, runs in backends.items():
            parts = []
            for commits in runs:
                for one in (commits if isinstance(commits, list) else [commits]):
                    if one:
                        parts.append(f"{one['mean_batch']} per transaction, {one['mean_commit_ms']} ms")
            lines.append(f"- {label}, {backend}: " + ("; ".join(parts) if parts else "no transactions seen"))
    lines += ["", "Error replies (podium-load counts replies of type error in the measured seconds and shows the first; "
              "by code from the gateways' podium_gateway_requests_total, warm-up included):", ""]
    any_errors = False
    for label, backends in results["errors"].items():
        for backend, runs in backends.items():
            for index, record in enumerate(runs):
                if record["podium_load_errors"] or record["by_code"]:
                    any_errors = True
                    first = record["first_errors"][0][:160] if record["first_errors"] else ""
                    lines.append(f"- {label}, {backend}, run {index + 1}: {record['podium_load_errors']:,} of "
                                 f"{record['answered']:,} replies; by code {record['by_code']}; first: `{first}`")
    if not any_errors:
        lines.append("- none")
    failed = sum(outcome["failed"] for outcomes in results["pgbench"].values() for outcome in outcomes)
    lines.append(f"- pgbench failed transactions: {failed}")
    (out / "postgres-stack.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    print(f"postgres stack bench: {results['wall_seconds']} s in all; wrote {out}/postgres-stack.json and postgres-stack.md")


if __name__ == "__main__":
    main()
