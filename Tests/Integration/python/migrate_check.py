#!/usr/bin/env python3
"""Moves a real deployment from SQLite to PostgreSQL and checks that nothing was lost.

1. Starts the five processes on SQLite and fills them through the protocol: players, display
   names, a device, friends in every state, scores on every kind of board (best, lower-is-better,
   increment, server-only, recurring), a removed score and a reset board (an archive),
   achievements reported (partial, earned, repeatable), game events that earn achievements,
   challenges completed, declined and pending, a time-boxed one ended by an operator, an inbox
   item read, a ban, operators' board and achievement definitions (one board removed).
2. Reads every view (profiles, friend lists, player lookups, every board's top/around/entry/
   history/archives, achievement lists, inboxes, received/issued challenges and their details,
   the operators' challenge list, the whole event log, the leaderboard and achievement outboxes,
   receipts of earlier requests) and, last, the whole audit log.
3. `podium-data export` while the stack runs: refused. Kills the stack (SIGKILL, so that some
   of the data is only in SQLite's write-ahead logs), exports, imports into a new PostgreSQL database, and compares every table of every SQLite file with its PostgreSQL
   table, row for row.
4. Refusals that change nothing: an import into the now full database, a truncated dump, an
   altered dump, a duplicate key and a value its column cannot hold (both rolled back), a dump
   of "another version" (an extra column); later, an import under the running stack.
5. Starts the stack on PostgreSQL, in a data directory without the SQLite files, with the same
   keys; reads the audit log first (it must be the same), then every view again: they must be
   equal, field by field. Values that are per process by nature are not compared: each reply
   envelope's `id` and `timestamp` (only payloads are compared). Should a UTC day boundary pass
   between the two readings, the day's and week's standings and the recurring board (which
   start empty then by design) are left out.
6. New writes after the move: a new score ranks, a resent submission, event and challenge get
   their stored answers (`duplicate`) and are not applied twice, and the numbering goes on where
   it was (event sequence, audit seq, inbox position, leaderboard outbox).
7. `import --replace` over the database that now holds more: every table is the dump again.

Usage: migrate_check.py --bin DEBUG_BIN_DIR --pg-dir POSTGRES_CLUSTER_DIR [--keep]
(scripts/test runs it; the cluster is one started by scripts/postgres.) pyzmq and the standard
library only; psql for reading PostgreSQL.
"""

import argparse
import base64
import json
import os
import random
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid

import zmq

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
NAMES = ("gateway", "auth", "leaderboard", "achievement", "challenge")
FILES = ("gateway-events", "gateway-audit", "auth-accounts", "leaderboard-scores", "achievement-progress",
         "challenge-challenges")
SCHEMA = {"gateway-events": "podium_gateway", "gateway-audit": "podium_gateway", "auth-accounts": "podium_auth",
          "leaderboard-scores": "podium_leaderboard", "achievement-progress": "podium_achievement",
          "challenge-challenges": "podium_challenge"}
DASH, BLACKJACK, WHACK = "dash", "blackjack", "whackacac"
HIGH, FAST, COINS = "com.example.dash.highscore", "com.example.dash.fastest", "com.example.dash.coins"
RANKED, WEEKLY = "com.example.dash.ranked", "com.example.dash.weekly"
DEFINED = "com.example.dash.defined"
WHACK_BOARD = "com.dragonforged.whackacac.leaderboard"
BOARDS = {DASH: (HIGH, FAST, COINS, RANKED, WEEKLY, DEFINED), WHACK: (WHACK_BOARD,)}
# A `window` rule counts events within wall-clock time: not comparable across a restart anyway.
TIMING = {"com.dragonforged.whackacac.hit5Fast"}

passed = []
kept = {"work": None}  # the temporary directory, shown (with the processes' logs) on a failure


def log(message):
    print(f"migrate: {message}", flush=True)


def check(condition, what, detail=""):
    if not condition:
        print(f"FAIL: {what}" + (f"\n  {detail}" if detail else ""), file=sys.stderr, flush=True)
        work = kept["work"]
        if work:
            for folder in sorted(f for f in os.listdir(work) if f.startswith("logs-")):
                for name in NAMES:
                    path = os.path.join(work, folder, f"{name}.log")
                    if os.path.exists(path) and os.path.getsize(path):
                        with open(path, errors="replace") as f:
                            print(f"---- {folder}/{name}.log (last 15 lines)\n" + "".join(f.readlines()[-15:]), file=sys.stderr)
            print(f"files kept in {work}", file=sys.stderr)
        print(f"{len(passed)} passed, 1 failed", flush=True)
        raise SystemExit(1)
    passed.append(what)
    log(f"ok: {what}")


def free_ports(count):
    ports, port = [], random.SystemRandom().randrange(20000, 30000)
    while len(ports) < count and port < 32000:
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
                ports.append(port)
            except OSError:
                pass
        port += 1
    return ports


class Stack:
    """The five processes, from the debug build, with the keys of the deployment."""

    def __init__(self, bin_dir, data, logs, keys, database_url=None):
        self.bin_dir, self.logs, self.procs = bin_dir, logs, {}
        os.makedirs(logs, exist_ok=True)
        ports = free_ports(5)
        self.requests = f"tcp://127.0.0.1:{ports[0]}"
        self.admin_key = keys["admin"]
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("PODIUM_") or k == "PODIUM_LOG_LEVEL"}
        self.env.update({
            "PODIUM_DATA": data,
            "PODIUM_LOG_LEVEL": os.environ.get("PODIUM_LOG_LEVEL", "error"),
            "PODIUM_GATEWAY_REQUESTS": self.requests,
            "PODIUM_GATEWAY_NOTIFICATIONS": f"tcp://127.0.0.1:{ports[1]}",
            "PODIUM_BUS_PUBLISH": f"tcp://127.0.0.1:{ports[2]}",
            "PODIUM_BUS_SUBSCRIBE": f"tcp://127.0.0.1:{ports[3]}",
            "PODIUM_BUS_SERVICES": f"tcp://127.0.0.1:{ports[4]}",
            "PODIUM_HTTP": "off",
            "PODIUM_METRICS": "127.0.0.1:0",
            "PODIUM_GAMES_DIR": os.path.join(ROOT, "docs", "examples", "games"),
            "PODIUM_SESSION_TTL_S": "86400",
        })
        if database_url:
            self.env["PODIUM_DATABASE_URL"] = database_url
        self.keys = {
            "gateway": {"PODIUM_AUTH_TOKEN_KEY": keys["token"], "PODIUM_NOTIFICATION_SECRET": keys["notification"],
                        "PODIUM_ADMIN_KEY": keys["admin"], "PODIUM_GAME_SERVER_KEYS": f"{DASH}={keys['server']}"},
            "auth": {"PODIUM_AUTH_TOKEN_KEY": keys["token"]},
        }
        self.ctx = zmq.Context.instance()
        self.dealer = None

    def start(self):
        for name in NAMES:
            out = open(os.path.join(self.logs, f"{name}.log"), "ab")
            self.procs[name] = subprocess.Popen([os.path.join(self.bin_dir, f"podium-{name}")],
                                                env=dict(self.env, **self.keys.get(name, {})),
                                                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
            out.close()
        self.dealer = self.ctx.socket(zmq.DEALER)
        self.dealer.setsockopt(zmq.LINGER, 0)
        self.dealer.connect(self.requests)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            for name, proc in self.procs.items():
                if proc.poll() is not None:
                    check(False, f"podium-{name} keeps running", self.tail(name))
            reply = self.call({"type": "health"}, wait=3, allow_none=True)
            if reply and reply["type"] == "reply" and reply["payload"].get("ready"):
                return
            time.sleep(0.2)
        check(False, "the stack becomes ready within 60 s")

    def stop(self, crash=False):
        """SIGTERM, or with `crash` SIGKILL: the SQLite files keep their write-ahead logs unmerged."""
        if self.dealer is not None:
            self.dealer.close(linger=0)
            self.dealer = None
        for name in reversed(NAMES):
            proc = self.procs.get(name)
            if proc and proc.poll() is None:
                proc.kill() if crash else proc.terminate()
        for name in reversed(NAMES):
            proc = self.procs.pop(name, None)
            if proc is None:
                continue
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def tail(self, name):
        try:
            with open(os.path.join(self.logs, f"{name}.log"), errors="replace") as f:
                return "".join(f.readlines()[-20:])
        except OSError:
            return ""

    def call(self, request, wait=10.0, allow_none=False):
        request = dict(request)
        request.setdefault("id", uuid.uuid4().hex)
        self.dealer.send(json.dumps(request).encode())
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if self.dealer.poll(int(max(1, (deadline - time.monotonic()) * 1000))):
                envelope = json.loads(self.dealer.recv())
                if envelope.get("correlationId") == request["id"]:
                    return envelope
        if allow_none:
            return None
        check(False, f"a reply to {request['type']} within {wait} s")

    def ok(self, request):
        """The payload of a successful reply (retrying a moment while a service catches up)."""
        for _ in range(50):
            envelope = self.call(request)
            if envelope["type"] == "reply":
                return envelope["payload"]
            if envelope["payload"]["code"] not in ("service_unavailable", "storage_unavailable", "overloaded"):
                break
            time.sleep(0.2)
        check(False, f"{request['type']} succeeds", json.dumps(envelope)[:600])

    def as_player(self, player, type_, payload=None, game=None, request_id=None):
        request = {"type": type_, "token": player["sessionToken"], "payload": payload or {}}
        if game:
            request["gameId"] = game
        if request_id:
            request["id"] = request_id
        return self.ok(request)

    def as_admin(self, type_, payload=None, game=None, player_id=None):
        request = {"type": type_, "adminKey": self.admin_key, "payload": payload or {}}
        if game:
            request["gameId"] = game
        if player_id:
            request["playerId"] = player_id
        return self.ok(request)


# ------------------------------------------------------------------------------------------------
# Filling the deployment


def fill(stack):
    """Every kind of state, through the protocol. Returns the players and the requests to resend."""
    players = {}
    for name in ("ann", "bo", "cy", "di", "ed"):
        grant = stack.ok({"type": "auth.register", "payload": {
            "username": f"{name}_{uuid.uuid4().hex[:6]}", "password": f"pw {uuid.uuid4().hex}",
            "displayName": name.capitalize()}})
        players[name] = grant
    ann, bo, cy, di, ed = (players[n] for n in ("ann", "bo", "cy", "di", "ed"))
    stack.as_player(cy, "auth.display-name", {"displayName": "Cy the Second"})
    device = stack.ok({"type": "auth.device-login", "payload": {"deviceId": f"device-{uuid.uuid4().hex[:12]}"}})
    players["device"] = device

    def friends(a, type_, b):
        return stack.as_player(a, f"auth.friends.{type_}", {"playerId": b["playerId"]})

    friends(ann, "request", bo)
    friends(bo, "accept", ann)          # ann and bo: friends
    friends(ann, "request", cy)
    friends(cy, "accept", ann)          # ann and cy: friends
    friends(ann, "request", di)         # ann → di: outgoing / incoming
    friends(ed, "block", ann)           # ed blocked ann
    friends(bo, "request", cy)
    friends(cy, "decline", bo)          # back to none
    friends(bo, "request", di)
    friends(di, "accept", bo)
    friends(bo, "remove", di)           # friends, then removed

    requests = {}

    def submit(player, board, value, game=DASH, **extra):
        request_id = f"s-{uuid.uuid4().hex}"
        payload = {"boardId": board, "value": value, **extra}
        reply = stack.as_player(player, "leaderboard.submit", payload, game, request_id)
        return request_id, payload, reply

    # Text that COPY must escape (backslashes, tabs and newlines in the stored JSON) and beyond ASCII.
    requests["submit"] = submit(ann, HIGH, 1200, context=7,
                                metadata={"level": "3-1", "note": "tab\there\nline \\ back\\slash é ☃ \\N"})
    submit(ann, HIGH, 900)
    submit(bo, HIGH, 800)
    submit(cy, HIGH, 1500)
    submit(di, HIGH, 300)
    for player, value in ((ann, 41_000), (bo, 39_500), (cy, 52_250)):
        submit(player, FAST, value)
    for player, value in ((ann, 5), (ann, 7), (bo, 3)):
        submit(player, COINS, value)
    for player, value in ((ann, 10), (bo, 20)):
        submit(player, WEEKLY, value)
    submit(ann, WHACK_BOARD, 77, game=WHACK)
    stack.as_admin("leaderboard.submit", {"boardId": RANKED, "value": 1600}, DASH, ann["playerId"])
    stack.as_admin("leaderboard.submit", {"boardId": RANKED, "value": 1450}, DASH, bo["playerId"])
    # Operators' definitions (stored in the services' databases): a new board with a score, a
    # board defined and removed, a new achievement reported.
    stack.as_admin("leaderboard.admin.define", {"definition": {
        "id": DEFINED, "title": "Defined by an operator", "sortOrder": "lowerIsBetter", "minimum": 0}}, DASH)
    submit(bo, DEFINED, 17)
    stack.as_admin("leaderboard.admin.define", {"definition": {"id": "com.example.dash.gone", "title": "Gone"}}, DASH)
    stack.as_admin("leaderboard.admin.remove", {"boardId": "com.example.dash.gone"}, DASH)
    stack.as_admin("achievement.admin.define", {"definition": {
        "id": "com.example.blackjack.defined", "title": "Defined", "description": "Defined by an operator.",
        "earnedDescription": "Done.", "points": 5, "target": 4}}, BLACKJACK)
    stack.as_player(di, "achievement.report", {"reports": [
        {"achievementId": "com.example.blackjack.defined", "steps": 1}]}, BLACKJACK)
    # A challenge definition an operator added, and a game file's one an operator removed.
    stack.as_admin("challenge.admin.define", {"definition": {
        "id": "com.example.dash.defined", "title": "Defined", "details": "Defined by an operator.",
        "leaderboardId": DEFINED, "durations": [600000], "attempts": "unlimited"}}, DASH)
    stack.as_admin("challenge.admin.remove", {"definitionId": "com.example.dash.trial"}, DASH)
    # An operator's reset archives the fastest board; then new scores on the empty board.
    stack.as_admin("leaderboard.admin.reset", {"boardId": FAST}, DASH)
    submit(bo, FAST, 38_000)
    stack.as_admin("leaderboard.admin.remove-score", {"boardId": HIGH, "playerId": di["playerId"]}, DASH)

    # Achievements: reported (earned, partial, repeatable) and earned from game events.
    report_id = f"a-{uuid.uuid4().hex}"
    requests["report"] = (report_id, stack.as_player(
        ann, "achievement.report", {"reports": [{"achievementId": "com.example.blackjack.tutorial", "percentComplete": 100}]},
        BLACKJACK, report_id))
    stack.as_player(bo, "achievement.report", {"reports": [
        {"achievementId": "com.example.blackjack.regular", "steps": 2, "reportId": "r-1"}]}, BLACKJACK)
    stack.as_player(cy, "achievement.report", {"reports": [
        {"achievementId": "com.example.blackjack.regular", "steps": 3}]}, BLACKJACK)
    stack.as_player(cy, "achievement.report", {"reports": [
        {"achievementId": "com.example.blackjack.tutorial", "percentComplete": 40.5}]}, BLACKJACK)
    event_ids = []
    for i in range(4):
        request_id = f"e-{uuid.uuid4().hex}"
        payload = {"name": "cactus.hit", "value": 1, "attributes": {"round": str(i)}}
        event_ids.append((request_id, payload, stack.as_player(ann, "event.publish", payload, WHACK, request_id)))
    stack.as_player(bo, "event.publish", {"name": "match.end", "value": 120}, WHACK)
    stack.as_player(bo, "event.publish", {"name": "hand.played", "value": 1,
                                          "attributes": {"won": "true", "variant": "classic"}}, BLACKJACK)
    requests["event"] = event_ids[0]

    # Challenges: a score challenge completed, one declined, one pending; an achievement
    # challenge; a time-boxed challenge ended by an operator.
    issue_id = f"c-{uuid.uuid4().hex}"
    issue_payload = {"kind": "score", "boardId": HIGH, "receivers": [bo["playerId"]], "message": "beat this!"}
    requests["issue"] = (issue_id, issue_payload, stack.as_player(ann, "challenge.issue", issue_payload, DASH, issue_id))
    completed = requests["issue"][2]["challengeId"]
    declined = stack.as_player(ann, "challenge.issue", {"kind": "score", "boardId": HIGH, "receivers": [cy["playerId"]]},
                               DASH)["challengeId"]
    stack.as_player(cy, "challenge.decline", {"challengeId": declined}, DASH)
    stack.as_player(cy, "challenge.issue", {"kind": "score", "boardId": HIGH, "receivers": [ann["playerId"]],
                                            "expiresInMilliseconds": 2_592_000_000}, DASH)
    stack.as_player(ann, "challenge.issue", {"kind": "achievement", "achievementId": "com.example.blackjack.tutorial",
                                             "receivers": [bo["playerId"], cy["playerId"]]}, BLACKJACK)
    timed = stack.as_player(ann, "challenge.start", {"boardId": COINS, "durationMilliseconds": 600_000,
                                                     "receivers": [bo["playerId"]]}, DASH)["challengeId"]
    submit(bo, COINS, 4)
    submit(bo, HIGH, 1300)               # beats ann's 1200: completes the first challenge
    stack.as_admin("challenge.admin.end", {"challengeId": timed}, DASH)
    # Wait until the streams are applied: the score challenge completed, the timed one ended.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        one = stack.as_player(ann, "challenge.detail", {"challengeId": completed}, DASH)
        two = stack.as_player(ann, "challenge.detail", {"challengeId": timed}, DASH)
        if one["receivers"][0]["state"] == "completed" and two.get("state") == "ended":
            break
        time.sleep(0.2)
    check(one["receivers"][0]["state"] == "completed" and two.get("state") == "ended",
          "the score challenge completes and the time-boxed one ends (streams applied)", json.dumps([one, two]))
    items = stack.as_player(bo, "challenge.inbox", {}, DASH)["items"]
    stack.as_player(bo, "challenge.inbox.read", {"ids": [items[-1]["id"]]}, DASH)
    # An operator's ban (its player's sessions are revoked: read through the operator's lookup).
    stack.as_admin("auth.admin.ban", {"playerId": ed["playerId"], "reason": "testing the move"})
    # The achievement service has applied every event (its effects are part of a receipt).
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        receipt = stack.as_player(ann, "receipt.get", {"id": event_ids[-1][0], "type": "event.publish"}, WHACK)
        if receipt.get("effects", {}).get("applied"):
            break
        time.sleep(0.2)
    return players, requests


# ------------------------------------------------------------------------------------------------
# Views


def views(stack, players, requests):
    """Every view, by name: the reply payloads."""
    ann = players["ann"]
    named = {n: p for n, p in players.items() if n not in ("ed",)}  # ed is banned
    everyone = [p["playerId"] for p in players.values()]
    state = {}
    for name, player in named.items():
        state[f"profile {name}"] = stack.as_player(player, "auth.profile")
        state[f"friends {name}"] = stack.as_player(player, "auth.friends.list")
        for game, boards in BOARDS.items():
            for board in boards:
                for scope in ("allTime", "today", "week"):
                    state[f"entry {name} {board} {scope}"] = stack.as_player(
                        player, "leaderboard.entry", {"boardId": board, "scope": scope}, game)
                state[f"around {name} {board}"] = stack.as_player(player, "leaderboard.around", {"boardId": board}, game)
                state[f"history {name} {board}"] = stack.as_player(player, "leaderboard.history", {"boardId": board}, game)
                state[f"top friends {name} {board}"] = stack.as_player(
                    player, "leaderboard.top", {"boardId": board, "friendsOnly": True}, game)
        for game in (BLACKJACK, WHACK):
            listing = stack.as_player(player, "achievement.list", {}, game)
            listing["achievements"] = [a for a in listing["achievements"] if a["id"] not in TIMING]
            state[f"achievements {name} {game}"] = listing
        for game in (DASH, BLACKJACK):
            state[f"inbox {name} {game}"] = stack.as_player(player, "challenge.inbox", {}, game)
            state[f"inbox after 0 {name} {game}"] = stack.as_player(player, "challenge.inbox", {"after": 0}, game)
            for kind in ("received", "issued"):
                challenges = stack.as_player(player, f"challenge.{kind}", {}, game)
                state[f"challenges {kind} {name} {game}"] = challenges
                for challenge in challenges["challenges"]:
                    state[f"detail {name} {challenge['challengeId']}"] = stack.as_player(
                        player, "challenge.detail", {"challengeId": challenge["challengeId"]}, game)
    state["players"] = stack.as_player(ann, "auth.players", {"playerIds": everyone})
    for game, boards in BOARDS.items():
        for board in boards:
            for scope in ("allTime", "today", "week"):
                state[f"top {board} {scope}"] = stack.as_player(ann, "leaderboard.top",
                                                                {"boardId": board, "scope": scope, "limit": 200}, game)
            archives = stack.as_player(ann, "leaderboard.archives", {"boardId": board}, game)
            state[f"archives {board}"] = archives
            for archive in archives["archives"]:
                state[f"archive {board} {archive['archive']}"] = stack.as_player(
                    ann, "leaderboard.top", {"boardId": board, "archive": archive["archive"]}, game)
        state[f"boards {game}"] = stack.as_player(ann, "leaderboard.boards", {}, game)
        state[f"sets {game}"] = stack.as_player(ann, "leaderboard.sets", {}, game)
    state["weekly period 0"] = stack.as_player(ann, "leaderboard.top", {"boardId": WEEKLY, "period": 0}, DASH)
    for kind, game in (("submit", DASH), ("report", BLACKJACK), ("event", WHACK), ("issue", DASH)):
        request_id = requests[kind][0]
        state[f"receipt {kind}"] = stack.as_player(ann, "receipt.get", {"id": request_id}, game)
    state["receipt unknown"] = stack.as_player(ann, "receipt.get", {"id": "never-sent"}, DASH)
    # Operator views (each is audited: the audit log is read before and after these, see main).
    for name, player in players.items():
        state[f"lookup {name}"] = stack.as_admin("auth.admin.lookup", {"playerId": player["playerId"]})
    for game in (DASH, BLACKJACK):
        state[f"admin challenges {game}"] = stack.as_admin("challenge.admin.list", {"limit": 200}, game)
    for stream in ("events.read", "leaderboard.outbox.read", "achievement.outbox.read"):
        state[stream] = read_stream(stack, stream)
    return state


def read_stream(stack, type_):
    messages, after = [], 0
    while True:
        page = stack.as_admin(type_, {"after": after, "limit": 1000})
        messages += page["messages"]
        if not page["messages"] or len(page["messages"]) < 1000:
            return {"head": page["head"], "messages": messages}
        after = page["messages"][-1]["envelope"]["sequence"]


def audit(stack):
    entries, before = [], None
    while True:
        payload = {"limit": 200}
        if before is not None:
            payload["before"] = before
        page = stack.as_admin("admin.audit", payload)
        entries += page["entries"]
        if page.get("next") is None:
            return entries
        before = page["next"]


def differences(before, after, path=""):
    """Where two JSON values differ, as paths."""
    if type(before) is not type(after):
        return [f"{path}: {json.dumps(before)[:200]} != {json.dumps(after)[:200]}"]
    if isinstance(before, dict):
        found = []
        for key in sorted(set(before) | set(after)):
            if key not in before or key not in after:
                found.append(f"{path}.{key}: only {'before' if key in before else 'after'}")
            else:
                found += differences(before[key], after[key], f"{path}.{key}")
        return found
    if isinstance(before, list):
        if len(before) != len(after):
            return [f"{path}: {len(before)} items != {len(after)}"]
        return [d for i, (b, a) in enumerate(zip(before, after)) for d in differences(b, a, f"{path}[{i}]")]
    return [] if before == after else [f"{path}: {json.dumps(before)[:200]} != {json.dumps(after)[:200]}"]


# ------------------------------------------------------------------------------------------------
# Tables


def sqlite_tables(data):
    """Every data table of every SQLite file: {schema.table: (columns, sorted rows)}."""
    tables = {}
    for file in FILES:
        db = sqlite3.connect(f"file:{os.path.join(data, file + '.sqlite')}?mode=ro", uri=True)
        names = [r[0] for r in db.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' "
            "AND name NOT IN ('grdb_migrations','podium_opened')")]
        for name in names:
            columns = [r[1] for r in db.execute(f'PRAGMA table_info("{name}")')]
            rows = [list(r) for r in db.execute(f'SELECT {", ".join(chr(34) + c + chr(34) for c in columns)} FROM "{name}"')]
            if name == "inbox":  # its order (clients see it as `position`) is SQLite's rowid
                columns = ["position"] + columns
                rows = [list(r) for r in db.execute(f'SELECT rowid, * FROM "{name}"')]
            tables[f"{SCHEMA[file]}.{name}"] = (columns, rows)
        db.close()
    return tables


def psql(url, sql):
    result = subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", url.split("?")[0], "-c", sql],
                            capture_output=True, text=True, timeout=60)
    if result.returncode != 0:
        check(False, "psql runs", result.stderr)
    return result.stdout


def postgres_tables(url, columns_of):
    """The same tables in PostgreSQL, values as SQLite holds them (booleans 0/1, bytea bytes)."""
    tables = {}
    for qualified, columns in columns_of.items():
        schema, name = qualified.split(".")
        types = dict(line.split("|") for line in psql(url, (
            "SELECT column_name, data_type FROM information_schema.columns "
            f"WHERE table_schema = '{schema}' AND table_name = '{name}'")).splitlines())
        selected = ", ".join(
            f"encode(\"{c}\", 'base64')" if types[c] == "bytea" else f"\"{c}\"::int" if types[c] == "boolean" else f"\"{c}\""
            for c in columns)
        text = psql(url, f"SELECT COALESCE(json_agg(json_build_array({selected})), '[]') FROM {schema}.\"{name}\"")
        rows = json.loads(text)
        for row in rows:
            for i, c in enumerate(columns):
                if types[c] == "bytea" and row[i] is not None:
                    row[i] = base64.b64decode(row[i].replace("\n", ""))
        tables[qualified] = (columns, rows)
    return tables


def comparable(rows):
    """Rows in one order, bytes as base64; a double that is a whole number as PostgreSQL's JSON writes it."""
    def plain(v):
        if isinstance(v, bytes):
            return base64.b64encode(v).decode()
        if isinstance(v, float) and v.is_integer():
            return int(v)
        return v
    return sorted(json.dumps([plain(v) for v in row]) for row in rows)


def podium_data(bin_dir, *args, env=None):
    return subprocess.run([os.path.join(bin_dir, "podium-data"), *args], capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, **(env or {})))


def rewrite_dump(source, target, change):
    """A copy of a dump with `change(lines)` applied and a valid checksum (a dump of 'another version')."""
    with open(source, "rb") as f:
        lines = f.read().split(b"\n")[:-1]
    lines = change(lines[:-1])
    state = 0xcbf29ce484222325
    for line in lines:
        for byte in line + b"\n":
            state = ((state ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    rows = sum(1 for line in lines if line.startswith(b"["))
    end = json.dumps({"end": {"checksum": f"fnv1a64:{state:x}", "rows": rows}}, separators=(",", ":")).encode()
    with open(target, "wb") as f:
        f.write(b"\n".join(lines + [end]) + b"\n")


# ------------------------------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="the debug bin directory (podium-* and podium)")
    parser.add_argument("--pg-dir", required=True, help="a cluster started by scripts/postgres")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args()
    started = time.monotonic()
    work = tempfile.mkdtemp(prefix="podium-migrate.")
    kept["work"] = work
    tag = uuid.uuid4().hex[:8]

    def createdb(name):
        result = subprocess.run([os.path.join(ROOT, "scripts", "postgres"), "createdb", args.pg_dir, name],
                                capture_output=True, text=True, timeout=60)
        check(result.returncode == 0, f"scripts/postgres createdb {name}", result.stderr)
        return result.stdout.strip()

    target_url = createdb(f"migrate_{tag}")
    spare_url = createdb(f"migrate_spare_{tag}")
    keys = {name: os.urandom(32).hex() for name in ("token", "notification", "admin", "server")}
    data = os.path.join(work, "data")
    stack = Stack(args.bin, data, os.path.join(work, "logs-sqlite"), keys)
    try:
        stack.start()
        players, requests = fill(stack)
        day_before = time.gmtime().tm_yday
        before = views(stack, players, requests)
        audit_before = audit(stack)   # last: every view above that is an operator's is in it
        log(f"{len(before)} views read on SQLite; {len(audit_before)} audit entries")

        # Export refuses a running deployment.
        dump = os.path.join(work, "podium.dump")
        result = podium_data(args.bin, "export", "--data", data, "--output", dump)
        check(result.returncode != 0 and "open in another process" in result.stderr and not os.path.exists(dump),
              "export refuses a deployment whose services run", result.stdout + result.stderr)
    finally:
        # Killed, not stopped: what is only in the write-ahead logs must move too.
        stack.stop(crash=True)
    wal = [f for f in os.listdir(data) if f.endswith("-wal") and os.path.getsize(os.path.join(data, f)) > 0]
    log(f"SQLite files with a write-ahead log not merged: {', '.join(sorted(wal)) or 'none'}")

    sqlite_before = sqlite_tables(data)
    rows_total = sum(len(rows) for _, rows in sqlite_before.values())
    moved = time.monotonic()
    result = podium_data(args.bin, "export", "--data", data, "--output", dump)
    check(result.returncode == 0 and os.path.exists(dump), "podium-data export", result.stdout + result.stderr)
    log(result.stdout.strip())
    exported = time.monotonic()
    result = podium_data(args.bin, "import", "--input", dump, "--database-url", target_url)
    check(result.returncode == 0, "podium-data import", result.stdout + result.stderr)
    log(result.stdout.strip())
    imported = time.monotonic()

    columns_of = {name: columns for name, (columns, _) in sqlite_before.items()}
    after_tables = postgres_tables(target_url, columns_of)
    for name, (columns, rows) in sorted(sqlite_before.items()):
        check(comparable(rows) == comparable(after_tables[name][1]),
              f"table {name}: {len(rows)} rows equal in SQLite and PostgreSQL",
              "\n".join(differences(comparable(rows), comparable(after_tables[name][1]))[:10]))
    empty_pg_only = psql(target_url, "SELECT string_agg(table_schema || '.' || table_name, ',') FROM information_schema.tables "
                                     "WHERE table_schema LIKE 'podium_%' AND table_type = 'BASE TABLE'").strip().split(",")
    for name in empty_pg_only:
        if name not in sqlite_before and not name.endswith(".podium_migration"):
            count = psql(target_url, f"SELECT COUNT(*) FROM {name}").strip()
            check(count == "0", f"{name} (PostgreSQL only) is empty", count)

    # Refusals that change nothing.
    snapshot = json.dumps({k: comparable(v[1]) for k, v in postgres_tables(target_url, columns_of).items()})

    def refused(what, path, url, expect):
        result = podium_data(args.bin, "import", "--input", path, "--database-url", url)
        check(result.returncode != 0 and expect in result.stderr, f"import refuses {what}", result.stdout + result.stderr)

    refused("a target that holds data", dump, target_url, "already holds data")
    with open(dump, "rb") as f:
        whole = f.read()
    truncated = os.path.join(work, "truncated.dump")
    with open(truncated, "wb") as f:
        f.write(whole[: len(whole) * 2 // 3])
    refused("a truncated dump", truncated, target_url, "not a whole Podium dump")
    altered = os.path.join(work, "altered.dump")
    at = whole.index(b'"Cy the Second"')
    with open(altered, "wb") as f:
        f.write(whole[:at] + b'"Cy the Third"' + whole[at + len(b'"Cy the Second"'):])
    refused("an altered dump", altered, target_url, "checksum mismatch")
    check(json.dumps({k: comparable(v[1]) for k, v in postgres_tables(target_url, columns_of).items()}) == snapshot,
          "the refused imports changed nothing in the target")
    refused("a damaged dump into an empty database", truncated, spare_url, "not a whole Podium dump")
    check(psql(spare_url, "SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name LIKE 'podium_%'").strip() == "0",
          "a damaged dump is refused before the database is touched")

    def extra_column(lines):
        header = json.loads(lines[0])
        table = header["stores"][2]["tables"][0]
        table["columns"].append("nickname")
        out, current = [json.dumps(header, separators=(",", ":")).encode()], None
        for line in lines[1:]:
            if line.startswith(b"{"):
                current = json.loads(line)
            elif current == {"store": header["stores"][2]["file"], "table": table["name"]}:
                line = line[:-1] + b",null]"
            out.append(line)
        return out

    def bad_boolean(lines):
        header = json.loads(lines[0])
        store = next(s for s in header["stores"] if s["file"] == "challenge-challenges.sqlite")
        index = next(t for t in store["tables"] if t["name"] == "inbox")["columns"].index("read")
        out, current, changed = [lines[0]], None, False
        for line in lines[1:]:
            if line.startswith(b"{"):
                current = json.loads(line)
            elif current == {"store": store["file"], "table": "inbox"} and not changed:
                row = json.loads(line)
                row[index], changed = 2, True
                line = json.dumps(row, separators=(",", ":")).encode()
            out.append(line)
        return out

    def duplicate_player(lines):
        header = json.loads(lines[0])
        store = next(s for s in header["stores"] if s["file"] == "auth-accounts.sqlite")
        next(t for t in store["tables"] if t["name"] == "player")["rows"] += 1
        out, current = [json.dumps(header, separators=(",", ":")).encode()], None
        for line in lines[1:]:
            out.append(line)
            if line.startswith(b"{"):
                current = json.loads(line)
                if current == {"store": store["file"], "table": "player"}:
                    out.append(lines[lines.index(line) + 1])   # the table's first row, twice
        return out

    twice = os.path.join(work, "twice.dump")
    rewrite_dump(dump, twice, duplicate_player)
    refused("a row PostgreSQL refuses (a duplicate key), rolled back", twice, spare_url, "duplicate key")
    two = os.path.join(work, "boolean.dump")
    rewrite_dump(dump, two, bad_boolean)
    refused("a value its column cannot hold (2 in a boolean)", two, spare_url, "cannot hold the integer value 2")
    newer = os.path.join(work, "newer.dump")
    rewrite_dump(dump, newer, extra_column)
    refused("a dump of another version (a column the target has not)", newer, spare_url, "another version of Podium")
    spare_rows = psql(spare_url, "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema LIKE 'podium_%'")
    check(int(spare_rows.strip()) > 0, "the spare database has the schemas (the services' migrations ran)")
    counts = psql(spare_url, "SELECT string_agg(c::text, ',') FROM (SELECT (xpath('/row/c/text()', query_to_xml("
                             "'SELECT COUNT(*) AS c FROM ' || table_schema || '.' || table_name, false, true, '')))[1]::text::int AS c "
                             "FROM information_schema.tables WHERE table_schema LIKE 'podium_%' AND table_name <> 'podium_migration') t")
    check(all(c == "0" for c in counts.strip().split(",")), "the refused imports into the spare database wrote no row", counts)

    # The stack on PostgreSQL, without the SQLite files.
    moved_away = os.path.join(work, "sqlite-was-here")
    os.rename(data, moved_away)
    os.makedirs(data)
    stack = Stack(args.bin, data, os.path.join(work, "logs-postgresql"), keys, database_url=target_url)
    try:
        stack.start()
        audit_after = audit(stack)
        check(audit_after == audit_before, f"the audit log: {len(audit_before)} entries equal",
              "\n".join(differences(audit_before, audit_after)[:10]))
        after = {}
        deadline = time.monotonic() + 20
        while True:
            after = views(stack, players, requests)
            found = {name: differences(before[name], after.get(name)) for name in before}
            found = {k: v for k, v in found.items() if v}
            if not found and set(after) == set(before) or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        if time.gmtime().tm_yday != day_before:
            # A UTC day (or week) boundary passed between the two readings: the day's and week's
            # standings and the recurring board's period start empty by design, not by the move.
            moving = [k for k in found if " today" in k or " week" in k or WEEKLY in k]
            log(f"a UTC day boundary passed: not comparing {len(moving)} views of the day, week and recurring board")
            found = {k: v for k, v in found.items() if k not in moving}
        check(set(after) == set(before), "the same views exist after the move", str(set(after) ^ set(before)))
        check(not found, f"every view is equal after the move ({len(before)} views, field by field)",
              "\n".join(f"{k}: {v[:5]}" for k, v in list(found.items())[:10]))
        check(not any(f.endswith(".sqlite") for f in os.listdir(data)), "no SQLite file was made on PostgreSQL")

        newest = stack.as_admin("admin.audit", {"limit": 1})["entries"]
        result = podium_data(args.bin, "import", "--input", dump, "--database-url", target_url, "--replace")
        check(result.returncode != 0 and "is the stack running on it?" in result.stderr,
              "import refuses a target a running stack uses (even with --replace)", result.stdout + result.stderr)
        check(stack.as_admin("admin.audit", {"limit": 1})["entries"] == newest,
              "the refused import changed nothing under the running stack")

        # New writes after the move.
        ann, bo, cy = players["ann"], players["bo"], players["cy"]
        request_id, payload, reply = requests["submit"]
        again = stack.as_player(ann, "leaderboard.submit", payload, DASH, request_id)
        check(again.get("duplicate") is True and {k: v for k, v in again.items() if k != "duplicate"} == reply,
              "a resent score gets its stored receipt", json.dumps([reply, again]))
        history = stack.as_player(ann, "leaderboard.history", {"boardId": HIGH}, DASH)
        check(history == before[f"history ann {HIGH}"], "the resent score was not applied twice")
        request_id, payload, reply = requests["event"]
        again = stack.as_player(ann, "event.publish", payload, WHACK, request_id)
        check(again.get("duplicate") is True and again["sequence"] == reply["sequence"],
              "a resent event gets its stored acknowledgement", json.dumps([reply, again]))
        request_id, payload, reply = requests["issue"]
        again = stack.as_player(ann, "challenge.issue", payload, DASH, request_id)
        check(again["challengeId"] == reply["challengeId"], "a resent challenge gets the same challenge")
        new = stack.as_player(cy, "leaderboard.submit", {"boardId": HIGH, "value": 2000}, DASH)
        check(new["entry"]["rank"] == 1 and new["improved"], "a new score ranks first after the move", json.dumps(new))
        event = stack.as_player(bo, "event.publish", {"name": "match.end", "value": 1}, WHACK)
        check(event["sequence"] == before["events.read"]["head"] + 1, "the event log numbers on from its head",
              f"{event['sequence']} after {before['events.read']['head']}")
        challenge = stack.as_player(ann, "challenge.issue", {"kind": "score", "boardId": HIGH,
                                                             "receivers": [bo["playerId"]]}, DASH)
        items = stack.as_player(bo, "challenge.inbox", {}, DASH)["items"]
        old_positions = [i["position"] for i in before["inbox bo dash"]["items"]]
        check(items[0]["details"]["challengeId"] == challenge["challengeId"] and items[0]["position"] > max(old_positions),
              "a new inbox item comes after the moved ones", json.dumps(items[:2]))
        stack.as_admin("leaderboard.admin.reset", {"boardId": COINS}, DASH)
        entries = audit(stack)
        check(entries[0]["seq"] == max(e["seq"] for e in audit_after) + len(entries) - len(audit_after)
              and len({e["seq"] for e in entries}) == len(entries),
              "new audit entries number on after the moved ones", json.dumps(entries[:2])[:400])
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            outbox = read_stream(stack, "leaderboard.outbox.read")
            if outbox["head"] > before["leaderboard.outbox.read"]["head"]:
                break
            time.sleep(0.2)
        check(outbox["messages"][:len(before["leaderboard.outbox.read"]["messages"])]
              == before["leaderboard.outbox.read"]["messages"]
              and outbox["head"] == before["leaderboard.outbox.read"]["head"] + 1,
              "the leaderboard outbox numbers on from its head", f"{outbox['head']}")
    finally:
        stack.stop()

    # --replace empties the schemas first: the target is the dump again, the new writes gone.
    result = podium_data(args.bin, "import", "--input", dump, "--database-url", target_url, "--replace")
    check(result.returncode == 0, "import --replace into a database that holds data", result.stdout + result.stderr)
    replaced = postgres_tables(target_url, columns_of)
    check(all(comparable(rows) == comparable(replaced[name][1]) for name, (_, rows) in sqlite_before.items()),
          "after import --replace every table equals its SQLite table again")

    log(f"moved {rows_total} rows in {len(sqlite_before)} tables: export {exported - moved:.2f} s, "
        f"import {imported - exported:.2f} s; whole check {time.monotonic() - started:.1f} s")
    print(f"{len(passed)} passed, 0 failed", flush=True)
    if args.keep:
        log(f"files kept in {work}; databases {target_url.split('/')[-1].split('?')[0]} and {spare_url.split('/')[-1].split('?')[0]}")
    else:
        shutil.rmtree(work, ignore_errors=True)
        for url in (target_url, spare_url):
            name = url.split("/")[-1].split("?")[0]
            # Clean-up only, after every check passed: a DROP that waits on a slow checkpoint
            # (the disk busy with the suites beside this one) is logged, not a failure; the
            # cluster is a throwaway one anyway.
            try:
                psql(url.replace(f"/{name}?", "/postgres?"), f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
            except (subprocess.TimeoutExpired, SystemExit) as error:
                log(f"database {name} not dropped ({type(error).__name__}); the throwaway cluster keeps it")


if __name__ == "__main__":
    main()
