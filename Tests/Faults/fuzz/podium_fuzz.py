#!/usr/bin/env python3
"""Hostile-input fuzzer for Podium's public endpoints (scripts/fuzz drives it; see --help).

Against a running stack it:

1. seeds real state through the protocol (players, friends, scores, achievements, challenges),
2. snapshots every service's user-visible state (through the protocol) and the SQLite files,
3. sends N random and mutated messages at the request ROUTER and the notification XPUB, from
   several connections, while well-formed probes on a clean connection must each get exactly
   one reply, and while the processes' RSS is sampled,
4. snapshots again and prints a verdict: messages by category, replies, probes, crashes, RSS per
   process, the state diff, PASS or FAIL (exit status 0 or 1).

No fuzzed message can change state legitimately: valid session tokens only go on read-only
request types, the admin and server keys are never known to this program, and a mutated message
that parses into something a server could accept as a state change is dropped before it is sent
(see `Safety`). The only state-changing requests are those of the seeding phase.

Only pyzmq and the standard library. Written from docs/PROTOCOL.md.
"""

import argparse
import base64
import collections
import hashlib
import hmac
import json
import os
import random
import re
import socket
import sqlite3
import sys
import time
import unicodedata
import uuid

import zmq

MAX_MESSAGE_BYTES = 65536
HARD_FRAME_LIMIT = 1048576  # max(16 x PODIUM_MAX_MESSAGE_BYTES, 1 MiB)
SUBSCRIPTION_LIMIT = 1024
SERVICES = ("auth", "leaderboard", "achievement", "challenge")
GAMES = ("dash", "whackacac", "blackjack")
DASH_BOARD = "com.example.dash.highscore"
TUTORIAL = "com.example.blackjack.tutorial"
REPLY_WAIT = 15.0          # a client's own timeout: well above PODIUM_REQUEST_TIMEOUT_MS (5 s)
PROBE_TIMEOUT = 15.0
PROBE_INTERVAL = 0.25

# Request types that never change state, whatever their payload (PROTOCOL.md sections 7-12).
READ_ONLY_TYPES = {
    "health", "gateway.health", "notifications.subscribe",
    "auth.health", "leaderboard.health", "achievement.health", "challenge.health",
    "auth.profile", "auth.players", "auth.friends.list",
    "leaderboard.top", "leaderboard.around", "leaderboard.entry", "leaderboard.history",
    "leaderboard.boards", "leaderboard.sets",
    "achievement.list",
    "challenge.received", "challenge.issued", "challenge.detail", "challenge.candidates", "challenge.inbox",
}
# Public types (no credential needed) that create or change something when their payload is valid.
PUBLIC_MUTATING_TYPES = {"auth.register", "auth.device-login", "auth.login", "auth.refresh"}
MUTATING_TYPES = {
    "event.publish", "auth.link", "auth.logout", "auth.revoke", "auth.display-name",
    "auth.friends.request", "auth.friends.accept", "auth.friends.decline", "auth.friends.remove",
    "auth.friends.block", "auth.friends.unblock",
    "auth.test-notification", "leaderboard.test-notification", "achievement.test-notification",
    "challenge.test-notification",
    "leaderboard.submit", "leaderboard.admin.define", "leaderboard.admin.remove",
    "achievement.report", "achievement.reset", "achievement.admin.define",
    "challenge.issue", "challenge.start", "challenge.rematch", "challenge.decline", "challenge.inbox.read",
    "auth.session-check", "auth.friends.check", "auth.friends.of",
} | PUBLIC_MUTATING_TYPES
ALL_TYPES = sorted(READ_ONLY_TYPES | MUTATING_TYPES)
# Error codes that mean "not now" rather than "no": they count as replies.
BUSY_CODES = {"rate_limited", "overloaded"}


def log(*args):
    print(*args, flush=True)


def encode(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


# =============================================================================================
# A small blocking client for seeding and snapshots (retries while the gateway says it is busy)


class Client:
    def __init__(self, ctx, endpoint):
        self.sock = ctx.socket(zmq.DEALER)
        self.sock.setsockopt(zmq.LINGER, 0)
        self.sock.connect(endpoint)
        self.counter = 0

    def close(self):
        self.sock.close(linger=0)

    def call(self, request, wait=REPLY_WAIT, busy_wait=120.0):
        """The reply or error envelope for `request`; retries rate_limited/overloaded."""
        give_up = time.monotonic() + busy_wait
        while True:
            self.counter += 1
            request = dict(request, id=f"c-{os.getpid()}-{self.counter}")
            self.sock.send(encode(request))
            deadline = time.monotonic() + wait
            envelope = None
            while time.monotonic() < deadline:
                if not self.sock.poll(100):
                    continue
                candidate = json.loads(self.sock.recv())
                if candidate.get("correlationId") == request["id"]:
                    envelope = candidate
                    break
            if envelope is None:
                raise TimeoutError(f"no reply to {request['type']} within {wait} s")
            payload = envelope.get("payload") or {}
            if envelope["type"] == "error" and payload.get("code") in BUSY_CODES and time.monotonic() < give_up:
                time.sleep(min(5.0, max(0.05, payload.get("retryAfterMilliseconds", 100) / 1000)))
                continue
            return envelope

    def ok(self, request):
        envelope = self.call(request)
        if envelope["type"] != "reply":
            raise RuntimeError(f"{request['type']} failed: {envelope['payload']}")
        return envelope["payload"]


def wait_ready(client, seconds=60):
    deadline = time.monotonic() + seconds
    last = None
    while time.monotonic() < deadline:
        try:
            last = client.call({"type": "health"}, wait=5)
            if last["type"] == "reply" and last["payload"].get("ready"):
                return
        except TimeoutError:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"the stack is not ready: {last}")


# =============================================================================================
# Seeding: real state through the protocol


def seed(client, rng):
    """Registers players and gives them friends, scores, achievements and challenges.
    Returns the world the fuzzer and the snapshots need."""
    tag = f"{rng.getrandbits(32):08x}"
    players = {}
    for name in ("ann", "bob", "cat", "dan", "fuzz"):
        password = f"pw-{uuid.uuid4().hex}"
        grant = client.ok({"type": "auth.register", "payload": {
            "username": f"{name}_{tag}", "password": password, "displayName": name.title()}})
        grant["password"] = password
        players[name] = grant
    device = client.ok({"type": "auth.device-login", "payload": {"deviceId": f"dev-{uuid.uuid4()}", "displayName": "Eve"}})
    players["eve"] = device

    def as_(name, type_, game=None, payload=None):
        request = {"type": type_, "token": players[name]["sessionToken"]}
        if game:
            request["gameId"] = game
        if payload is not None:
            request["payload"] = payload
        return client.ok(request)

    def befriend(a, b):
        as_(a, "auth.friends.request", payload={"playerId": players[b]["playerId"]})
        as_(b, "auth.friends.accept", payload={"playerId": players[a]["playerId"]})

    befriend("ann", "bob")
    befriend("ann", "cat")
    befriend("bob", "eve")
    as_("dan", "auth.friends.request", payload={"playerId": players["ann"]["playerId"]})   # pending
    as_("cat", "auth.friends.block", payload={"playerId": players["dan"]["playerId"]})
    as_("eve", "auth.display-name", payload={"displayName": "Eve the Device"})

    scores = {"ann": 1200, "bob": 900, "cat": 1500, "dan": 300, "eve": 50}
    for name, value in scores.items():
        as_(name, "leaderboard.submit", "dash", {"boardId": DASH_BOARD, "value": value})
        as_(name, "leaderboard.submit", "dash", {"boardId": "com.example.dash.fastest", "value": 10000 - value})
        as_(name, "leaderboard.submit", "dash", {"boardId": "com.example.dash.coins", "value": value // 10})
        as_(name, "leaderboard.submit", "whackacac",
            {"boardId": "com.dragonforged.whackacac.leaderboard", "value": value // 3})
    as_("ann", "leaderboard.submit", "dash", {"boardId": DASH_BOARD, "value": 1300, "context": 7})

    as_("ann", "achievement.report", "blackjack", {"reports": [{"achievementId": TUTORIAL, "percentComplete": 100}]})
    as_("bob", "achievement.report", "blackjack", {"reports": [{"achievementId": TUTORIAL, "percentComplete": 40,
                                                                "reportId": "seed-1"}]})
    as_("cat", "achievement.report", "blackjack",
        {"reports": [{"achievementId": "com.example.blackjack.regular", "steps": 2}]})
    for _ in range(3):
        as_("ann", "event.publish", "whackacac", {"name": "cactus.hit", "attributes": {"matchId": "seed"}})

    score_challenge = as_("ann", "challenge.issue", "dash", {
        "kind": "score", "boardId": DASH_BOARD, "receivers": [players["bob"]["playerId"], players["cat"]["playerId"]],
        "message": "beat this"})
    achievement_challenge = as_("ann", "challenge.issue", "blackjack", {
        "kind": "achievement", "achievementId": TUTORIAL, "receivers": [players["bob"]["playerId"]]})
    as_("cat", "challenge.decline", "dash", {"challengeId": score_challenge["challengeId"]})

    # The rule-driven achievement arrives over the bus: wait until it is there.
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        listing = as_("ann", "achievement.list", "whackacac")
        if any(a["id"].endswith(".killone") and a.get("earned") for a in listing["achievements"]):
            break
        time.sleep(0.1)
    inbox = as_("bob", "challenge.inbox", "dash")
    return {
        "players": players,
        "challenges": [score_challenge["challengeId"], achievement_challenge["challengeId"]],
        "inbox_ids": [item["id"] for item in inbox["items"]],
    }


# =============================================================================================
# Snapshots


def protocol_snapshot(client, world):
    """Every seeded player's user-visible state, through the protocol, without volatile fields."""
    players = world["players"]
    snap = {}
    ids = sorted(p["playerId"] for p in players.values())
    for name, grant in sorted(players.items()):
        token = grant["sessionToken"]

        def get(type_, game=None, payload=None):
            request = {"type": type_, "token": token}
            if game:
                request["gameId"] = game
            if payload is not None:
                request["payload"] = payload
            envelope = client.call(request)
            return envelope["type"], envelope["payload"]

        snap[f"{name}/auth.profile"] = get("auth.profile")
        snap[f"{name}/auth.friends.list"] = get("auth.friends.list")
        snap[f"{name}/auth.players"] = get("auth.players", payload={"playerIds": ids})
        for game in GAMES:
            boards = get("leaderboard.boards", game)
            snap[f"{name}/{game}/leaderboard.boards"] = boards
            if boards[0] == "reply":
                for board in boards[1]["leaderboards"]:
                    board_id = board["id"]
                    snap[f"{name}/{game}/{board_id}/entry"] = get("leaderboard.entry", game, {"boardId": board_id})
                    snap[f"{name}/{game}/{board_id}/history"] = get("leaderboard.history", game, {"boardId": board_id})
                    if name == "fuzz":
                        snap[f"{game}/{board_id}/top"] = get("leaderboard.top", game, {"boardId": board_id, "limit": 200})
            snap[f"{name}/{game}/achievement.list"] = get("achievement.list", game)
            snap[f"{name}/{game}/challenge.received"] = get("challenge.received", game)
            snap[f"{name}/{game}/challenge.issued"] = get("challenge.issued", game)
            snap[f"{name}/{game}/challenge.inbox"] = get("challenge.inbox", game)
    return snap


# Tables whose rows change without user input, left out of the database comparison:
#   bus_checkpoint (every service): the last bus sequence applied per publisher, rewritten for
#   every bus message a service consumes (heartbeats and other services' traffic included).
IGNORED_TABLES = {"bus_checkpoint"}


def database_snapshot(data_dir):
    """{file: {table: sorted rows}} of every SQLite file in the data directory, read-only."""
    snap = {}
    if not data_dir or not os.path.isdir(data_dir):
        return snap
    for file in sorted(os.listdir(data_dir)):
        if not file.endswith(".sqlite"):
            continue
        path = os.path.join(data_dir, file)
        for attempt in range(10):
            try:
                db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
                try:
                    tables = {}
                    names = [row[0] for row in db.execute(
                        "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
                    for table in names:
                        if table in IGNORED_TABLES:
                            continue
                        rows = db.execute(f'SELECT * FROM "{table}"').fetchall()
                        tables[table] = sorted(repr(row) for row in rows)
                    snap[file] = tables
                finally:
                    db.close()
                break
            except sqlite3.OperationalError:
                time.sleep(0.2)
    return snap


def diff_snapshots(before, after, label):
    """Human-readable differences between two {key: value} snapshots."""
    out = []
    for key in sorted(set(before) | set(after)):
        if key not in after:
            out.append(f"{label} {key}: missing after")
        elif key not in before:
            out.append(f"{label} {key}: new after: {str(after[key])[:300]}")
        elif before[key] != after[key]:
            out.append(f"{label} {key}:\n    before {str(before[key])[:600]}\n    after  {str(after[key])[:600]}")
    return out


def diff_databases(before, after):
    out = []
    for file in sorted(set(before) | set(after)):
        tables_before, tables_after = before.get(file, {}), after.get(file, {})
        for table in sorted(set(tables_before) | set(tables_after)):
            rows_before, rows_after = set(tables_before.get(table, [])), set(tables_after.get(table, []))
            for row in sorted(rows_before - rows_after)[:10]:
                out.append(f"sqlite {file}/{table}: row removed: {row[:300]}")
            for row in sorted(rows_after - rows_before)[:10]:
                out.append(f"sqlite {file}/{table}: row added: {row[:300]}")
    return out


# =============================================================================================
# Process checks


def proc_status(pid):
    """(alive, VmRSS kB, VmHWM kB, start time) of a process, from /proc."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
        fields = stat[stat.rindex(")") + 2:].split()
        state, start = fields[0], fields[19]
        if state in ("Z", "X"):
            return False, 0, 0, start
        rss = hwm = 0
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1])
                elif line.startswith("VmHWM:"):
                    hwm = int(line.split()[1])
        return True, rss, hwm, start
    except (OSError, ValueError, IndexError):
        return False, 0, 0, None


class Processes:
    def __init__(self, pids):
        self.pids = pids  # name -> pid
        self.start_times = {}
        self.samples = {name: [] for name in pids}  # (elapsed s, rss kB)
        self.dead = {}
        for name, pid in pids.items():
            alive, rss, _, start = proc_status(pid)
            if not alive:
                raise RuntimeError(f"{name} (pid {pid}) is not running")
            self.start_times[name] = start

    def sample(self, elapsed):
        for name, pid in self.pids.items():
            alive, rss, _, start = proc_status(pid)
            if not alive or start != self.start_times[name]:
                self.dead.setdefault(name, f"pid {pid} {'exited' if not alive else 'was replaced'} at {elapsed:.1f} s")
                continue
            self.samples[name].append((elapsed, rss))

    def hwm(self, name):
        return proc_status(self.pids[name])[2]


# =============================================================================================
# Safety: no fuzzed message may be a legitimate state change


class _Pairs:
    """object_pairs_hook that notes duplicate keys (servers differ on which one wins)."""

    def __init__(self, first_wins=False):
        self.first_wins = first_wins
        self.duplicates = False

    def __call__(self, pairs):
        out = {}
        for key, value in pairs:
            if key in out:
                self.duplicates = True
                if self.first_wins:
                    continue
            out[key] = value
        return out


class Parsed:
    """What a frame can mean to a server: its possible readings (for the safety check) and, when
    Python and a Swift decoder surely agree, the request id the gateway will answer with."""

    __slots__ = ("readings", "correlation")

    def __init__(self, frame):
        self.readings = []
        self.correlation = None
        if not frame:
            return
        strict = False
        hook = _Pairs()
        try:
            obj = json.loads(frame, object_pairs_hook=hook)   # bytes: UTF-8/16/32 detected, BOM allowed
            self.readings.append(obj)
            strict = True
        except (ValueError, RecursionError):
            return
        except Exception:
            return
        if hook.duplicates:
            try:
                self.readings.append(json.loads(frame, object_pairs_hook=_Pairs(first_wins=True)))
            except Exception:
                pass
            return
        if strict and isinstance(obj, dict) and len(frame) <= MAX_MESSAGE_BYTES:
            self.correlation = _correlation(frame, obj)


def _correlation(frame, obj):
    """The id the gateway will repeat as correlationId, or None when unsure. Conservative:
    anything a Swift decoder might read differently from Python gives None."""
    if frame[:1] != b"{" and frame[:1] not in (b" ", b"\n", b"\t", b"\r"):
        return None   # BOM, UTF-16/32
    try:
        frame.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if _SUSPICIOUS.search(frame):
        return None   # NaN/Infinity constants, surrogate escapes, huge or tiny numbers
    if _depth(obj) > 100:
        return None
    ident = obj.get("id")
    if isinstance(ident, str) and 0 < len(ident) <= 128 and all(0x21 <= ord(c) <= 0x7E for c in ident):
        return ident
    return None


_SUSPICIOUS = re.compile(rb"NaN|Infinity|\\u[dD][89a-fA-F]|[0-9]{19,}|[eE][+-]?[0-9]{3,}")


# Inputs known to crash a process, left out unless --include-known-crashes: each is a bug to fix,
# reported by this fuzzer. Keyed by a short name; the value says what and where.
KNOWN_CRASHES = {
    # Fixed: "json-depth-513-at-end" (a frame ending in the 513th nested '[' killed the gateway
    # inside Foundation's JSONDecoder); the gateway now refuses nesting deeper than 32 before
    # decoding, and the fuzzer sends such frames like any other.
}


def known_crash(frame):
    """The KNOWN_CRASHES key this frame would trigger, or None."""
    if not KNOWN_CRASHES or len(frame) < 513 or frame[-1:] != b"[":
        return None
    depth = 0
    in_string = escaped = False
    for i, byte in enumerate(frame):
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:
                escaped = True
            elif byte == 0x22:
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):
            depth += 1
            if depth == 513:
                return "json-depth-513-at-end" if i == len(frame) - 1 and byte == 0x5B else None
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return None


_MUTATING_WORDS = re.compile(
    r"admin|submit|report|reset|issue|start|publish|define|remove|revoke|logout|link|read|decline|rematch|"
    r"friends|display|notification|register|login|refresh|session|check")


class Safety:
    def __init__(self, world):
        players = world["players"]
        self.token_heads = {".".join(p["sessionToken"].split(".")[:2]) for p in players.values()}
        self.refresh_heads = {".".join(p["refreshToken"].split(".")[:2]) for p in players.values()}
        self.passwords = {p["password"] for p in players.values() if "password" in p}
        self.dropped = 0
        self.include_known_crashes = False
        self.known_crashes = collections.Counter()

    def valid_token(self, value):
        return isinstance(value, str) and ".".join(value.strip().split(".")[:2]) in self.token_heads

    def safe_object(self, obj):
        if not isinstance(obj, dict):
            return True
        type_ = obj.get("type")
        if self.valid_token(obj.get("token")) and isinstance(type_, str) and type_ not in READ_ONLY_TYPES:
            # a state-changing type, or an unknown one that looks like it could be
            if type_ in MUTATING_TYPES or _MUTATING_WORDS.search(type_):
                return False
        if isinstance(type_, str) and type_ in PUBLIC_MUTATING_TYPES:
            return self._surely_invalid_public(type_, obj.get("payload"))
        return True

    def _surely_invalid_public(self, type_, payload):
        if payload is None:
            payload = {}
        if not isinstance(payload, dict):
            return True
        if type_ == "auth.register":
            username, password = payload.get("username"), payload.get("password")
            if not isinstance(username, str) or not isinstance(password, str):
                return True
            return not (3 <= len(unicodedata.normalize("NFKC", username)) <= 32) or len(password) < 8
        if type_ == "auth.device-login":
            device = payload.get("deviceId")
            if not isinstance(device, str):
                return True
            raw = device.encode("utf-8", "surrogatepass")
            return not (8 <= len(raw) <= 128 and all(0x21 <= b <= 0x7E for b in raw))
        if type_ == "auth.login":
            password = payload.get("password")
            return not (isinstance(password, str) and password in self.passwords)
        if type_ == "auth.refresh":
            token = payload.get("refreshToken")
            return not (isinstance(token, str) and ".".join(token.strip().split(".")[:2]) in self.refresh_heads)
        return True

    def safe_frame(self, frame, parsed=None):
        for obj in (parsed or Parsed(frame)).readings:
            try:
                if not self.safe_object(obj):
                    return False
            except Exception:   # a shape the checks did not foresee: do not send it
                return False
        return True

    def safe_message(self, frames, parsed=None):
        if not self.include_known_crashes:
            for frame in frames:
                name = known_crash(frame)
                if name:
                    self.known_crashes[name] += 1
                    return False
        if parsed is not None and len(frames) == 1:
            ok = self.safe_frame(frames[0], parsed)
        else:
            ok = all(self.safe_frame(f) for f in frames if f)
        if not ok:
            self.dropped += 1
        return ok


# =============================================================================================
# Generators


def _depth(value, level=0):
    if level > 100:
        return level
    if isinstance(value, dict):
        return max([_depth(v, level + 1) for v in value.values()] or [level + 1])
    if isinstance(value, list):
        return max([_depth(v, level + 1) for v in value] or [level + 1])
    return level


HUGE_NUMBERS = [
    "1e400", "-1e400", "1e-400", "1E+400", str(2 ** 63), str(2 ** 64), str(2 ** 70), str(-(2 ** 63) - 1),
    str(-(2 ** 70)), "9" * 400, "-" + "9" * 1000, "9" * 20000, "1" + "0" * 60000, "0." + "0" * 5000 + "1",
    "1.5", "-0.0", "1e308", "1.7976931348623157e309", "4.9e-325", "123456789012345678901234567890.5",
    "NaN", "Infinity", "-Infinity", "nan", "inf", "0x10", "+1", "01", "1.", ".1", "1e", "--1", "1e+", "0e", "-",
]
# Numbers that are certainly not an Int64 (nor 0, 1.0 or anything a lenient decoder could round to one):
# the only huge numbers that go, with a valid token, into a state-changing request (section 3).
NOT_INT64 = ["1e400", "-1e400", str(2 ** 63), str(2 ** 64), str(2 ** 70), str(-(2 ** 63) - 1), "9" * 400,
             "1.5", "123456789012345678901234567890.5", "\"7\"", "[1]", "{}", "true"]
WRONG_VALUES = [None, True, False, 0, -1, 1.5, 2 ** 70, "", "x", "7", [], {}, [1, 2], {"a": 1}, "\u0000",
                "\ud800", "é" * 70, "a" * 5000]
DEPTHS = [16, 32, 64, 100, 256, 511, 512, 513, 600, 1000, 5000, 10000, 20000, 30000]
DEPTH_WEIGHTS = [5, 5, 5, 3, 0.3, 0.15, 0.15, 1, 3, 3, 3, 3, 3, 3]
NON_OBJECT_PAYLOADS = ["[]", "\"x\"", "1", "true", "1.5", "[{}]", "\"{}\"", "[[[[]]]]", "-0", "1e400"]


class Generators:
    """Everything the fuzzer sends, by category. Each generator returns a list of frames."""

    def __init__(self, rng, world, token_key):
        self.rng = rng
        self.world = world
        self.token_key = token_key
        self.players = world["players"]
        self.fuzz = self.players["fuzz"]
        self.others = [p for n, p in self.players.items() if n != "fuzz"]
        self.counter = 0
        self.nesting_cache = {}
        self.templates = self._templates()
        self.template_frames = [encode(t) for t in self.templates]
        self.wrong_payloads = self._wrong_payloads()

    # -- helpers ---------------------------------------------------------------------------------

    def new_id(self):
        self.counter += 1
        return f"f{self.counter}"

    def rand_bytes(self, n):
        return self.rng.randbytes(n)

    def garbage_token(self):
        r = self.rng
        kind = r.randrange(6)
        if kind == 0:
            return b64url(self.rand_bytes(r.randrange(1, 60)))
        if kind == 1:
            return ".".join(b64url(self.rand_bytes(r.randrange(1, 40))) for _ in range(3))
        if kind == 2:
            return "eyJ" + "A" * r.randrange(0, 200)
        if kind == 3:
            return "a.b.c"
        if kind == 4:
            return uuid.uuid4().hex
        return "x" * r.choice([1, 4096, 4097])

    def bad_credential(self):
        """A credential that cannot be valid: garbage, a forged token, a wrong key."""
        r = self.rng
        kind = r.randrange(4)
        if kind == 0:
            return {"token": self.garbage_token()}
        if kind == 1:
            return {"adminKey": r.randbytes(32).hex()}
        if kind == 2:
            return {"serverKey": r.randbytes(32).hex()}
        return {}

    def token(self):
        return self.fuzz["sessionToken"]

    # -- base requests: one of every type ----------------------------------------------------------

    def _templates(self):
        """One request of every type. Read-only types carry the fuzz player's token; state-changing
        ones carry no credential or a forged one (set per message), or an invalid payload."""
        other = self.players["ann"]["playerId"]
        challenge = self.world["challenges"][0]
        payloads = {
            "health": None, "gateway.health": None, "notifications.subscribe": None,
            "auth.health": None, "leaderboard.health": None, "achievement.health": None, "challenge.health": None,
            "auth.profile": None, "auth.players": {"playerIds": [other, "nobody"]}, "auth.friends.list": None,
            "leaderboard.top": {"boardId": DASH_BOARD, "limit": 5, "scope": "allTime"},
            "leaderboard.around": {"boardId": DASH_BOARD, "radius": 3},
            "leaderboard.entry": {"boardId": DASH_BOARD}, "leaderboard.history": {"boardId": DASH_BOARD},
            "leaderboard.boards": None, "leaderboard.sets": None, "achievement.list": None,
            "challenge.received": {"state": "pending"}, "challenge.issued": None,
            "challenge.detail": {"challengeId": challenge}, "challenge.candidates": {"boardId": DASH_BOARD, "score": 5},
            "challenge.inbox": {"unreadOnly": True},
            # state-changing: valid payloads, but never a valid credential (bad_credential below)
            "event.publish": {"name": "cactus.hit", "value": 1, "attributes": {"matchId": "m"}},
            "auth.link": {"username": "linkme", "password": "long enough password"},
            "auth.logout": None, "auth.revoke": {"allSessions": True},
            "auth.display-name": {"displayName": "Renamed"},
            "auth.friends.request": {"playerId": other}, "auth.friends.accept": {"playerId": other},
            "auth.friends.decline": {"playerId": other}, "auth.friends.remove": {"playerId": other},
            "auth.friends.block": {"playerId": other}, "auth.friends.unblock": {"playerId": other},
            "auth.test-notification": {"message": "m"}, "leaderboard.test-notification": {"message": "m"},
            "achievement.test-notification": {"message": "m"}, "challenge.test-notification": {"message": "m"},
            "leaderboard.submit": {"boardId": DASH_BOARD, "value": 99999, "context": 1, "metadata": {"a": 1}},
            "leaderboard.admin.define": {"definition": {"id": "com.example.dash.fuzz", "title": "F"}},
            "leaderboard.admin.remove": {"boardId": DASH_BOARD},
            "achievement.report": {"reports": [{"achievementId": TUTORIAL, "percentComplete": 100}]},
            "achievement.reset": {"confirm": True, "gameId": "blackjack"},
            "achievement.admin.define": {"definition": {"id": "com.example.fuzz", "title": "F", "points": 5}},
            "challenge.issue": {"kind": "score", "boardId": DASH_BOARD, "receivers": [other]},
            "challenge.start": {"boardId": DASH_BOARD, "durationMilliseconds": 60000, "receivers": [other]},
            "challenge.rematch": {"challengeId": challenge}, "challenge.decline": {"challengeId": challenge},
            "challenge.inbox.read": {"ids": list(self.world["inbox_ids"])},
            "auth.session-check": {"sessionId": self.fuzz["sessionId"], "playerId": self.fuzz["playerId"]},
            "auth.friends.check": {"playerId": other, "otherPlayerId": self.fuzz["playerId"]},
            "auth.friends.of": {"playerId": other},
            # public and state-changing: payloads that break a rule (section 8.1)
            "auth.register": {"username": "ab", "password": "short"},
            "auth.device-login": {"deviceId": "short"},
            "auth.login": {"username": "nobody-at-all", "password": "wrong password"},
            "auth.refresh": {"refreshToken": "eyJhbGciOiJIUzI1NiJ9.e30.AAAA"},
        }
        games = {"achievement.report": "blackjack", "achievement.reset": "blackjack", "achievement.list": "blackjack"}
        templates = []
        for type_, payload in payloads.items():
            request = {"type": type_, "id": "template", "version": 1}
            if not type_.endswith("health") and type_ not in PUBLIC_MUTATING_TYPES:
                request["gameId"] = games.get(type_, "dash")
            if type_ in READ_ONLY_TYPES and type_ not in PUBLIC_MUTATING_TYPES:
                request["token"] = self.token()
            if payload is not None:
                request["payload"] = payload
            templates.append(request)
        return templates

    def template(self, read_only=None):
        """A copy of a base request with a fresh id; state-changing ones get a bad credential."""
        choices = self.templates
        if read_only is not None:
            choices = [t for t in self.templates if (t["type"] in READ_ONLY_TYPES) == read_only]
        request = json.loads(json.dumps(self.rng.choice(choices)))
        request["id"] = self.new_id()
        if request["type"] in MUTATING_TYPES and request["type"] not in PUBLIC_MUTATING_TYPES:
            request.update(self.bad_credential())
        return request

    # -- categories ------------------------------------------------------------------------------

    def random_bytes(self):
        r = self.rng
        n = r.choice([0, 1, 2, 8, 64, 512, 4096, r.randrange(0, 20000)])
        return [self.rand_bytes(n)]

    def not_json(self):
        r = self.rng
        pieces = ["{", "}", "[", "]", ":", ",", "\"", "null", "true", "tru", "fals", "1", "-", "e", " ", "\n",
                  "\\", "\\u", "\\u12", "/*", "*/", "//", "'", "id", "type", "health", "\u0000", "\t"]
        kind = r.randrange(7)
        if kind == 0:
            text = "".join(r.choice(pieces) for _ in range(r.randrange(1, 200)))
        elif kind == 1:
            text = "".join(chr(r.randrange(32, 127)) for _ in range(r.randrange(1, 500)))
        elif kind == 2:   # valid JSON followed by garbage
            text = json.dumps(self.template()) + r.choice(["x", "}", " {}", "\u0000", ",", "]"])
        elif kind == 3:   # JSON5-ish and Python-ish
            text = r.choice(["{id:'a',type:'health'}", "{'id':'a','type':'health'}", "{\"id\":\"a\",}",
                             "{\"id\":\"a\" \"type\":\"health\"}", "[1,2,]", "{\"a\":1}/*c*/", "None", "undefined",
                             "{\"id\":\"a\",\"type\":\"health\"", "\"unterminated", "{\"id\":\"\\x41\"}"])
        elif kind == 4:   # other encodings of a valid request
            frame = json.dumps({"type": "health", "id": self.new_id()})
            return [r.choice([frame.encode("utf-16"), frame.encode("utf-16-le"), frame.encode("utf-32"),
                              frame.encode("utf-32-be"), b"\xef\xbb\xbf" + frame.encode(), frame.encode("utf-7"),
                              frame.encode("cp500")])]
        elif kind == 5:   # scalars: JSON but not an object
            text = r.choice(["42", "\"x\"", "[]", "null", "true", "{}", "[{}]", "-0", "1e400", "\"\"", " ", ""])
        else:
            text = "\n".join(json.dumps(self.template()) for _ in range(r.randrange(2, 5)))
        return [text.encode("utf-8", "surrogatepass")]

    def invalid_utf8(self):
        r = self.rng
        bad = [b"\xff", b"\xfe", b"\xc0\xaf", b"\xe0\x80\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\x80",
               b"\xc3", b"\xe2\x82", b"\xf0\x9f\x98", b"\xf8\x88\x80\x80\x80", b"\xc1\xbf", b"\x00"]
        request = self.template()
        frame = bytearray(encode(request))
        for _ in range(r.randrange(1, 4)):
            # inside a string value if possible, otherwise anywhere
            quotes = [i for i, b in enumerate(frame) if b == 0x22]
            position = r.choice(quotes) + 1 if quotes else r.randrange(len(frame) + 1)
            frame[position:position] = r.choice(bad)
        return [bytes(frame)]

    def nesting(self, kind, depth):
        key = (kind, depth)
        if key not in self.nesting_cache:
            if kind == "array":
                text = "[" * depth + "]" * depth
            elif kind == "object":
                text = "{\"a\":" * depth + "1" + "}" * depth
            elif kind == "mixed":
                text = "[{\"a\":" * (depth // 2) + "null" + "}]" * (depth // 2)
            else:   # unclosed
                text = "[" * depth
            self.nesting_cache[key] = text
        return self.nesting_cache[key]

    def deep_nesting(self):
        r = self.rng
        # Well-formed nesting near Foundation's limit of 512 is very slow to decode (about 1.3 s per
        # 1 KB frame in the debug build: reported separately), so those depths are rare here.
        depth = r.choices(DEPTHS, DEPTH_WEIGHTS)[0]
        kind = r.choice(["array", "object", "mixed", "unclosed"])
        nested = self.nesting(kind, depth)
        where = r.randrange(5)
        if where == 0:
            return [nested.encode()]
        request = self.template(read_only=True)
        field = ["payload", "id", "version", "gameId"][where - 1] if where < 4 else "extra"
        if field == "payload" and r.random() < 0.5:
            text = encode(dict(request, payload={"boardId": DASH_BOARD, "filter": "@@"})).decode()
            text = text.replace("\"@@\"", nested)
        else:
            request[field] = "@@"
            text = encode(request).decode().replace("\"@@\"", nested)
        return [text.encode()]

    def huge_numbers(self):
        r = self.rng
        number = r.choice(HUGE_NUMBERS)
        if r.random() < 0.5:   # read-only requests with a valid token: the number reaches the service
            request = self.template(read_only=True)
            field = r.choice(["version", "payload.limit", "payload.offset", "payload.radius", "payload.period",
                              "payload.score", "payload.cursor", "id", "gameId"])
        else:                  # state-changing requests: a bad credential (template) or none
            request = self.template(read_only=False)
            field = r.choice(["version", "payload.value", "payload.context", "payload.steps",
                              "payload.percentComplete", "payload.durationMilliseconds",
                              "payload.expiresInMilliseconds", "payload.reports.0.steps", "token"])
        return [self._put_raw(request, field, number).encode()]

    def _put_raw(self, request, field, raw):
        """The request as JSON text with `field` (dotted) replaced by the raw JSON text `raw`."""
        parts = field.split(".")
        target = request
        for i, part in enumerate(parts[:-1]):
            if isinstance(target, list):
                index = int(part)
                while len(target) <= index:
                    target.append({})
                target = target[index]
            else:
                if not isinstance(target.get(part), (dict, list)):
                    target[part] = {}
                target = target[part]
        if isinstance(target, list):
            target.append("@@RAW@@")
        else:
            target[parts[-1]] = "@@RAW@@"
        return encode(request).decode().replace("\"@@RAW@@\"", raw)

    def wrong_types(self):
        r = self.rng
        request = self.template()
        value = r.choice(WRONG_VALUES)
        fields = ["id", "type", "version", "gameId", "playerId", "token", "serverKey", "adminKey", "payload"]
        payload = request.get("payload")
        if isinstance(payload, dict) and payload:
            fields += [f"payload.{k}" for k in payload]
        field = r.choice(fields)
        if field == "token" and request["type"] in READ_ONLY_TYPES:
            pass   # replacing the valid token is fine
        if field.startswith("payload."):
            request["payload"][field[8:]] = value
        else:
            request[field] = value
        return [encode(request)]

    def _wrong_payloads(self):
        """(type, gameId, payload as JSON text) sent WITH the fuzz player's valid token. Every
        payload of a state-changing type breaks a documented rule, so none may change anything."""
        fuzz_id = self.fuzz["playerId"]
        ann, bob = self.players["ann"], self.players["bob"]
        nobody = str(uuid.uuid4())
        challenge, achievement_challenge = self.world["challenges"]
        j = json.dumps
        out = []

        def add(type_, game, *payloads):
            for p in payloads:
                out.append((type_, game, p if isinstance(p, str) else j(p)))

        for type_ in ALL_TYPES:   # a payload that is not an object: invalid_shape at the gateway
            if type_ not in PUBLIC_MUTATING_TYPES:
                for p in NON_OBJECT_PAYLOADS:
                    add(type_, "dash", p)
        add("event.publish", "whackacac", {}, {"name": None}, {"name": 5}, {"name": "Bad Name"}, {"name": "1abc"},
            {"name": "a" * 65}, {"name": ""}, {"name": "cactus.hit", "value": "1"},
            {"name": "cactus.hit", "attributes": []}, {"name": "cactus.hit", "attributes": {"k": []}},
            {"name": "cactus.hit", "attributes": {"k": {}}}, {"name": "cactus.hit", "attributes": {"k": "x" * 257}},
            {"name": "cactus.hit", "attributes": {f"k{i}": i for i in range(33)}},
            {"name": "cactus.hit", "attributes": {"": 1}}, {"name": "cactus.hit", "attributes": {"k" * 65: 1}},
            *[f'{{"name":"cactus.hit","value":{n}}}' for n in NOT_INT64])
        for board in (DASH_BOARD, "com.example.dash.coins", "com.example.dash.fastest"):
            add("leaderboard.submit", "dash", {}, {"boardId": board}, {"value": 5}, {"boardId": board, "value": None},
                {"boardId": 5, "value": 5}, {"boardId": "nope", "value": 5}, {"boardId": board, "value": -1},
                {"boardId": board, "value": 5, "metadata": []}, {"boardId": board, "value": 5, "metadata": "x"},
                {"boardId": board, "value": 5, "metadata": {"k": "x" * 1100}},
                {"boardId": board, "value": 5, "context": "x"}, {"boardId": board, "value": 5, "context": 1.5},
                *[f'{{"boardId":"{board}","value":{n}}}' for n in NOT_INT64],
                *[f'{{"boardId":"{board}","value":5,"context":{n}}}' for n in NOT_INT64])
        add("leaderboard.submit", "dash", {"boardId": DASH_BOARD, "value": 100000001},
            {"boardId": "com.example.dash.ranked", "value": 5}, {"boardId": "com.example.dash.fastest", "value": 0})
        add("leaderboard.submit", "nogame", {"boardId": DASH_BOARD, "value": 5})
        reports = lambda *r: {"reports": list(r)}
        add("achievement.report", "blackjack", {}, {"reports": None}, {"reports": []}, {"reports": "x"},
            {"reports": [1]}, reports({}), reports({"achievementId": "nope", "steps": 1}),
            reports({"achievementId": TUTORIAL}), reports({"achievementId": TUTORIAL, "steps": 1, "percentComplete": 5}),
            reports({"achievementId": TUTORIAL, "percentComplete": 101}),
            reports({"achievementId": TUTORIAL, "percentComplete": -1}), reports({"achievementId": TUTORIAL, "steps": -1}),
            reports({"achievementId": TUTORIAL, "steps": 1.5}), reports({"achievementId": TUTORIAL, "percentComplete": "5"}),
            reports({"achievementId": TUTORIAL, "percentComplete": 5, "reportId": ""}),
            reports({"achievementId": TUTORIAL, "percentComplete": 5, "reportId": "has space"}),
            reports({"achievementId": TUTORIAL, "percentComplete": 5, "reportId": "x" * 129}),
            reports({"achievementId": "com.example.blackjack.bold", "steps": 1}),
            reports(*[{"achievementId": TUTORIAL, "percentComplete": 1}] * 101),
            # atomicity: a valid report followed by an invalid one: nothing may be applied
            reports({"achievementId": TUTORIAL, "percentComplete": 99}, {"achievementId": "nope", "steps": 1}),
            reports({"achievementId": TUTORIAL, "percentComplete": 99}, {"achievementId": TUTORIAL, "steps": -5}),
            *[f'{{"reports":[{{"achievementId":"{TUTORIAL}","steps":{n}}}]}}' for n in NOT_INT64],
            f'{{"reports":[{{"achievementId":"{TUTORIAL}","percentComplete":1e400}}]}}')
        add("achievement.report", "nogame", reports({"achievementId": TUTORIAL, "steps": 1}))
        add("achievement.reset", "blackjack", {}, {"confirm": False, "gameId": "blackjack"},
            {"confirm": "true", "gameId": "blackjack"}, {"confirm": 1, "gameId": "blackjack"},
            {"confirm": [True], "gameId": "blackjack"}, {"confirm": True}, {"confirm": True, "gameId": "dash"},
            {"confirm": True, "gameId": "BLACKJACK"}, {"confirm": True, "gameId": ["blackjack"]},
            {"confirm": None, "gameId": "blackjack"}, {"gameId": "blackjack"})
        add("leaderboard.admin.define", "dash", {"definition": {"id": "com.example.dash.fuzz", "title": "F"}})
        add("leaderboard.admin.remove", "dash", {"boardId": DASH_BOARD})
        add("achievement.admin.define", "blackjack", {"definition": {"id": "com.example.fz", "title": "F", "points": 1}})
        receivers = [ann["playerId"]]
        add("challenge.issue", "dash", {}, {"kind": "timed", "boardId": DASH_BOARD, "receivers": receivers},
            {"kind": "other", "boardId": DASH_BOARD, "receivers": receivers},
            {"kind": 5, "boardId": DASH_BOARD, "receivers": receivers},
            {"kind": "score", "boardId": DASH_BOARD, "receivers": []},
            {"kind": "score", "boardId": DASH_BOARD, "receivers": [str(uuid.uuid4()) for _ in range(21)]},
            {"kind": "score", "boardId": DASH_BOARD, "receivers": [fuzz_id]},
            {"kind": "score", "boardId": DASH_BOARD, "receivers": [nobody]},
            {"kind": "score", "boardId": DASH_BOARD, "receivers": "x"},
            {"kind": "score", "receivers": receivers}, {"kind": "score", "boardId": "nope", "receivers": receivers},
            {"kind": "achievement", "receivers": receivers},
            {"kind": "score", "boardId": DASH_BOARD, "receivers": receivers, "message": "m" * 281},
            {"kind": "score", "boardId": DASH_BOARD, "receivers": receivers, "expiresInMilliseconds": 0},
            {"kind": "score", "boardId": DASH_BOARD, "receivers": receivers, "expiresInMilliseconds": 2592000001},
            {"kind": "score", "boardId": DASH_BOARD, "receivers": receivers, "expiresInMilliseconds": 1.5},
            # the fuzz player has no score and no friends: conflict / forbidden
            {"kind": "score", "boardId": DASH_BOARD, "receivers": receivers},
            {"kind": "achievement", "achievementId": TUTORIAL, "receivers": receivers})
        add("challenge.issue", "blackjack", {"kind": "achievement", "achievementId": "nope", "receivers": receivers})
        add("challenge.start", "dash", {}, {"boardId": DASH_BOARD, "receivers": receivers},
            {"boardId": DASH_BOARD, "durationMilliseconds": 59999, "receivers": receivers},
            {"boardId": DASH_BOARD, "durationMilliseconds": 2592000001, "receivers": receivers},
            {"boardId": DASH_BOARD, "durationMilliseconds": "60000", "receivers": receivers},
            {"boardId": "nope", "durationMilliseconds": 60000, "receivers": receivers},
            {"boardId": DASH_BOARD, "durationMilliseconds": 60000, "receivers": []},
            {"boardId": DASH_BOARD, "durationMilliseconds": 60000, "receivers": [fuzz_id]},
            {"boardId": DASH_BOARD, "durationMilliseconds": 60000, "receivers": [nobody]},
            {"durationMilliseconds": 60000, "receivers": receivers},
            # not friends with the fuzz player: forbidden
            {"boardId": DASH_BOARD, "durationMilliseconds": 60000, "receivers": receivers})
        add("challenge.start", "nogame", {"boardId": DASH_BOARD, "durationMilliseconds": 60000, "receivers": receivers})
        add("challenge.rematch", "dash", {}, {"challengeId": 5}, {"challengeId": nobody}, {"challengeId": challenge})
        add("challenge.decline", "dash", {}, {"challengeId": 5}, {"challengeId": nobody}, {"challengeId": challenge})
        add("challenge.decline", "blackjack", {"challengeId": achievement_challenge})
        add("challenge.inbox.read", "dash", {}, {"ids": "x"}, {"ids": [1]}, {"ids": [str(i) for i in range(201)]},
            {"ids": None}, {"ids": [None]},
            # other players' items: must mark nothing (section 12.8)
            {"ids": list(self.world["inbox_ids"])}, {"ids": [nobody]})
        add("auth.link", None, {}, {"username": "ab", "password": "long enough password"},
            {"username": "fuzzlink", "password": "short"},
            {"username": "fuzzlink", "password": "long enough password"})   # conflict: already has a username
        add("auth.revoke", None, {}, {"allSessions": False}, {"allSessions": "true"}, {"allSessions": 1},
            {"allSessions": [True]}, {"sessionId": 5}, {"sessionId": nobody}, {"sessionId": ann["sessionId"]},
            {"sessionId": None, "allSessions": None})
        add("auth.display-name", None, {}, {"displayName": ""}, {"displayName": "   "}, {"displayName": "d" * 65},
            {"displayName": "bad\u0000name"}, {"displayName": "bad\u200bname"}, {"displayName": 5},
            {"displayName": None}, {"displayName": "\n\t"})
        for action in ("request", "accept", "decline", "remove", "block", "unblock"):
            add(f"auth.friends.{action}", None, {}, {"playerId": 5}, {"playerId": fuzz_id}, {"playerId": nobody},
                {"playerId": None}, {"playerId": ""}, {"playerId": "x" * 65}, {"playerId": [ann["playerId"]]})
        add("auth.friends.accept", None, {"playerId": bob["playerId"]})    # no request from bob: conflict
        add("auth.friends.decline", None, {"playerId": bob["playerId"]})
        for service in SERVICES:
            add(f"{service}.test-notification", "dash", {"message": 5}, {"message": "m" * 513}, {"message": ["m"]})
        add("auth.session-check", None, {"sessionId": ann["sessionId"], "playerId": ann["playerId"]})
        add("auth.friends.check", None, {"playerId": ann["playerId"], "otherPlayerId": bob["playerId"]})
        add("auth.friends.of", None, {"playerId": ann["playerId"]})
        # read-only types: anything goes
        add("auth.players", None, {}, {"playerIds": "x"}, {"playerIds": [1]}, {"playerIds": [str(i) for i in range(201)]})
        add("leaderboard.top", "dash", {}, {"boardId": DASH_BOARD, "limit": 0}, {"boardId": DASH_BOARD, "limit": 201},
            {"boardId": DASH_BOARD, "offset": -1}, {"boardId": DASH_BOARD, "offset": 1000000001},
            {"boardId": DASH_BOARD, "cursor": "garbage"}, {"boardId": DASH_BOARD, "cursor": "MXx8fHx8"},
            {"boardId": DASH_BOARD, "scope": "year"}, {"boardId": DASH_BOARD, "period": -1},
            {"boardId": "com.example.dash.weekly", "period": 2 ** 40}, {"boardId": DASH_BOARD, "friendsOnly": "yes"},
            {"boardId": DASH_BOARD, "cursor": "x", "offset": 3}, {"boardId": "nope"})
        add("leaderboard.around", "dash", {"boardId": DASH_BOARD, "radius": 51}, {"boardId": DASH_BOARD, "radius": -1})
        add("leaderboard.entry", "dash", {"boardId": None}, {"boardId": DASH_BOARD, "scope": 5})
        add("leaderboard.history", "nogame", {"boardId": DASH_BOARD})
        add("challenge.received", "dash", {"state": "bogus"}, {"state": 5}, {"state": "running"})
        add("challenge.detail", "dash", {}, {"challengeId": nobody}, {"challengeId": achievement_challenge})
        add("challenge.candidates", "dash", {}, {"boardId": DASH_BOARD}, {"boardId": DASH_BOARD, "score": "5"},
            {"achievementId": "nope"})
        add("challenge.inbox", "dash", {"unreadOnly": "yes"})
        return out

    def wrong_payloads_gen(self):
        r = self.rng
        type_, game, payload = r.choice(self.wrong_payloads)
        request = {"type": type_, "id": self.new_id(), "token": self.token()}
        if game:
            request["gameId"] = game
        kind = r.randrange(10)
        if kind == 0 and type_ not in READ_ONLY_TYPES:
            # the token's player naming another player: forbidden
            request["playerId"] = self.players["ann"]["playerId"]
        text = encode(request).decode()[:-1] + ",\"payload\":" + payload + "}"
        return [text.encode()]

    def bad_tokens(self):
        """State-changing requests with valid payloads and a credential that must be refused."""
        r = self.rng
        fuzz = self.fuzz
        request = json.loads(json.dumps(r.choice([t for t in self.templates if t["type"] not in READ_ONLY_TYPES
                                                  and t["type"] not in PUBLIC_MUTATING_TYPES])))
        request["id"] = self.new_id()
        for key in ("token", "adminKey", "serverKey"):
            request.pop(key, None)
        header, claims, signature = fuzz["sessionToken"].split(".")
        claims_obj = json.loads(base64.urlsafe_b64decode(claims + "=" * (-len(claims) % 4)))
        victim = self.players["ann"]

        def forged(head, body, sig):
            return ".".join([b64url(encode(head)), b64url(encode(body)), sig])

        options = [
            lambda: {"token": forged({"alg": "none", "typ": "JWT"}, dict(claims_obj, sub=victim["playerId"]), "")},
            lambda: {"token": forged({"alg": "none"}, claims_obj, "")},
            lambda: {"token": forged({"alg": "HS512", "typ": "JWT"}, claims_obj, signature)},
            lambda: {"token": forged({"alg": "hs256", "typ": "JWT"}, claims_obj, signature)},
            lambda: {"token": header + "." + b64url(encode(dict(claims_obj, sub=victim["playerId"]))) + "." + signature},
            lambda: {"token": header + "." + b64url(encode(dict(claims_obj, exp=claims_obj["exp"] + 1000))) + "." + signature},
            lambda: {"token": header + "." + claims + "."},
            lambda: {"token": header + "." + claims},
            lambda: {"token": fuzz["refreshToken"]},                       # a refresh token as a session token
            lambda: {"token": victim["refreshToken"]},
            lambda: {"token": "x" * 4097},
            lambda: {"token": ""},
            lambda: {"token": r.choice([5, [], {}, True, None, 1.5])},
            lambda: {"token": self.garbage_token()},
            lambda: {"token": fuzz["sessionToken"][: r.randrange(1, len(fuzz["sessionToken"]))]},
            lambda: {"adminKey": r.randbytes(32).hex()},
            lambda: {"adminKey": ""},
            lambda: {"adminKey": "a" * 4097},
            lambda: {"serverKey": r.randbytes(32).hex()},
            lambda: {"serverKey": r.randbytes(32).hex(), "gameId": "g"},
            lambda: {"serverKey": r.randbytes(32).hex(), "playerId": victim["playerId"]},
            lambda: {"adminKey": r.randbytes(32).hex(), "playerId": victim["playerId"]},
            lambda: {"token": self.garbage_token(), "adminKey": r.randbytes(32).hex()},
        ]
        if self.token_key:
            key = self.token_key.encode()

            def signed(body, head=None):
                head = head or {"alg": "HS256", "typ": "JWT"}
                signing_input = b64url(encode(head)) + "." + b64url(encode(body))
                return signing_input + "." + b64url(hmac.new(key, signing_input.encode(), hashlib.sha256).digest())

            now = time.time()
            base = dict(claims_obj)
            options += [
                lambda: {"token": signed(dict(base, exp=now - 10, iat=now - 1000))},                 # expired
                lambda: {"token": signed(dict(base, iss="other"))},                                  # wrong issuer
                lambda: {"token": signed(dict(base, typ="refresh"))},                                # wrong kind
                lambda: {"token": signed(dict(base, typ=None))},
                lambda: {"token": signed(dict(base, sid=str(uuid.uuid4()), jti=str(uuid.uuid4())))},  # no such session
                lambda: {"token": signed(dict(base, sub=victim["playerId"]))},                       # session not the player's
                lambda: {"token": signed(dict(base, sub=str(uuid.uuid4())))},
                lambda: {"token": signed(dict(base, exp="never"))},
                lambda: {"token": signed(dict(base, exp=1e400))},
                lambda: {"token": signed({k: v for k, v in base.items() if k != "exp"})},
                lambda: {"token": signed({k: v for k, v in base.items() if k != "sub"})},
                lambda: {"token": signed("not an object")},
            ]
        credential = r.choice(options)()
        request.update(credential)
        return [encode(request)]

    def read_only_variants(self):
        """Valid tokens with a changed signature (padding, case, trailing bits) on read-only types:
        tells whether token signatures are malleable. Never on a state-changing type."""
        r = self.rng
        request = self.template(read_only=True)
        token = self.token()
        head, sig = token.rsplit(".", 1)
        variants = [head + "." + sig + "=", head + "." + sig + "==", head + "." + sig[:-1] + chr(ord(sig[-1]) ^ 1),
                    head + "." + sig.replace("-", "+").replace("_", "/"), " " + token, token + "\n", token.upper()]
        request["token"] = r.choice(variants)
        return [encode(request)]

    def unknown_types(self):
        r = self.rng
        request = self.template(read_only=True)
        request["type"] = r.choice([
            "teleport.player", "leaderboard.nope", "leaderboard.", ".", "..", "a" * 128, "a" * 129, "", " ",
            "HEALTH", "Health", "health ", "health\u0000", "héalth", "auth.session-check.x", "reply", "error",
            "notification", "game.event", "bus.tick", "service.announce", "auth.sessions-revoked",
            "leaderboard.score-accepted", "achievement.earned", "admin.shutdown", "gateway.admin.x",
            "leaderboard.admin.purge", "auth.admin.delete", "nosuch.health", "x.health", "auth..health",
            "".join(chr(r.randrange(33, 127)) for _ in range(r.randrange(1, 40))),
            ".".join(r.choice(["auth", "leaderboard", "achievement", "challenge", "x", ""]) for _ in range(3)),
        ])
        if r.random() < 0.3:
            request.pop("token", None)
        return [encode(request)]

    def mutate_bytes(self, frame):
        r = self.rng
        data = bytearray(frame)
        for _ in range(r.choice([1, 1, 1, 2, 3, 8])):
            op = r.randrange(10)
            n = len(data)
            if op == 0 and n:      # bit flip
                i = r.randrange(n)
                data[i] ^= 1 << r.randrange(8)
            elif op == 1 and n:    # random byte
                data[r.randrange(n)] = r.randrange(256)
            elif op == 2:          # insert bytes
                i = r.randrange(n + 1)
                data[i:i] = r.choice([b"\"", b"{", b"}", b"[", b"]", b",", b":", b"\\", b"\x00", b"null", b"-",
                                      b"1e400", b"\xff", b"\\u0000", b"\\ud800", self.rand_bytes(r.randrange(1, 16))])
            elif op == 3 and n:    # delete a range
                i = r.randrange(n)
                del data[i:i + r.randrange(1, 16)]
            elif op == 4 and n:    # truncate
                del data[r.randrange(n):]
            elif op == 5 and n:    # duplicate a range
                i = r.randrange(n)
                j = min(n, i + r.randrange(1, 64))
                data[j:j] = data[i:j]
            elif op == 6:          # splice with another template
                other = r.choice(self.template_frames)
                i = r.randrange(n + 1)
                data = data[:i] + other[r.randrange(len(other)):]
            elif op == 7 and n:    # swap two bytes
                i, j = r.randrange(n), r.randrange(n)
                data[i], data[j] = data[j], data[i]
            elif op == 8 and n:    # repeat a byte many times
                i = r.randrange(n)
                data[i:i] = bytes([data[i]]) * r.choice([2, 100, 1000])
            else:                  # change a digit
                digits = [i for i, b in enumerate(data) if 0x30 <= b <= 0x39]
                if digits:
                    data[r.choice(digits)] = r.randrange(0x30, 0x3A)
        return bytes(data)

    def mutate_structure(self, request):
        r = self.rng
        text = None
        op = r.randrange(7)
        keys = list(request)
        if op == 0 and keys:                   # delete a field
            request.pop(r.choice(keys))
        elif op == 1 and keys:                 # duplicate a field with another value
            key = r.choice(keys)
            text = encode(request).decode()[:-1] + "," + json.dumps(key) + ":" + json.dumps(r.choice(WRONG_VALUES)) + "}"
        elif op == 2 and keys:                 # swap a field's type
            request[r.choice(keys)] = r.choice(WRONG_VALUES)
        elif op == 3:                          # unknown and internal fields
            request[r.choice(["actor", "correlationId", "publisher", "sequence", "timestamp", "extra", "__proto__",
                              "constructor"])] = r.choice([{"kind": "admin"}, {"kind": "service", "service": "auth"},
                                                           1, "x", None, [1]])
        elif op == 4 and isinstance(request.get("payload"), dict) and request["payload"]:
            payload = request["payload"]
            key = r.choice(list(payload))
            if r.random() < 0.5:
                payload.pop(key)
            else:
                payload[key] = r.choice(WRONG_VALUES)
        elif op == 5:                          # wrap the payload
            request["payload"] = {"payload": request.get("payload")}
        else:                                  # the request inside an array or another object
            text = json.dumps(r.choice([[request], {"request": request}, [request, request]]))
        return (text or json.dumps(request, ensure_ascii=r.random() < 0.5)).encode("utf-8", "surrogatepass")

    def mutation(self):
        r = self.rng
        request = self.template()
        if r.random() < 0.4:
            frame = self.mutate_structure(request)
            if r.random() < 0.3:
                frame = self.mutate_bytes(frame)
        else:
            frame = self.mutate_bytes(encode(request))
        return [frame]

    def multipart(self):
        r = self.rng
        count = r.choice([0, 1, 2, 2, 3, 3, 4, 5, 10, 50, 100])
        if count == 0:
            return [b""]
        parts = []
        for _ in range(count):
            kind = r.randrange(5)
            if kind == 0:
                parts.append(b"")
            elif kind == 1:
                parts.append(self.rand_bytes(r.randrange(0, 64)))
            elif kind == 2:
                parts.append(encode(dict(self.template(read_only=True))))
            else:
                parts.append(encode(self.template()))
        special = r.randrange(6)
        body = encode(self.template(read_only=True))
        if special == 0:
            parts = [b"", body]                   # a well-formed REQ-style request
        elif special == 1:
            parts = [b"", b"", body]
        elif special == 2:
            parts = [body, b""]
        elif special == 3:
            parts = [b"", body, b""]
        return parts

    def empty(self):
        return [b""] * self.rng.choice([1, 1, 1, 2, 3, 20])

    def oversized(self):
        r = self.rng
        size = r.choice([MAX_MESSAGE_BYTES, MAX_MESSAGE_BYTES + 1, 100000, 512 * 1024, 1000000, HARD_FRAME_LIMIT])
        if r.random() < 0.5:   # a well-formed request padded with a long string
            request = self.template(read_only=True)
            request["pad"] = ""
            overhead = len(encode(request))
            request["pad"] = "p" * max(0, size - overhead)
            frame = encode(request)
        else:
            frame = r.choice([b"a", b"{", b"\xff", b" "]) * size
        return [frame]

    def too_large(self):
        """Above the hard frame limit: libzmq drops the connection (sent on a fresh one)."""
        r = self.rng
        size = r.choice([HARD_FRAME_LIMIT + 1, 2 * HARD_FRAME_LIMIT, 4 * HARD_FRAME_LIMIT])
        return [b"x" * size]

    def valid_read(self):
        return [encode(self.template(read_only=True))]

    def subscription(self):
        """One subscription message for the notification XPUB (via XSUB: raw first byte)."""
        r = self.rng
        hexes = lambda n: r.randbytes((n + 1) // 2).hex()[:n].encode()
        topic = r.choice([
            lambda: b"", lambda: b"player/", lambda: b"operator/", lambda: b"player", lambda: b"p",
            lambda: b"player/" + hexes(63), lambda: b"player/" + hexes(65), lambda: b"player/" + hexes(64).upper(),
            lambda: b"player/" + hexes(64), lambda: b"operator/" + hexes(64), lambda: b"player/" + hexes(64) + b"\x00",
            lambda: self.rand_bytes(r.randrange(1, 100)), lambda: b"x" * (SUBSCRIPTION_LIMIT - 1),
            lambda: b"notify/", lambda: b"event/", lambda: b"bus/tick",
        ])()
        kind = r.randrange(8)
        if kind < 4:
            return [bytes([1]) + topic]
        if kind < 6:
            return [bytes([0]) + topic]
        if kind == 6:   # not a subscription: another first byte, or several frames
            return [bytes([r.randrange(2, 256)]) + topic]
        return [bytes([1]) + topic] + [self.rand_bytes(r.randrange(0, 20)) for _ in range(r.randrange(1, 5))]


# =============================================================================================
# Raw TCP: not ZeroMQ at all, or a ZMTP handshake that lies


def zmtp_greeting(mechanism=b"NULL"):
    return b"\xff" + b"\x00" * 8 + b"\x7f" + b"\x03\x01" + mechanism.ljust(20, b"\x00") + b"\x00" + b"\x00" * 31


def zmtp_ready(socket_type=b"DEALER"):
    body = b"\x05READY" + b"\x0bSocket-Type" + len(socket_type).to_bytes(4, "big") + socket_type
    return b"\x04" + bytes([len(body)]) + body


def raw_tcp_payload(rng):
    kind = rng.randrange(8)
    if kind == 0:
        return rng.randbytes(rng.randrange(1, 4096))
    if kind == 1:
        return b"GET / HTTP/1.1\r\nHost: podium\r\n\r\n"
    if kind == 2:
        return zmtp_greeting(b"CURVE")
    if kind == 3:
        return zmtp_greeting(b"PLAIN") + rng.randbytes(100)
    if kind == 4:   # a frame that announces 2^63-1 bytes
        return zmtp_greeting() + zmtp_ready() + b"\x02" + (2 ** 63 - 1).to_bytes(8, "big") + b"x" * 100
    if kind == 5:   # a frame just above the hard limit, then nothing
        return zmtp_greeting() + zmtp_ready() + b"\x02" + (HARD_FRAME_LIMIT + 1).to_bytes(8, "big")
    if kind == 6:   # READY with a bogus socket type, and a bogus command
        return zmtp_greeting() + zmtp_ready(b"BOGUS") + b"\x04\x05\x04HUH?"
    return zmtp_greeting()[:rng.randrange(1, 64)]


def send_raw_tcp(host, port, payload):
    try:
        with socket.create_connection((host, port), timeout=1.0) as s:
            s.sendall(payload)
            s.settimeout(0.05)
            try:
                s.recv(4096)
            except OSError:
                pass
        return True
    except OSError:
        return False


# =============================================================================================
# The run


class Stats:
    def __init__(self):
        self.messages = collections.Counter()   # category -> messages
        self.frames = collections.Counter()
        self.bytes = collections.Counter()
        self.codes = collections.Counter()      # reply codes on the request connections
        self.replies = 0
        self.bad_replies = []
        self.expected = collections.Counter()   # correlation ids we expect, with their counts
        self.answered = collections.Counter()
        self.uncorrelated = 0
        self.pooled_sent = 0
        self.flood_sent = 0
        self.flood_replies = 0
        self.client_backpressure = 0


def parse_reply(frames, stats):
    if len(frames) == 2 and frames[0] == b"":
        frames = frames[1:]   # the reply to a message that started with an empty delimiter
    try:
        if len(frames) != 1:
            raise ValueError(f"{len(frames)} frames")
        envelope = json.loads(frames[0])
        if envelope.get("type") not in ("reply", "error") or envelope.get("version") != 1:
            raise ValueError("not a reply")
        if "actor" in envelope:
            raise ValueError("a reply carries the actor")
        return envelope
    except (ValueError, UnicodeDecodeError) as error:
        if len(stats.bad_replies) < 10:
            stats.bad_replies.append(f"{error}: {frames!r}"[:300])
        else:
            stats.bad_replies.append("…")
        return None


class Fuzzer:
    def __init__(self, args, world, processes):
        self.args = args
        self.world = world
        self.rng = random.Random(args.seed)
        self.ctx = zmq.Context()
        self.processes = processes
        self.stats = Stats()
        self.safety = Safety(world)
        self.safety.include_known_crashes = args.include_known_crashes
        self.gen = Generators(self.rng, world, args.token_key)
        self.pool = [self._dealer() for _ in range(args.connections)]
        self.subs = []
        self.probe = self._dealer()
        self.probe_counter = 0
        self.probes_pending = {}   # id -> (sent at, type)
        self.probe_results = collections.Counter()
        self.probe_codes = collections.Counter()
        self.probe_latency = []
        self.probe_latency_by_type = {}
        self.probe_failures = []
        self.started = time.monotonic()
        self.last_probe = self.last_sample = self.last_progress = 0.0
        self.duration = 0.0
        self.watch = None
        self.notifications = 0
        host_port = args.requests.rsplit(":", 1)
        self.request_host, self.request_port = host_port[0].replace("tcp://", ""), int(host_port[1])
        host_port = args.notifications.rsplit(":", 1)
        self.notification_host, self.notification_port = host_port[0].replace("tcp://", ""), int(host_port[1])

    def _dealer(self, sndhwm=1000):
        sock = self.ctx.socket(zmq.DEALER)
        sock.setsockopt(zmq.LINGER, 0)
        sock.setsockopt(zmq.SNDHWM, sndhwm)
        sock.setsockopt(zmq.RCVHWM, 0)      # never drop a reply on our side: every one is counted
        sock.connect(self.args.requests)
        return sock

    # -- notifications watcher: no seeded player may get a notification during the run ---------

    def start_watch(self, client):
        self.watch = self.ctx.socket(zmq.SUB)
        self.watch.setsockopt(zmq.LINGER, 0)
        self.watch.connect(self.args.notifications)
        for grant in self.world["players"].values():
            for game in GAMES:
                reply = client.ok({"type": "notifications.subscribe", "gameId": game, "token": grant["sessionToken"]})
                self.watch.setsockopt(zmq.SUBSCRIBE, reply["topic"].encode())

    def drain_watch(self):
        if self.watch is None:
            return
        while self.watch.poll(0):
            self.watch.recv_multipart()
            self.notifications += 1

    # -- sending ---------------------------------------------------------------------------------

    def send_pooled(self, category, frames, trusted=False):
        """Sends one message on a request connection. `trusted`: a hand-written message (wrong
        payloads) that the safety check would refuse for carrying a valid token."""
        body = frames[0] if len(frames) == 1 else frames[1] if len(frames) == 2 and frames[0] == b"" else None
        parsed = Parsed(body) if body is not None else None
        if trusted and not self.safety.include_known_crashes and any(known_crash(f) for f in frames):
            return False
        if not trusted and not self.safety.safe_message(frames, parsed if len(frames) == 1 else None):
            return False
        # Closed loop: at most --in-flight unanswered messages on the request connections, so that
        # the run measures the stack, not a backlog this program built (floods test that).
        waiting_since, replies = time.monotonic(), self.stats.replies
        while self.stats.pooled_sent - self.stats.replies >= self.args.in_flight:
            self.drain_pool(wait_ms=10)
            self.housekeeping()
            if self.processes.dead:
                return False
            if self.stats.replies != replies:
                waiting_since, replies = time.monotonic(), self.stats.replies
            elif time.monotonic() - waiting_since > 60:
                raise RuntimeError(f"no reply for 60 s with {self.args.in_flight} messages unanswered: the gateway stalls")
        sock = self.rng.choice(self.pool)
        while True:
            try:
                sock.send_multipart(frames, flags=zmq.NOBLOCK, copy=len(frames[0]) < 65536)
                break
            except zmq.Again:
                self.stats.client_backpressure += 1
                self.drain_pool(wait_ms=20)
        self.stats.pooled_sent += 1
        self._count(category, frames)
        if parsed is not None and parsed.correlation is not None:
            self.stats.expected[parsed.correlation] += 1
        return True

    def _count(self, category, frames):
        self.stats.messages[category] += 1
        self.stats.frames[category] += len(frames)
        self.stats.bytes[category] += sum(len(f) for f in frames)

    def drain_pool(self, wait_ms=0):
        poller = zmq.Poller()
        for sock in self.pool:
            poller.register(sock, zmq.POLLIN)
        ready = dict(poller.poll(wait_ms))
        for sock in self.pool:
            if sock not in ready:
                continue
            for _ in range(100000):
                try:
                    frames = sock.recv_multipart(zmq.NOBLOCK)
                except zmq.Again:
                    break
                self.stats.replies += 1
                envelope = parse_reply(frames, self.stats)
                if envelope is None:
                    continue
                code = envelope["payload"].get("code", "ok") if envelope["type"] == "error" else "ok"
                self.stats.codes[code] += 1
                correlation = envelope.get("correlationId")
                if correlation is None:
                    self.stats.uncorrelated += 1
                else:
                    self.stats.answered[correlation] += 1

    def flood(self):
        """One connection sends thousands of messages without reading a reply; half of the
        floods close without ever reading, the other half read what came back at the end."""
        r = self.rng
        count = min(r.choice([1000, 2000, 5000, 10000]), max(100, self.args.frames // 10))
        sock = self._dealer(sndhwm=count + 10)
        read_later = r.random() < 0.5
        kind = r.randrange(4)
        same_id = f"flood-{self.gen.new_id()}"
        sent = 0
        for i in range(count):
            if kind == 0:
                frames = self.gen.valid_read()
            elif kind == 1:
                frames = [encode({"type": "health", "id": self.gen.new_id()})]
            elif kind == 2:   # the same id again and again: duplicate_request_id
                frames = [encode(dict(self.gen.template(read_only=True), id=same_id))]
            else:
                frames = self.gen.mutation()
            if not self.safety.safe_message(frames):
                continue
            try:
                sock.send_multipart(frames, flags=zmq.NOBLOCK)
            except zmq.Again:
                break
            sent += 1
            self._count("flood", frames)
        self.stats.flood_sent += sent
        if read_later:
            deadline = time.monotonic() + 20
            got = 0
            while got < sent and time.monotonic() < deadline:
                if sock.poll(200):
                    while True:
                        try:
                            sock.recv_multipart(zmq.NOBLOCK)
                            got += 1
                        except zmq.Again:
                            break
                self.housekeeping()
            self.stats.flood_replies += got
            sock.close(linger=0)
        else:
            sock.close(linger=3000)   # let what is queued go out, then drop the connection

    def fresh_too_large(self):
        frames = self.gen.too_large()
        sock = self._dealer()
        try:
            sock.send_multipart(frames, flags=zmq.NOBLOCK, copy=False)
            self._count("too_large", frames)
        except zmq.Again:
            pass
        sock.poll(200)
        sock.close(linger=0)

    def xpub(self):
        """Subscriptions and garbage at the notification endpoint, from XSUB and SUB sockets."""
        r = self.rng
        if len(self.subs) < 4 or r.random() < 0.01:
            kind = r.choice([zmq.XSUB, zmq.SUB])
            sock = self.ctx.socket(kind)
            sock.setsockopt(zmq.LINGER, 0)
            sock.setsockopt(zmq.SNDHWM, 1000)
            sock.connect(self.args.notifications)
            self.subs.append(sock)
            if len(self.subs) > 8:
                self.subs.pop(0).close(linger=0)
        sock = r.choice(self.subs)
        if sock.socket_type == zmq.SUB:
            frames = self.gen.subscription()
            topic = frames[0][1:]
            topic = topic[:SUBSCRIPTION_LIMIT - 1]
            option = zmq.SUBSCRIBE if r.random() < 0.7 else zmq.UNSUBSCRIBE
            sock.setsockopt(option, topic)
            self._count("xpub", [topic])
        else:
            frames = self.gen.subscription()
            try:
                sock.send_multipart(frames, flags=zmq.NOBLOCK)
                self._count("xpub", frames)
            except zmq.Again:
                pass
        # drain anything delivered (random operator/player topics never match a real one)
        for s in self.subs:
            while s.poll(0):
                s.recv_multipart()

    def xpub_too_long(self):
        """A subscription over 1024 bytes: the gateway drops that connection (fresh socket)."""
        sock = self.ctx.socket(zmq.XSUB)
        sock.setsockopt(zmq.LINGER, 0)
        sock.connect(self.args.notifications)
        frame = b"\x01player/" + b"a" * self.rng.choice([SUBSCRIPTION_LIMIT, 5000, 100000])
        try:
            sock.send(frame, flags=zmq.NOBLOCK)
            self._count("xpub_too_long", [frame])
        except zmq.Again:
            pass
        sock.poll(100)
        sock.close(linger=0)

    def raw_tcp(self):
        if self.rng.random() < 0.7:
            host, port = self.request_host, self.request_port
        else:
            host, port = self.notification_host, self.notification_port
        payload = raw_tcp_payload(self.rng)
        if send_raw_tcp(host, port, payload):
            self._count("raw_tcp", [payload])

    # -- probes ----------------------------------------------------------------------------------

    def send_probe(self):
        self.probe_counter += 1
        kinds = [
            {"type": "health"},
            {"type": "gateway.health"},
            {"type": "leaderboard.top", "gameId": "dash", "payload": {"boardId": DASH_BOARD, "limit": 3}},
            {"type": "achievement.list", "gameId": "blackjack"},
            {"type": "challenge.received", "gameId": "dash"},
            {"type": "auth.profile"},
        ]
        request = dict(kinds[self.probe_counter % len(kinds)])
        if request["type"] not in ("health", "gateway.health"):
            request["token"] = self.world["players"]["ann"]["sessionToken"]
        request["id"] = f"probe-{self.probe_counter}"
        self.probe.send(encode(request))
        self.probes_pending[request["id"]] = (time.monotonic(), request["type"])
        self.probe_results["sent"] += 1

    def check_probes(self):
        while self.probe.poll(0):
            frames = self.probe.recv_multipart()
            envelope = parse_reply(frames, self.stats)
            if envelope is None:
                self.probe_failures.append(f"malformed probe reply {frames!r}"[:200])
                continue
            correlation = envelope.get("correlationId")
            if correlation not in self.probes_pending:
                self.probe_results["duplicate_or_unknown"] += 1
                self.probe_failures.append(f"a reply for no pending probe: {correlation}")
                continue
            sent_at, type_ = self.probes_pending.pop(correlation)
            self.probe_latency.append(time.monotonic() - sent_at)
            self.probe_latency_by_type[type_] = max(self.probe_latency_by_type.get(type_, 0), time.monotonic() - sent_at)
            self.probe_results["answered"] += 1
            if envelope["type"] == "error":
                code = envelope["payload"].get("code")
                self.probe_codes[code] += 1
                if code not in BUSY_CODES:
                    self.probe_failures.append(f"probe {type_} got {code}: {envelope['payload'].get('message')}")
            else:
                self.probe_codes["ok"] += 1
                if type_ == "health" and not envelope["payload"].get("ready"):
                    self.probe_codes["health_not_ready"] += 1
        now = time.monotonic()
        for ident, (sent_at, type_) in list(self.probes_pending.items()):
            if now - sent_at > PROBE_TIMEOUT:
                del self.probes_pending[ident]
                self.probe_results["lost"] += 1
                self.probe_failures.append(f"probe {ident} ({type_}) got no reply within {PROBE_TIMEOUT:.0f} s")

    # -- the loop --------------------------------------------------------------------------------

    def housekeeping(self, force=False):
        now = time.monotonic()
        if force or now - self.last_probe >= PROBE_INTERVAL:
            self.send_probe()
            self.last_probe = now
        self.check_probes()
        self.drain_watch()
        if force or now - self.last_sample >= 1.0:
            self.processes.sample(now - self.started)
            self.last_sample = now
        if now - self.last_progress >= self.args.progress:
            self.last_progress = now
            total = sum(self.stats.messages.values())
            rss = " ".join(f"{n}={s[-1][1] // 1024}MB" for n, s in self.processes.samples.items() if s)
            log(f"fuzz: {total}/{self.args.frames} messages, {now - self.started:.0f} s, replies {self.stats.replies}, "
                f"probes {self.probe_results['answered']}/{self.probe_results['sent']}, rss {rss}")

    def run(self):
        r = self.rng
        g = self.gen
        pooled = [
            ("mutation", g.mutation, 30), ("random_bytes", g.random_bytes, 7), ("not_json", g.not_json, 6),
            ("invalid_utf8", g.invalid_utf8, 6), ("wrong_types", g.wrong_types, 8),
            ("wrong_payloads", g.wrong_payloads_gen, 12), ("huge_numbers", g.huge_numbers, 5),
            ("deep_nesting", g.deep_nesting, 1.5), ("bad_tokens", g.bad_tokens, 7),
            ("token_variants", g.read_only_variants, 1), ("unknown_types", g.unknown_types, 4),
            ("multipart", g.multipart, 4), ("empty", g.empty, 3), ("oversized", g.oversized, 0.15),
            ("valid_reads", g.valid_read, 2),
        ]
        pooled.append(("xpub", None, 3))
        names = [name for name, _, _ in pooled]
        functions = {name: fn for name, fn, _ in pooled}
        cumulative, total_weight = [], 0.0
        for _, _, weight in pooled:
            total_weight += weight
            cumulative.append(total_weight)
        # Connection-level attacks run at fixed intervals (in messages sent), so that short runs
        # have each of them too: the first at half an interval (or half the run).
        every = {"flood": 40000, "too_large": 10000, "xpub_too_long": 10000, "raw_tcp": 2000}
        specials = {"flood": self.flood, "too_large": self.fresh_too_large, "xpub_too_long": self.xpub_too_long,
                    "raw_tcp": self.raw_tcp}
        next_at = {name: min(interval, self.args.frames) / 2 for name, interval in every.items()}
        self.last_probe = self.last_sample = self.last_progress = 0.0
        self.started = time.monotonic()
        self.processes.sample(0.0)
        total = 0
        while total < self.args.frames:
            for _ in range(50):
                name = r.choices(names, cum_weights=cumulative)[0]
                if name == "xpub":
                    self.xpub()
                else:
                    self.send_pooled(name, functions[name](), trusted=name in ("wrong_payloads", "unknown_types"))
            total = sum(self.stats.messages.values())
            for name, at in next_at.items():
                if total >= at:
                    next_at[name] += every[name]
                    specials[name]()
            self.drain_pool()
            self.housekeeping()
            if self.processes.dead:
                log(f"fuzz: stopping early: {self.processes.dead}")
                break
            total = sum(self.stats.messages.values())
        self.duration = time.monotonic() - self.started
        # every message on the kept connections must be answered: wait for the last replies
        deadline = time.monotonic() + 60
        last_count, last_change = -1, time.monotonic()
        while time.monotonic() < deadline:
            self.drain_pool(wait_ms=100)
            self.housekeeping()
            if self.stats.replies >= self.stats.pooled_sent and not self.probes_pending:
                break
            if self.stats.replies != last_count:
                last_count, last_change = self.stats.replies, time.monotonic()
            elif time.monotonic() - last_change > 20:
                break
        # final probes on a quiet system: every one must be answered
        for _ in range(12):
            self.send_probe()
            time.sleep(0.05)
        deadline = time.monotonic() + PROBE_TIMEOUT + 1
        while self.probes_pending and time.monotonic() < deadline:
            self.check_probes()
            time.sleep(0.05)
        self.check_probes()
        for ident in list(self.probes_pending):
            self.probe_results["lost"] += 1
            self.probe_failures.append(f"final probe {ident} got no reply")
        self.probes_pending.clear()
        self.drain_pool(wait_ms=200)
        self.drain_watch()
        self.processes.sample(time.monotonic() - self.started)

    def close(self):
        for sock in self.pool + self.subs + [self.probe] + ([self.watch] if self.watch else []):
            sock.close(linger=0)
        self.ctx.term()


# =============================================================================================
# Main


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", required=True, help="the gateway's request endpoint (ROUTER)")
    parser.add_argument("--notifications", required=True, help="the gateway's notification endpoint (XPUB)")
    parser.add_argument("--data", help="the stack's PODIUM_DATA (its SQLite files are compared)")
    parser.add_argument("--pid", action="append", default=[], metavar="NAME=PID",
                        help="a process of the stack to watch (repeat)")
    parser.add_argument("--frames", type=int, default=1_000_000, help="messages to send (default 1000000)")
    parser.add_argument("--seed", type=int, help="random seed (default: random, printed)")
    parser.add_argument("--connections", type=int, default=6, help="request connections kept open (default 6)")
    parser.add_argument("--in-flight", type=int, default=1000,
                        help="most unanswered messages on those connections (default 1000; floods ignore it)")
    parser.add_argument("--rss-limit-mb", type=int, default=256,
                        help="the most any process's RSS may grow over the run (default 256)")
    parser.add_argument("--progress", type=float, default=10.0, help="seconds between progress lines")
    parser.add_argument("--report", help="also write the verdict as JSON to this file")
    parser.add_argument("--include-known-crashes", action="store_true",
                        help="also send the inputs of KNOWN_CRASHES (left out by default, and counted)")
    args = parser.parse_args()
    args.token_key = os.environ.get("PODIUM_FUZZ_TOKEN_KEY") or None
    if args.seed is None:
        args.seed = random.SystemRandom().randrange(2 ** 32)
    pids = {}
    for item in args.pid:
        name, _, pid = item.partition("=")
        pids[name] = int(pid)

    log(f"fuzz: seed {args.seed}, {args.frames} messages, requests {args.requests}, notifications {args.notifications}")
    ctx = zmq.Context()
    client = Client(ctx, args.requests)
    wait_ready(client)
    seed_rng = random.Random(args.seed)
    world = seed(client, seed_rng)
    log(f"fuzz: seeded {len(world['players'])} players, {len(world['challenges'])} challenges")
    time.sleep(1.0)   # let the bus settle (rule-driven achievements, challenge inboxes)
    before, before_db = settle_snapshot(client, world, args.data)
    log(f"fuzz: state before: {len(before)} protocol views, "
        f"{sum(len(t) for t in before_db.values())} tables in {len(before_db)} database files")

    processes = Processes(pids)
    processes.sample(0.0)
    rss_start = {name: s[-1][1] for name, s in processes.samples.items() if s}
    fuzzer = Fuzzer(args, world, processes)
    fuzzer.start_watch(client)
    time.sleep(0.3)
    fuzzer.drain_watch()
    fuzzer.notifications = 0
    error = None
    try:
        fuzzer.run()
    except Exception as exc:   # report, do not hide, a fuzzer failure
        import traceback
        traceback.print_exc()
        error = f"the fuzzer failed: {exc!r}"
        fuzzer.duration = time.monotonic() - fuzzer.started
    processes.sample(time.monotonic() - fuzzer.started)

    # after: the same views, retried briefly (a display name lookup may be slow right after a flood)
    state_diff = ["(not compared: a process died)"] if processes.dead else []
    if not processes.dead:
        try:
            for attempt in range(4):
                after = protocol_snapshot(client, world)
                after_db = database_snapshot(args.data)
                state_diff = diff_snapshots(before, after, "protocol") + diff_databases(before_db, after_db)
                if not state_diff:
                    break
                time.sleep(2.0)
        except Exception as exc:
            state_diff = [f"the snapshot after the run failed: {exc!r}"]
    fuzzer.drain_watch()
    processes.sample(time.monotonic() - fuzzer.started)
    verdict = report(args, fuzzer, processes, rss_start, state_diff, error)
    fuzzer.close()
    client.close()
    ctx.term()
    return 0 if verdict else 1


def settle_snapshot(client, world, data):
    """A snapshot taken twice in a row with the same result: nothing is still arriving."""
    previous = None
    for _ in range(20):
        current = (protocol_snapshot(client, world), database_snapshot(data))
        if current == previous:
            return current
        previous = current
        time.sleep(0.5)
    raise RuntimeError("the seeded state does not settle")


def report(args, fuzzer, processes, rss_start, state_diff, error):
    stats = fuzzer.stats
    failures = []
    if error:
        failures.append(error)
    total_messages = sum(stats.messages.values())
    total_frames = sum(stats.frames.values())
    lines = ["", "==================== hostile-input verdict ====================",
             f"seed {args.seed}; {total_messages} messages ({total_frames} frames, "
             f"{sum(stats.bytes.values()) / 1e6:.1f} MB) in {fuzzer.duration:.1f} s "
             f"({total_messages / max(fuzzer.duration, 0.001):.0f}/s)",
             "messages by category (messages / frames / MB):"]
    for name, count in stats.messages.most_common():
        lines.append(f"  {name:<16} {count:>9} {stats.frames[name]:>9} {stats.bytes[name] / 1e6:>9.1f}")
    lines.append(f"dropped by the safety filter (could have been a valid state change): {fuzzer.safety.dropped}")
    if fuzzer.safety.include_known_crashes:
        lines.append("known crashing inputs: included (--include-known-crashes)")
    else:
        lines.append("known crashing inputs left out (send them with --include-known-crashes): " + (", ".join(
            f"{name} x{count}" for name, count in fuzzer.safety.known_crashes.items()) or "none generated"))
        for name in fuzzer.safety.known_crashes:
            lines.append(f"  {name}: {KNOWN_CRASHES[name]}")

    # replies: every message on the connections kept open gets exactly one reply
    missing = sum(max(0, n - stats.answered[i]) for i, n in stats.expected.items())
    extra = sum(max(0, n - stats.expected[i]) for i, n in stats.answered.items())
    lines.append(f"request connections: {stats.pooled_sent} messages, {stats.replies} replies "
                 f"({stats.replies - stats.uncorrelated} correlated, {stats.uncorrelated} without correlationId); "
                 f"well-formed ids: {sum(stats.expected.values())} expected, {missing} unanswered, {extra} unexpected")
    lines.append("reply codes: " + ", ".join(f"{c} {n}" for c, n in stats.codes.most_common()))
    lines.append(f"floods: {stats.flood_sent} messages from single connections, {stats.flood_replies} replies read "
                 f"(half of the floods close without reading)")
    if stats.replies != stats.pooled_sent:
        failures.append(f"{stats.pooled_sent} messages on the request connections got {stats.replies} replies, "
                        f"not exactly one each")
    if missing:
        failures.append(f"{missing} well-formed requests got no reply")
    if stats.bad_replies:
        failures.append(f"{len(stats.bad_replies)} malformed replies: {stats.bad_replies[:3]}")

    probes = fuzzer.probe_results
    latency = sorted(fuzzer.probe_latency)
    p99 = latency[int(len(latency) * 0.99) - 1] if latency else 0
    lines.append(f"probes: {probes['sent']} sent, {probes['answered']} answered, {probes['lost']} lost; "
                 f"codes {dict(fuzzer.probe_codes)}; latency max {max(latency or [0]):.2f} s, p99 {p99:.2f} s")
    lines.append("probe latency max by type: " + ", ".join(
        f"{t} {v:.2f} s" for t, v in sorted(fuzzer.probe_latency_by_type.items())))
    if probes["lost"] or probes["duplicate_or_unknown"]:
        failures.append(f"{probes['lost']} probes lost, {probes['duplicate_or_unknown']} unexpected probe replies")
    failures += [f"probe: {f}" for f in fuzzer.probe_failures[:5] if "got no reply" not in f]
    lines.append(f"notifications to seeded players during the run: {fuzzer.notifications}")
    if fuzzer.notifications:
        failures.append(f"{fuzzer.notifications} notifications reached seeded players: something changed state")

    lines.append("processes (RSS MB: start / peak during / end / kernel high-water mark):")
    crashes = 0
    for name, pid in processes.pids.items():
        samples = [rss for _, rss in processes.samples[name]]
        start = rss_start.get(name, samples[0] if samples else 0)
        end = samples[-1] if samples else 0
        peak = max(samples or [0])
        status = processes.dead.get(name, "running")
        if name in processes.dead:
            crashes += 1
        lines.append(f"  {name:<12} pid {pid:<8} {status:<10} {start / 1024:7.1f} {peak / 1024:7.1f} {end / 1024:7.1f} "
                     f"{processes.hwm(name) / 1024:7.1f}")
        if samples and (end - start) / 1024 > args.rss_limit_mb:
            failures.append(f"{name} RSS grew {(end - start) / 1024:.0f} MB (limit {args.rss_limit_mb} MB)")
    lines.append(f"crashes or restarts: {crashes}")
    if crashes:
        failures.append(f"processes died: {processes.dead}")
    lines.append("state diff: " + ("none" if not state_diff else f"{len(state_diff)} differences"))
    lines += ["  " + d for d in state_diff[:40]]
    if state_diff:
        failures.append("the state after the run differs from the state before")
    verdict = not failures
    lines.append("failures: " + ("none" if verdict else ""))
    lines += ["  - " + f for f in failures]
    lines.append(f"VERDICT: {'PASS' if verdict else 'FAIL'}")
    lines.append("================================================================")
    log("\n".join(lines))
    if args.report:
        with open(args.report, "w") as f:
            json.dump({"seed": args.seed, "messages": dict(stats.messages), "frames": dict(stats.frames),
                       "replies": stats.replies, "pooled_sent": stats.pooled_sent, "codes": dict(stats.codes),
                       "probes": dict(probes), "rss_kb": {n: [s for s in processes.samples[n]] for n in processes.pids},
                       "state_diff": state_diff, "failures": failures, "verdict": "PASS" if verdict else "FAIL",
                       "duration_s": fuzzer.duration}, f, indent=1)
    return verdict


if __name__ == "__main__":
    sys.exit(main())
