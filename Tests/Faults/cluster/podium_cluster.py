#!/usr/bin/env python3
"""Podium across hosts: several gateways and services on network namespaces, a whole host lost
and a link cut under load, nothing acknowledged lost and nothing applied twice.

Started by scripts/cluster, which builds the binaries, makes the hosts (network namespaces on one
bridge), the bus keys and the PostgreSQL server, and passes them here. The stream, the clients,
the convergence wait, the snapshot and the receipt check are the chaos test's
(Tests/Faults/chaos/podium_chaos.py); this file places the processes on hosts and runs the
faults that only a cluster has:

  * run A: the cluster, fault-free, on a fresh database;
  * run B: the same stream on another fresh database while, each under load, a gateway host is
    killed (every process in it, SIGKILL) and later restarted, the other gateway's link is cut
    (`ip link set ... down`) and restored, and a services host is killed and restarted;
  * two instances of every service, one on each services host, sharing each service's partitions
    (leases in PostgreSQL, PODIUM_PARTITIONS of them: the leaderboard by board, achievements by
    player, challenges by id, auth unkeyed, so both instances of every service serve at once); when a
    host dies the other instance takes its partitions once their leases have expired, and a third
    instance of every service joins mid-run on host svc3 and takes its share. For each service
    that lost partitions, the verdict prints how long until every partition had an owner again
    (the time requests for them failed);
  * from the lease history (`podium_lease_history` in each service's schema): every partition
    had at most one owner at every moment; from each instance's metrics (scraped every second):
    the partitions it served requests for, each one it held, and the requests it carried;
  * verdict as in scripts/chaos: every request acknowledged, receipt.get finds each one, and
    the state after run B equals run A's. Printed beside it: for each fault, how long the
    requests first sent while it lasted took to be acknowledged, retries included (how long
    clients waited for the rest of the cluster to carry on without the lost part).
"""

import argparse
import collections
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "chaos"))
import podium_chaos as chaos  # noqa: E402

GATEWAYS = ("gw1", "gw2")
# Two instances of every service, one on each services host, and a third that joins mid-run.
INSTANCES = (1, 2)
JOINING = 3
LEASE_MS = 3000
# The gateways' HTTP front, and HAProxy's in front of both (on the bridge, where the clients run).
HTTP_PORT = 8080
BALANCER = ("10.78.0.1", 18080)
# HTTP players (their own accounts) and the board they submit to, apart from the stream's.
HTTP_GAME, HTTP_BOARD = "whackacac", "com.dragonforged.whackacac.leaderboard"
# Each service's operations listener (metrics) on its host.
METRICS_PORT = {"auth": 9552, "leaderboard": 9553, "achievement": 9554, "challenge": 9555}


def service_of(name):
    """The service a process name (auth-1, leaderboard-2, ...) runs."""
    return name.rsplit("-", 1)[0]


def log(message):
    print(f"cluster: {message}", flush=True)


class ClusterStack:
    """The processes of one run, each on its host (a network namespace), with CURVE on the bus.

    The same interface as the chaos test's Stack: start/kill/wait_ready/call/admin/stop_all/
    exited, `requests` (the first gateway) and `request_endpoints` (every gateway)."""

    def __init__(self, name, args, hosts, placement, database_url):
        self.name, self.args, self.hosts, self.placement = name, args, hosts, placement
        self.root = os.path.join(args.tmp, name)
        self.logs = os.path.join(self.root, "logs")
        os.makedirs(self.logs, exist_ok=True)
        self.admin_key = chaos.random_key()
        token_key = chaos.random_key()
        gateway_address = {g: hosts[g] for g in GATEWAYS}
        self.request_endpoints = [f"tcp://{gateway_address[g]}:5555" for g in GATEWAYS]
        self.requests = self.request_endpoints[0]
        self.notifications = f"tcp://{gateway_address[GATEWAYS[0]]}:5556"
        keys = args.keys
        base = {k: v for k, v in os.environ.items() if not k.startswith("PODIUM_")}
        base.update({
            "PODIUM_LOG_LEVEL": os.environ.get("PODIUM_LOG_LEVEL", "error"),
            "PODIUM_DATABASE_URL": database_url,
            "PODIUM_GAMES_DIR": args.games,
            "PODIUM_SESSION_TTL_S": "86400",
            "PODIUM_HTTP": "off",
            "PODIUM_METRICS": "off",
            "PODIUM_HEARTBEAT_MS": "500",
        })
        secrets = {"PODIUM_AUTH_TOKEN_KEY": token_key, "PODIUM_NOTIFICATION_SECRET": chaos.random_key(),
                   "PODIUM_ADMIN_KEY": self.admin_key,
                   "PODIUM_GAME_SERVER_KEYS": f"dash={chaos.random_key()},blackjack={chaos.random_key()}"}
        hub_key = open(os.path.join(keys, "gateway.pub")).read().strip()
        self.env = {}
        for gateway in GATEWAYS:
            address = gateway_address[gateway]
            self.env[gateway] = dict(base, **secrets, **{
                "PODIUM_INSTANCE_ID": f"gateway-{gateway}",
                "PODIUM_DATA": os.path.join(self.root, "data", gateway),
                "PODIUM_GATEWAY_REQUESTS": f"tcp://{address}:5555",
                "PODIUM_GATEWAY_NOTIFICATIONS": f"tcp://{address}:5556",
                "PODIUM_BUS_PUBLISH": f"tcp://{address}:5560",
                "PODIUM_BUS_SUBSCRIBE": f"tcp://{address}:5561",
                "PODIUM_BUS_SERVICES": f"tcp://{address}:5562",
                "PODIUM_BUS_SECRET_KEY_FILE": os.path.join(keys, "gateway.key"),
                "PODIUM_BUS_ALLOWED_KEYS_FILE": os.path.join(keys, "allowed"),
                "PODIUM_HTTP": f"{address}:{HTTP_PORT}",
            })
        hubs = {port: ",".join(f"tcp://{gateway_address[g]}:{port}" for g in GATEWAYS) for port in (5560, 5561, 5562)}
        for service in chaos.SERVICES:
            for instance in INSTANCES + (JOINING,):
                name = f"{service}-{instance}"
                address = hosts[self.host_of(name)]
                self.env[name] = dict(base, **{
                    "PODIUM_INSTANCE_ID": name,
                    "PODIUM_DATA": os.path.join(self.root, "data", name),
                    "PODIUM_BUS_PUBLISH": hubs[5560],
                    "PODIUM_BUS_SUBSCRIBE": hubs[5561],
                    "PODIUM_BUS_SERVICES": hubs[5562],
                    "PODIUM_BUS_SECRET_KEY_FILE": os.path.join(keys, f"{service}.key"),
                    "PODIUM_BUS_SERVER_KEY": hub_key,
                    "PODIUM_LEASE_MS": str(LEASE_MS),
                    "PODIUM_METRICS": f"{address}:{METRICS_PORT[service]}",
                })
                if service == "auth":
                    self.env[name]["PODIUM_AUTH_TOKEN_KEY"] = token_key
        self.procs = {}
        self.starts = collections.Counter()
        self.ctx = chaos.zmq.Context.instance()

    def host_of(self, name):
        return next(host for host, names in self.placement.items() if name in names)

    def start(self, name):
        host = self.host_of(name)
        binary = "podium-gateway" if name in GATEWAYS else f"podium-{service_of(name)}"
        out = open(os.path.join(self.logs, f"{name}.log"), "ab")
        self.procs[name] = subprocess.Popen(
            ["ip", "netns", "exec", self.args.netns_prefix + host, os.path.join(self.args.bin, binary)],
            env=self.env[name], stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
        out.close()
        self.starts[name] += 1

    def names(self):
        return list(GATEWAYS) + [f"{s}-{i}" for i in INSTANCES for s in chaos.SERVICES]

    def holdings(self):
        """Which partitions each live instance of each service holds, as their health says
        (`<service>.health` goes to any instance, so every gateway is asked a few times)."""
        held = {}
        for service in chaos.SERVICES:
            seen = {}
            for _ in range(6):
                reply = self.call({"type": f"{service}.health", "adminKey": self.admin_key}, 1.0)
                if reply and reply["type"] == "reply":
                    health = reply["payload"]
                    seen[health.get("instance")] = health.get("partitions") or []
            held[service] = seen
        return held

    def partition_count(self, service):
        reply = self.call({"type": f"{service}.health", "adminKey": self.admin_key}, 1.0)
        if reply and reply["type"] == "reply":
            return reply["payload"].get("partitionCount") or 1
        return 1

    def wait_covered(self, service, lost, seconds):
        """Seconds until instances other than `lost` hold every partition of `service` (None:
        not within `seconds`): how long requests for the lost partitions failed."""
        count = self.partition_count(service)
        started = time.monotonic()
        while time.monotonic() - started < seconds:
            covered = set()
            for _ in range(6):
                reply = self.call({"type": f"{service}.health", "adminKey": self.admin_key}, 0.5)
                if reply and reply["type"] == "reply" and reply["payload"].get("instance") not in lost:
                    covered.update(reply["payload"].get("partitions") or [])
            if covered >= set(range(count)):
                return time.monotonic() - started
            time.sleep(0.05)
        return None

    def wait_share(self, name, seconds):
        """Seconds until a joining instance holds its share of its service's partitions (its
        health, asked directly is not possible over the gateway, so the share is read from
        every instance's health)."""
        service = service_of(name)
        count = self.partition_count(service)
        started = time.monotonic()
        while time.monotonic() - started < seconds:
            held = self.holdings()[service]
            live = max(1, len(held))
            if len(held.get(name, [])) >= count // live:
                return time.monotonic() - started
            time.sleep(0.1)
        return None

    def start_all(self):
        for name in self.names():
            self.start(name)
        if not self.wait_ready(90):
            raise RuntimeError(f"run {self.name}: the cluster was not ready within 90 s (logs in {self.logs})")

    def kill(self, name, sig=signal.SIGKILL):
        proc = self.procs[name]
        proc.send_signal(sig)
        proc.wait(30)

    def kill_host(self, host):
        """Every process of the host at once, as a power cut would."""
        names = [n for n in self.placement[host] if n in self.procs and self.procs[n].poll() is None]
        for name in names:
            self.procs[name].send_signal(signal.SIGKILL)
        for name in names:
            self.procs[name].wait(30)
        return names

    def start_host(self, host):
        for name in self.placement[host]:
            self.start(name)

    def stop_all(self):
        order = self.names() + [n for n in self.procs if n not in self.names()]
        for name in reversed(order):
            proc = self.procs.get(name)
            if proc and proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 15
        for name in reversed(order):
            proc = self.procs.get(name)
            if proc is None:
                continue
            try:
                proc.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def exited(self):
        return {n: p.returncode for n, p in self.procs.items() if p.poll() is not None}

    def call(self, request, timeout=3.0, endpoint=None):
        """One request on a fresh DEALER to one gateway (the first that answers, in turn)."""
        endpoints = [endpoint] if endpoint else self.request_endpoints
        for target in endpoints:
            reply = self._call(request, timeout / len(endpoints), target)
            if reply is not None:
                return reply
        return None

    def _call(self, request, timeout, endpoint):
        return chaos.call_once(self.ctx, endpoint, request, timeout)

    def wait_ready(self, seconds, name=None):
        """Until every gateway (or the one named) says every service is ready."""
        deadline = time.monotonic() + seconds
        targets = self.request_endpoints
        if name in GATEWAYS:
            targets = [self.request_endpoints[GATEWAYS.index(name)]]
        while time.monotonic() < deadline:
            if all(self._ready(endpoint) for endpoint in targets):
                return True
            time.sleep(0.2)
        return False

    def _ready(self, endpoint):
        reply = self._call({"type": "health"}, 3, endpoint)
        return bool(reply and reply["type"] == "reply" and reply["payload"].get("ready"))

    def admin(self, type_, payload, timeout=5):
        return self.call({"type": type_, "adminKey": self.admin_key, "payload": payload}, timeout)


class MetricsScraper(threading.Thread):
    """Reads every service instance's metrics once a second and keeps, for each incarnation of
    each instance, its last answer: what it served, by partition, until it stopped or was killed."""

    def __init__(self, stack):
        super().__init__(daemon=True, name="metrics")
        self.stack = stack
        self.last = {}  # (name, incarnation) -> metrics text
        self.stopped = threading.Event()

    def run(self):
        while not self.stopped.wait(1.0):
            self.scrape()

    def scrape(self):
        for name, proc in list(self.stack.procs.items()):
            if name in GATEWAYS or proc.poll() is not None:
                continue
            address = self.stack.hosts[self.stack.host_of(name)]
            url = f"http://{address}:{METRICS_PORT[service_of(name)]}/metrics"
            try:
                with urllib.request.urlopen(url, timeout=0.5) as response:
                    self.last[(name, self.stack.starts[name])] = response.read().decode()
            except OSError:
                pass

    def served(self):
        """instance -> {"served": {partition: requests}, "refused": requests}, summed over its incarnations."""
        result = collections.defaultdict(lambda: {"served": collections.Counter(), "refused": 0})
        for (name, _), text in self.last.items():
            for line in text.splitlines():
                if not line.startswith("podium_partition_requests_total{"):
                    continue
                labels, _, value = line.rpartition(" ")
                fields = dict(part.split("=", 1) for part in labels[labels.index("{") + 1:-1].split(","))
                fields = {k: v.strip('"') for k, v in fields.items()}
                count = int(float(value))
                if fields.get("outcome") == "served":
                    result[name]["served"][int(fields["partition"])] += count
                else:
                    result[name]["refused"] += count
        return result


def lease_history(url):
    """Every service schema's `podium_lease_history`: schema -> rows (partition, epoch, owner,
    taken_at, held_until), read with psql."""
    query = ("SELECT table_schema FROM information_schema.tables WHERE table_name = 'podium_lease_history' "
             "ORDER BY 1")
    schemas = subprocess.run(["psql", "-X", "-A", "-t", "-d", url, "-c", query], capture_output=True, text=True,
                             check=True).stdout.split()
    history = {}
    for schema in schemas:
        out = subprocess.run(
            ["psql", "-X", "-A", "-t", "-F", "\t", "-d", url, "-c",
             f"SELECT partition, epoch, owner, taken_at, held_until FROM {schema}.podium_lease_history "
             "ORDER BY partition, epoch"], capture_output=True, text=True, check=True).stdout
        rows = []
        for line in out.splitlines():
            if line.strip():
                partition, epoch, owner, taken, until = line.split("\t")
                rows.append((int(partition), int(epoch), owner, int(taken), int(until)))
        history[schema] = rows
    return history


def overlapping_holdings(rows):
    """Pairs of holdings of one partition that overlap in time (each holding: taken_at until
    held_until), and the owner changes counted: an empty list means one owner at every moment."""
    problems = []
    by_partition = collections.defaultdict(list)
    for row in rows:
        by_partition[row[0]].append(row)
    for partition, held in by_partition.items():
        held.sort(key=lambda r: r[1])
        for before, after in zip(held, held[1:]):
            if after[3] < before[4]:
                problems.append(f"partition {partition}: epoch {after[1]} ({after[2]}) taken at {after[3]}, "
                                f"while epoch {before[1]} ({before[2]}) held until {before[4]}")
    return problems


class Balancer:
    """HAProxy in front of the two gateways' HTTP fronts: round robin, health checks every
    500 ms on `/v1/gateway/health`, a gateway taken out after two failed checks."""

    def __init__(self, root, hosts):
        self.config = os.path.join(root, "haproxy.cfg")
        servers = "\n".join(f"    server {g} {hosts[g]}:{HTTP_PORT} check" for g in GATEWAYS)
        with open(self.config, "w") as f:
            f.write(f"""global
    maxconn 512
defaults
    mode http
    timeout connect 1s
    timeout client 30s
    timeout server 10s
    retries 2
    option redispatch
frontend podium
    bind {BALANCER[0]}:{BALANCER[1]}
    default_backend gateways
backend gateways
    balance roundrobin
    option httpchk GET /v1/gateway/health
    default-server inter 500ms fall 2 rise 2
{servers}
""")
        self.log = open(os.path.join(root, "haproxy.log"), "ab")
        self.proc = subprocess.Popen(["haproxy", "-db", "-f", self.config], stdout=self.log, stderr=subprocess.STDOUT)
        self.url = f"http://{BALANCER[0]}:{BALANCER[1]}"

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.log.close()


class HTTPLoad(threading.Thread):
    """Players over HTTP through the balancer, beside the stream: each submits scores 1..N to a
    board of their own game with an Idempotency-Key, resending the same key on any failure
    (a connection cut, 502/503/504, 429) until answered. Afterwards each player's entry must be
    N: every acknowledged score there, none lost."""

    def __init__(self, url, tag, players, per_player, pause):
        super().__init__(daemon=True, name="http")
        self.url, self.tag, self.per_player, self.pause = url, tag, per_player, pause
        self.players = [f"h{tag}x{i}" for i in range(players)]
        self.tokens = {}
        self.statuses = collections.Counter()
        self.acked = 0
        self.resends = 0
        self.longest = 0.0
        self.failure = None
        self.duration = 0.0

    def request(self, method, path, body=None, token=None, key=None, timeout=7.0):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        if key:
            request.add_header("Idempotency-Key", key)
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            # HAProxy answers for the gateways with a page of its own (503 while none is up).
            try:
                return error.code, json.loads(error.read() or b"null")
            except ValueError:
                return error.code, None
        except (OSError, ValueError):
            return None, None

    def until_answered(self, method, path, body=None, token=None, key=None):
        started = time.monotonic()
        while time.monotonic() - started < 90:
            status, reply = self.request(method, path, body, token, key)
            self.statuses[status or "no answer"] += 1
            if status is not None and status < 500 and status != 429:
                self.longest = max(self.longest, time.monotonic() - started)
                return status, reply
            self.resends += 1
            time.sleep(0.2)
        raise RuntimeError(f"{method} {path}: no answer within 90 s")

    def setup(self):
        credentials = {"password": "correct horse battery"}
        for name in self.players:
            status, grant = self.until_answered(
                "POST", "/v1/accounts", dict(credentials, username=name), key=f"reg-{name}")
            if status == 409 and (grant or {}).get("code") == "username_taken":
                # A registration keeps no receipt: a resend after an answer that was lost (a
                # timeout on a busy machine) finds the account made; log in to it instead.
                status, grant = self.until_answered("POST", "/v1/sessions", dict(credentials, username=name))
            if status not in (200, 201):
                raise RuntimeError(f"HTTP registration of {name}: {status} {grant}")
            self.tokens[name] = grant["sessionToken"]

    def run(self):
        started = time.monotonic()
        try:
            path = f"/v1/games/{HTTP_GAME}/leaderboards/{HTTP_BOARD}/scores"
            for value in range(1, self.per_player + 1):
                for name in self.players:
                    status, reply = self.until_answered(
                        "POST", path, {"value": value}, self.tokens[name], key=f"{name}-{value}")
                    if status != 200:
                        raise RuntimeError(f"HTTP submission {name} {value}: {status} {reply}")
                    self.acked += 1
                # Paced to last about as long as the stream, so the faults happen under it.
                time.sleep(self.pause)
        except Exception as error:
            self.failure = repr(error)
        self.duration = time.monotonic() - started

    def check(self):
        """Players whose entry is not the last (best) score they submitted."""
        wrong = {}
        for name in self.players:
            status, reply = self.until_answered(
                "GET", f"/v1/games/{HTTP_GAME}/leaderboards/{HTTP_BOARD}/entry", token=self.tokens[name])
            value = ((reply or {}).get("entry") or {}).get("value")
            if value != self.per_player:
                wrong[name] = value
        return wrong


class Network:
    """Cuts and restores a host's link (its veth on the bridge side)."""

    def __init__(self, prefix):
        self.prefix = prefix

    def link(self, host, up):
        subprocess.run(["ip", "link", "set", f"{self.prefix}{host}", "up" if up else "down"], check=True)


class Faults(threading.Thread):
    """Run B's faults, each when the stream reaches its share, and the longest stall around each."""

    def __init__(self, run, stack, network, total, actions):
        super().__init__(daemon=True, name="faults")
        self.run_, self.stack, self.network, self.total, self.actions = run, stack, network, total, actions
        self.done = threading.Event()
        self.kills = collections.Counter()
        self.restarts = collections.Counter()
        self.notes = []
        self.failure = None
        self.windows = {}  # action -> (start, end) of the fault, monotonic
        self.waits = {}  # action -> what the requests sent around it waited (see longest_wait)
        self.takeovers = {}  # action -> {service: seconds until its lost partitions had owners again}
        self.joins = {}  # host -> {service: seconds until the joining instance held its share}

    def note(self, text):
        self.notes.append(text)
        log(f"B: {text}")

    def longest_wait(self, start, end):
        """How long the requests first sent while the fault lasted (or up to 1 s before it) took
        from their first send to their acknowledgement, retries included: the longest, the
        median, and how many there were. That is what a client saw while part of the cluster
        was gone, until the rest carried on without it or it came back."""
        ledger = self.run_.ledger
        with ledger.lock:
            times = sorted(ledger.acked_at[i] - t for i, t in ledger.first_sent.items()
                           if start - 1.0 <= t <= end and i in ledger.acked_at)
        if not times:
            return {"requests": 0}
        return {"requests": len(times), "longest_s": round(times[-1], 2), "median_s": round(times[len(times) // 2], 3),
                "over_1s": sum(1 for t in times if t > 1.0), "fault_s": round(end - start, 2)}

    def run(self):
        step = self.total / (len(self.actions) + 1)
        try:
            for i, action in enumerate(self.actions):
                threshold = step * (i + 1)
                self.run_.gate = threshold + step / 2
                while self.run_.ledger.progress() < threshold:
                    if self.done.is_set():
                        self.note(f"stream ended before '{action}' (not run)")
                        return
                    time.sleep(0.05)
                # The stream may run almost a whole share further while the fault lasts.
                self.run_.gate = threshold + step * 0.9
                started = time.monotonic()
                self.perform(action)
                ended = time.monotonic()
                self.run_.gate = threshold + step
                # Let the requests sent during the fault finish before they are measured.
                time.sleep(min(10.0, chaos.REPLY_TIMEOUT + 1))
                self.windows[action] = (started, ended)
                self.waits[action] = self.longest_wait(started, ended)
                self.note(f"{action}: {self.waits[action]}")
        except Exception as error:
            self.failure = repr(error)
            log(f"B: fault schedule failed: {error!r}")
        finally:
            self.run_.gate = float("inf")
            self.done.wait()

    def perform(self, action):
        kind, _, host = action.partition(":")
        at = self.run_.ledger.progress()
        if kind == "host":
            holdings = self.stack.holdings() if host.startswith("svc") else {}
            killed_at = time.monotonic()
            names = self.stack.kill_host(host)
            for name in names:
                self.kills[name] += 1
            self.note(f"host {host} killed at {at} acknowledged ({', '.join(names)})")
            lost = {s: sorted(p for i, parts in held.items() if i in names for p in parts)
                    for s, held in holdings.items()}
            lost = {s: p for s, p in lost.items() if p}
            if lost:
                # The instances on the other hosts take the lost partitions once their leases expire.
                waits = {}
                for service in sorted(lost):
                    took = self.stack.wait_covered(service, names, 30)
                    waits[service] = None if took is None else round(time.monotonic() - killed_at, 2)
                self.takeovers[f"host:{host}"] = waits
                self.note(f"partitions lost with {host}: {lost}; seconds until every partition had an owner again: {waits}")
            time.sleep(self.args_down())
            self.stack.start_host(host)
            for name in names:
                self.restarts[name] += 1
            ready = self.stack.wait_ready(90)
            self.note(f"host {host} restarted, cluster ready again: {ready}")
            if not ready:
                raise RuntimeError(f"the cluster did not become ready after {host} restarted")
        elif kind == "join":
            joined_at = time.monotonic()
            names = [f"{s}-{JOINING}" for s in chaos.SERVICES]
            for name in names:
                self.stack.start(name)
            self.note(f"instances {', '.join(names)} joined on {host} at {at} acknowledged")
            waits = {}
            for name in names:
                took = self.stack.wait_share(name, 30)
                waits[service_of(name)] = None if took is None else round(time.monotonic() - joined_at, 2)
            self.joins[host] = waits
            self.note(f"seconds until each joining instance held its share: {waits}")
        elif kind == "link":
            self.network.link(host, False)
            self.note(f"link of {host} cut at {at} acknowledged")
            time.sleep(self.args_down())
            self.network.link(host, True)
            ready = self.stack.wait_ready(90)
            self.note(f"link of {host} restored, cluster ready again: {ready}")
            if not ready:
                raise RuntimeError(f"the cluster did not become ready after the link of {host} came back")
        else:
            raise RuntimeError(f"unknown fault {action}")

    def args_down(self):
        return random.uniform(3.0, 5.0)

    def join(self, timeout=None):
        self.done.set()
        super().join(timeout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", required=True)
    parser.add_argument("--games", required=True)
    parser.add_argument("--tmp", required=True)
    parser.add_argument("--keys", required=True)
    parser.add_argument("--hosts", required=True, help="JSON: host name -> address")
    parser.add_argument("--netns-prefix", required=True)
    parser.add_argument("--postgres-script", required=True)
    parser.add_argument("--postgres", required=True, help="the scripts/postgres cluster directory")
    parser.add_argument("--ops", type=int, default=20000)
    parser.add_argument("--players", type=int, default=16)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--short", action="store_true")
    parser.add_argument("--report", default=None)
    args = parser.parse_args()
    hosts = json.loads(args.hosts)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 10**9)
    t0 = time.monotonic()
    # Which processes run on which host: a gateway on each of two hosts, the services split over
    # two more, PostgreSQL on its own (started by scripts/cluster).
    placement = {"gw1": ["gw1"], "gw2": ["gw2"], "svc1": [f"{s}-1" for s in chaos.SERVICES],
                 "svc2": [f"{s}-2" for s in chaos.SERVICES], "svc3": [f"{s}-{JOINING}" for s in chaos.SERVICES]}
    actions = ["host:gw1", "link:gw2", "join:svc3", "host:svc1"] if args.short else \
        ["host:gw1", "link:gw2", "join:svc3", "host:svc1", "host:gw2", "link:svc2", "host:svc2", "link:gw1"]

    rounds, friends, total, expected_boards = chaos.build_stream(seed, args.ops, args.players)
    log(f"seed {seed}: {total} operations for {args.players} players on {args.clients} clients; faults: {', '.join(actions)}")

    def database(run):
        made = subprocess.run([args.postgres_script, "createdb", args.postgres, f"cluster_{seed}_{run}"],
                              capture_output=True, text=True)
        if made.returncode != 0:
            raise RuntimeError(f"scripts/postgres createdb failed: {made.stderr[-300:]}")
        return made.stdout.strip()

    chaos_args = argparse.Namespace(clients=args.clients)
    problems = []
    stacks = []
    faults = None
    try:
        stack_a = ClusterStack("A", args, hosts, placement, database("a"))
        stacks.append(stack_a)
        stack_a.start_all()
        run_a = chaos.Run("A", stack_a, chaos_args)
        run_a.setup(args.players, friends)
        duration_a = chaos.run_stream(run_a, rounds, args.players, total)
        log(f"A: stream done in {duration_a:.1f} s ({total / duration_a:.0f} ops/s); waiting for convergence")
        run_a.wait_converged()
        state_a = run_a.snapshot(args.players)
        receipts_a = run_a.check_receipts()
        stack_a.stop_all()
        for board, expected in expected_boards.items():
            want = {f"P{p}": v for p, v in expected.items()}
            if state_a[f"board {board}"] != want:
                problems.append(f"run A: board {board} differs from the stream's model")

        url_b = database("b")
        stack_b = ClusterStack("B", args, hosts, placement, url_b)
        stacks.append(stack_b)
        stack_b.start_all()
        scraper = MetricsScraper(stack_b)
        scraper.start()
        balancer = Balancer(stack_b.root, hosts)
        http = HTTPLoad(balancer.url, seed % 100000, 4, 60 if args.short else 300, 0.7 if args.short else 0.4)
        http.setup()
        http.start()
        run_b = chaos.Run("B", stack_b, chaos_args)
        run_b.setup(args.players, friends)
        faults = Faults(run_b, stack_b, Network(args.netns_prefix), total, actions)
        faults.start()
        duration_b = chaos.run_stream(run_b, rounds, args.players, total, faults)
        log(f"B: stream done in {duration_b:.1f} s; waiting for convergence")
        http.join(300)
        http_wrong = http.check()
        balancer.stop()
        run_b.wait_converged()
        state_b = run_b.snapshot(args.players)
        receipts_b = run_b.check_receipts()
        exits = stack_b.exited()
        scraper.stopped.set()
        scraper.join(5)
        scraper.scrape()
        served = scraper.served()
        stack_b.stop_all()
        history = lease_history(url_b)
    finally:
        for stack in stacks:
            stack.stop_all()

    diff = chaos.diff_states(state_a, state_b)
    for label, run, receipts in (("A", run_a, receipts_a), ("B", run_b, receipts_b)):
        ledger = run.ledger
        if len(ledger.acked) != total:
            problems.append(f"run {label}: {total - len(ledger.acked)} operations never acknowledged")
        for op, error in ledger.rejected[:5]:
            problems.append(f"run {label}: {op['type']} {op['id']} rejected: {error.get('code')}: {error.get('message')}")
        if receipts["notFound"]:
            problems.append(f"run {label}: receipt.get found:false for {len(receipts['notFound'])} acknowledged ids")
        if receipts["unanswered"]:
            problems.append(f"run {label}: {receipts['unanswered']} receipt.get never answered")
    if diff:
        problems.append(f"state differs between A and B in {len(diff)} places")
    if faults.failure:
        problems.append(f"fault schedule failed: {faults.failure}")
    missing = [a for a in actions if a not in faults.waits]
    if missing:
        problems.append(f"faults not run: {missing}")
    if exits:
        problems.append(f"run B: processes exited on their own: {exits}")
    for action, waits in faults.takeovers.items():
        for service, seconds in waits.items():
            if seconds is None:
                problems.append(f"{action}: no other {service} instance took over within 30 s")
    if http.failure:
        problems.append(f"HTTP through HAProxy: {http.failure}")
    if http_wrong:
        problems.append(f"HTTP through HAProxy: entries not at the last acknowledged score: {http_wrong}")
    for host, waits in faults.joins.items():
        for service, seconds in waits.items():
            if seconds is None:
                problems.append(f"join:{host}: the joining {service} instance did not get its share within 30 s")
    # One owner of each partition at every moment, and each instance served only partitions it held.
    held_by = collections.defaultdict(set)
    for schema, rows in history.items():
        problems += [f"{schema}: {p}" for p in overlapping_holdings(rows)]
        for partition, _, owner, _, _ in rows:
            held_by[owner].add(partition)
    for name, counts in sorted(served.items()):
        never_held = sorted(set(counts["served"]) - held_by[name])
        if never_held:
            problems.append(f"{name} served requests of partitions it never held: {never_held}")
    partitioned = sorted({service_of(n) for n, c in served.items() if c["served"]})
    for service in partitioned:
        carried = [n for n, c in served.items() if service_of(n) == service and sum(c["served"].values()) > 0]
        if len(carried) < 2:
            problems.append(f"{service}: only {carried} served requests; its instances were to share them")

    print()
    print("==== cluster verdict")
    print(f"seed {seed}; {total} state-changing operations; hosts {', '.join(f'{h} {a}' for h, a in sorted(hosts.items()))}")
    print(f"placement: {json.dumps(placement)}; the bus with CURVE; gateways share PostgreSQL on host db")
    for label, run, duration, receipts in (("A (no faults)", run_a, duration_a, receipts_a),
                                           ("B (faults)", run_b, duration_b, receipts_b)):
        l = run.ledger
        print(f"run {label}: {l.sends} sent, {len(l.acked)} acknowledged, {l.retries} retried ({dict(l.errors)}; "
              f"{l.timeouts} timeouts, {l.reconnects} reconnects), {l.duplicates} acknowledged as duplicate, "
              f"{len(l.rejected)} rejected; stream {duration:.1f} s; receipt.get {receipts['answered']} answered, "
              f"{len(receipts['notFound'])} not found")
    print(f"run B faults: kills {dict(faults.kills)}, restarts {dict(faults.restarts)}")
    for note in faults.notes:
        print(f"    {note}")
    print(f"takeover (seconds from a host kill until every partition it held had another owner; lease {LEASE_MS} ms):")
    for action, waits in faults.takeovers.items():
        print(f"    {action}: {json.dumps(waits)}")
    print(f"HTTP through HAProxy (run B): {http.acked} scores acknowledged for {len(http.players)} players in "
          f"{http.duration:.1f} s ({http.acked / max(http.duration, 0.001):.0f}/s), {http.resends} resends, "
          f"statuses {dict(http.statuses)}, longest until answered {http.longest:.2f} s; "
          f"entries wrong: {len(http_wrong)}")
    print("joining instances (seconds from their start until they held their share):")
    for host, waits in faults.joins.items():
        print(f"    join:{host}: {json.dumps(waits)}")
    print("lease history (run B): holdings of partitions, owner changes, overlaps:")
    for schema, rows in sorted(history.items()):
        owners = collections.Counter(r[2] for r in rows)
        print(f"    {schema}: {len(rows)} holdings of {len({r[0] for r in rows})} partitions, "
              f"{len(overlapping_holdings(rows))} overlapping; by owner {dict(sorted(owners.items()))}")
    print(f"requests served by partition key, per instance (run B, stream {duration_b:.1f} s):")
    for name, counts in sorted(served.items()):
        total_served = sum(counts["served"].values())
        print(f"    {name}: {total_served} served ({total_served / duration_b:.0f}/s) in partitions "
              f"{sorted(counts['served'])}, {counts['refused']} refused (partition not held)")
    print("requests first sent during each fault, first send to acknowledgement (retries included):")
    for action, wait in faults.waits.items():
        print(f"    {action}: {json.dumps(wait)}")
    print(f"lost (acknowledged, then not found): {len(receipts_a['notFound']) + len(receipts_b['notFound'])}; "
          f"state views compared: {len(state_a)}; diff: {len(diff)}")
    for line in diff[:40]:
        print(f"    {line}")
    print(f"total time {time.monotonic() - t0:.1f} s")
    if args.report:
        with open(args.report, "w") as f:
            json.dump({"seed": seed, "problems": problems, "waits": faults.waits, "takeovers": faults.takeovers,
                       "joins": faults.joins, "notes": faults.notes,
                       "served": {n: {"served": dict(c["served"]), "refused": c["refused"]} for n, c in served.items()},
                       "diff": diff}, f, indent=1)
    if problems:
        for problem in problems:
            print(f"FAIL: {problem}")
        print("cluster: FAIL")
        return 1
    print("cluster: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
