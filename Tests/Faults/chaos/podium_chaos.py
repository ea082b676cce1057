#!/usr/bin/env python3
"""Fault test for Podium: the same deterministic stream of state-changing requests is sent to a
fault-free stack (run A) and to a stack whose processes are killed, restarted, paused, stopped
as a whole and whose gateway disk fills up (run B). The final states, read through the protocol,
must be equal; every acknowledged request must be found by `receipt.get` or in the state.

Started by scripts/chaos, which builds the binaries and passes --bin. Written from
docs/PROTOCOL.md and the durability notes of issue 7 (request ids as idempotency keys, the
gateway's event log, durable streams, receipt.get). Only pyzmq and the standard library.

Determinism: the stream is a function of the seed. It runs in rounds; each round has a "play"
phase (scores, events, reports) and a "challenge" phase (challenge.issue / challenge.start),
with a barrier across all clients between phases, so that what a challenge sees (the issuer's
entry, the receivers' earned counts) does not depend on timing. Each player's operations run
strictly in order (one in flight per player). Score challenges are only issued to receivers
whose scores so far cannot beat the challenge (see `known issue` in the report), and the
timing-dependent `window` achievement (whackacac.hit5Fast) is left out of the comparison.

Defined challenges (PROTOCOL 12.12): an operator defines a challenge of its own
(`challenge.admin.define`, round 0; one more it removes in round 1, `challenge.admin.remove`),
and the challenge phases start sprints, a blitz and that
operator's duel from their definitions; the later play phases hold every participant's runs
(tagged scores, or match.end events for the blitz), one more than the definition allows. The
definitions and each defined challenge's standings (ranks, best values, runs counted) are
compared between the runs with the rest of the state.
"""

import argparse
import collections
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid

import zmq

NAMES = ("gateway", "auth", "leaderboard", "achievement", "challenge")
SERVICES = NAMES[1:]
RETRYABLE = {"service_unavailable", "service_timeout", "overloaded", "rate_limited", "storage_unavailable",
             "duplicate_request_id"}
REPLY_TIMEOUT = 7.0  # the gateway answers forwarded requests within PODIUM_REQUEST_TIMEOUT_MS (5 s)
HIGH, FAST, COINS = "com.example.dash.highscore", "com.example.dash.fastest", "com.example.dash.coins"
EXCLUDED_ACHIEVEMENTS = {"com.dragonforged.whackacac.hit5Fast"}  # a `window` rule: wall-clock timing
GAMES_WITH_ACHIEVEMENTS = ("whackacac", "blackjack")
CHALLENGE_GAMES = ("dash", "blackjack", "whackacac")
BAND = 1000
DAY = 86400000
# Defined challenges (PROTOCOL 12.12): the game files' sprint (tagged runs, best of 3) and blitz
# (whackacac's match.end events as runs, best of 3), and one an operator defines during the run
# (challenge.admin.define: one run, not repeatable).
SPRINT = "com.example.dash.sprint"
BLITZ = "com.dragonforged.whackacac.blitz"
CHAOS_DEFINITION = {
    "id": "com.example.dash.chaos-duel", "title": "Chaos Duel",
    "details": "One run each, on the high score board; defined by the chaos test's operator.",
    "leaderboardId": HIGH, "durations": [DAY, 2 * DAY], "attempts": 1, "repeatable": False,
}
# One more the operator defines in round 0 and removes in round 1 (challenge.admin.remove: a resend
# after a lost reply answers `removed: false`, nothing changes).
GONE_DEFINITION = dict(CHAOS_DEFINITION, id="com.example.dash.chaos-gone", title="Chaos Gone")
DEFINED = {  # definition id -> (game, attempts allowed, runs by event)
    SPRINT: ("dash", 3, False),
    BLITZ: ("whackacac", 3, True),
    CHAOS_DEFINITION["id"]: ("dash", 1, False),
}


def log(message):
    print(f"chaos: {message}", flush=True)


def encode(obj):
    return json.dumps(obj, separators=(",", ":")).encode()


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
    if len(ports) < count:
        raise SystemExit("chaos: no free ports")
    return ports


def random_key():
    return os.urandom(32).hex()


def call_once(ctx, endpoint, request, timeout):
    """One request on a fresh DEALER to one endpoint; the reply envelope or None."""
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect(endpoint)
    try:
        request = dict(request)
        request.setdefault("id", uuid.uuid4().hex)
        sock.send(encode(request))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if sock.poll(int(max(1, (deadline - time.monotonic()) * 1000))):
                envelope = json.loads(sock.recv())
                if envelope.get("correlationId") == request["id"]:
                    return envelope
        return None
    finally:
        sock.close()


# ------------------------------------------------------------------------------------------------
# The stack


class Stack:
    """The five processes of one run, started from the debug binaries with generated keys."""

    def __init__(self, name, bin_dir, root, games_dir, gateway_data=None, database_url=None):
        self.name, self.bin_dir, self.root = name, bin_dir, root
        self.data = os.path.join(root, "data")
        self.gateway_data = gateway_data or self.data
        self.logs = os.path.join(root, "logs")
        os.makedirs(self.data, exist_ok=True)
        os.makedirs(self.logs, exist_ok=True)
        ports = free_ports(5)
        self.requests = f"tcp://127.0.0.1:{ports[0]}"
        self.notifications = f"tcp://127.0.0.1:{ports[1]}"
        self.admin_key = random_key()
        token_key = random_key()
        self.env = dict(os.environ)
        for key in list(self.env):
            if key.startswith("PODIUM_") and key != "PODIUM_LOG_LEVEL":
                del self.env[key]
        self.env.update({
            "PODIUM_DATA": self.data,
            "PODIUM_LOG_LEVEL": os.environ.get("PODIUM_LOG_LEVEL", "error"),
            "PODIUM_GATEWAY_REQUESTS": self.requests,
            "PODIUM_GATEWAY_NOTIFICATIONS": self.notifications,
            "PODIUM_BUS_PUBLISH": f"tcp://127.0.0.1:{ports[2]}",
            "PODIUM_BUS_SUBSCRIBE": f"tcp://127.0.0.1:{ports[3]}",
            "PODIUM_BUS_SERVICES": f"tcp://127.0.0.1:{ports[4]}",
            "PODIUM_HTTP": "127.0.0.1:0",
            "PODIUM_METRICS": "127.0.0.1:0",
            "PODIUM_GAMES_DIR": games_dir,
            "PODIUM_SESSION_TTL_S": "86400",
        })
        if database_url:
            self.env["PODIUM_DATABASE_URL"] = database_url
        self.keys = {
            "gateway": {"PODIUM_AUTH_TOKEN_KEY": token_key, "PODIUM_NOTIFICATION_SECRET": random_key(),
                        "PODIUM_ADMIN_KEY": self.admin_key,
                        "PODIUM_GAME_SERVER_KEYS": f"dash={random_key()},blackjack={random_key()}",
                        "PODIUM_DATA": self.gateway_data},
            "auth": {"PODIUM_AUTH_TOKEN_KEY": token_key},
        }
        self.procs = {}
        self.starts = collections.Counter()
        self.ctx = zmq.Context.instance()

    def start(self, name):
        env = dict(self.env, **self.keys.get(name, {}))
        out = open(os.path.join(self.logs, f"{name}.log"), "ab")
        self.procs[name] = subprocess.Popen([os.path.join(self.bin_dir, f"podium-{name}")], env=env,
                                            stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
        out.close()
        self.starts[name] += 1

    def start_all(self):
        for name in NAMES:
            self.start(name)
        self.wait_ready(60)

    def kill(self, name, sig=signal.SIGKILL):
        proc = self.procs[name]
        proc.send_signal(sig)
        proc.wait(30)

    def stop_all(self):
        for name in reversed(NAMES):
            proc = self.procs.get(name)
            if proc and proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 15
        for name in reversed(NAMES):
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

    def call(self, request, timeout=3.0):
        """One request on a fresh DEALER; the reply envelope or None."""
        return call_once(self.ctx, self.requests, request, timeout)

    def wait_ready(self, seconds, name=None):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if name is None:
                reply = self.call({"type": "health"}, 3)
                if reply and reply["type"] == "reply" and reply["payload"].get("ready"):
                    return True
            elif name == "gateway":
                reply = self.call({"type": "gateway.health"}, 2)
                if reply and reply["type"] == "reply":
                    return True
            else:
                reply = self.call({"type": f"{name}.health"}, 2)
                if reply and reply["type"] == "reply" and reply["payload"].get("ready"):
                    return True
            time.sleep(0.2)
        return False

    def admin(self, type_, payload, timeout=5):
        return self.call({"type": type_, "adminKey": self.admin_key, "payload": payload}, timeout)


# ------------------------------------------------------------------------------------------------
# The stream


def build_stream(seed, ops, players):
    """rounds[r] = (play, challenges): each a dict player -> [op]. An op is a dict with id, type,
    gameId, payload (receivers as player indexes: mapped to ids when sent).

    Defined challenges: an operator defines CHAOS_DEFINITION in round 0's play phase; the
    challenge phases start sprints, a blitz and chaos duels (with 2-3 players, friends of the
    starter) from the definitions, and the later play phases hold each participant's runs: one
    more than the definition allows (the last must not count), as scores tagged with the
    challenge's id (`runOf`: the start's op id) or, for the blitz, match.end events with a value.
    A run's value is in the round's band, r * BAND + k * players + p for player p, so no two
    participants tie and the order of the standings does not depend on timing."""
    rng = random.Random(seed)
    rounds_count = max(4, min(60, ops // 2000 + 4))
    per_round = ops / rounds_count
    friends = {p: sorted({(p + 1) % players, (p + 2) % players, (p - 1) % players, (p - 2) % players}) for p in range(players)}
    counters = collections.Counter()
    best = {}  # (player, board) -> best value, for the challenge constraints
    regular_steps = collections.Counter()
    regular_earned = collections.Counter()
    tutorial = collections.Counter()
    inbox_bound = collections.Counter()  # (player, game) -> items at most
    lists_bound = collections.Counter()  # (player, game, received|issued)
    match = {p: 0 for p in range(players)}
    invited = set()  # (redeemer, owner) pairs that used a friend code
    timed = []  # (starter, start op id, participants) of earlier rounds, for invite codes
    defined_runs = []  # [start op id, definition id, {participant: runs still to send}]
    took_duel = set()  # players in a chaos duel (not repeatable: each takes part once)
    slot = max(1, BAND // players)

    session = {p: 0 for p in range(players)}
    expected_boards = collections.defaultdict(dict)
    rounds = []
    total = 0

    def new_op(p, type_, game, payload):
        nonlocal total
        k = counters[p]
        counters[p] += 1
        total += 1
        return {"id": f"{seed}-{p}-{k}", "type": type_, "gameId": game, "payload": payload, "player": p}

    for r in range(rounds_count):
        play = {p: [] for p in range(players)}
        challenge = {p: [] for p in range(players)}
        budget = int(per_round * (r + 1)) - int(per_round * r)
        for _ in range(int(budget * 0.97)):
            p = rng.randrange(players)
            roll = rng.random()
            if roll < 0.12:
                value = r * BAND + rng.randrange(BAND)
                op = new_op(p, "leaderboard.submit", "dash", {"boardId": HIGH, "value": value})
                best[(p, HIGH)] = max(best.get((p, HIGH), -1), value)
                expected_boards[HIGH][p] = best[(p, HIGH)]
            elif roll < 0.18:
                value = (rounds_count - r) * BAND + rng.randrange(BAND)
                op = new_op(p, "leaderboard.submit", "dash", {"boardId": FAST, "value": value})
                expected_boards[FAST][p] = min(expected_boards[FAST].get(p, value), value)
            elif roll < 0.30:
                value = rng.randrange(1, 50)
                op = new_op(p, "leaderboard.submit", "dash", {"boardId": COINS, "value": value})
                expected_boards[COINS][p] = expected_boards[COINS].get(p, 0) + value
            elif roll < 0.55:
                if rng.random() < 0.03:
                    match[p] += 1
                op = new_op(p, "event.publish", "whackacac",
                            {"name": "cactus.hit", "value": 1, "attributes": {"matchId": f"m{p}-{match[p]}"}})
            elif roll < 0.58:
                op = new_op(p, "event.publish", "whackacac",
                            {"name": "match.end", "attributes": {"matchId": f"m{p}-{match[p]}"}})
                match[p] += 1
            elif roll < 0.63:
                op = new_op(p, "event.publish", "whackacac",
                            {"name": "tick", "value": rng.randrange(1, 30), "attributes": {"matchId": f"m{p}-{match[p]}"}})
            elif roll < 0.80:
                if rng.random() < 0.05:
                    session[p] += 1
                op = new_op(p, "event.publish", "blackjack", {"name": "hand.played", "attributes": {
                    "sessionId": f"s{p}-{session[p]}", "variant": rng.choice(["classic", "european", "spanish", "vegas"]),
                    "doubledDown": rng.random() < 0.2, "won": rng.random() < 0.45}})
            elif roll < 0.86:
                op = new_op(p, "event.publish", "blackjack", {"name": "balance", "value": rng.choice([5, 50, 120, 30, 8, 200]),
                                                              "attributes": {"sessionId": f"s{p}-{session[p]}"}})
            elif roll < 0.93:
                regular_steps[p] = regular_steps[p] % 3 + 1
                if regular_steps[p] == 3:
                    regular_earned[p] += 1
                op = new_op(p, "achievement.report", "blackjack", {"reports": [
                    {"achievementId": "com.example.blackjack.regular", "steps": regular_steps[p]}]})
            else:
                tutorial[p] = min(100, tutorial[p] + rng.choice([5, 10, 20]))
                op = new_op(p, "achievement.report", "blackjack", {"reports": [
                    {"achievementId": "com.example.blackjack.tutorial", "percentComplete": tutorial[p]}]})
            play[p].append(op)
        # Defined challenges: the operator's definition first of all (round 0), then the runs of
        # the challenges started in earlier rounds, at most 2 per participant and round.
        if r == 0:
            define = new_op(0, "challenge.admin.define", "dash", {"definition": CHAOS_DEFINITION})
            define["admin"] = "operator"
            gone = new_op(0, "challenge.admin.define", "dash", {"definition": GONE_DEFINITION})
            gone["admin"] = "operator"
            play[0][0:0] = [define, gone]
        if r == 1:
            remove = new_op(0, "challenge.admin.remove", "dash", {"definitionId": GONE_DEFINITION["id"]})
            remove["admin"] = "operator"
            play[0].insert(0, remove)
        for start_id, definition_id, left in defined_runs:
            game, _, by_event = DEFINED[definition_id]
            for q in sorted(left):
                for _ in range(min(2, left[q])):
                    left[q] -= 1
                    value = r * BAND + rng.randrange(slot) * players + q
                    if by_event:
                        op = new_op(q, "event.publish", game, {"name": "match.end", "value": value,
                                                               "attributes": {"matchId": f"blitz-{q}-{counters[q]}"}})
                    else:
                        op = new_op(q, "leaderboard.submit", game, {"boardId": HIGH, "value": value, "runOf": start_id})
                        best[(q, HIGH)] = max(best.get((q, HIGH), -1), value)
                        expected_boards[HIGH][q] = best[(q, HIGH)]
                    op["run"] = (start_id, definition_id, value)  # for defined_model
                    play[q].insert(rng.randrange(len(play[q]) + 1), op)
        # The challenge phase: a few challenges, each valid and deterministic.
        for _ in range(max(1, budget - int(budget * 0.97))):
            p = rng.randrange(players)
            kind = rng.random()
            candidates = friends[p]
            if kind < 0.6 and (p, HIGH) in best:
                mine = best[(p, HIGH)]
                # Only receivers whose scores so far cannot beat it: a score from before the
                # challenge must not complete it, whenever the service reads that score.
                receivers = [q for q in candidates if best.get((q, HIGH), -1) <= mine
                             and inbox_bound[(q, "dash")] < 180 and lists_bound[(q, "dash", "received")] < 190]
                if not receivers or inbox_bound[(p, "dash")] >= 180 or lists_bound[(p, "dash", "issued")] >= 190:
                    continue
                receivers = rng.sample(receivers, min(len(receivers), rng.choice([1, 1, 2])))
                op = new_op(p, "challenge.issue", "dash", {"kind": "score", "boardId": HIGH, "receivers": receivers,
                                                           "message": f"beat r{r}"})
                game = "dash"
            elif kind < 0.85 and regular_earned[p] > 0:
                receivers = [q for q in candidates if inbox_bound[(q, "blackjack")] < 180
                             and lists_bound[(q, "blackjack", "received")] < 190]
                if not receivers or inbox_bound[(p, "blackjack")] >= 180 or lists_bound[(p, "blackjack", "issued")] >= 190:
                    continue
                receivers = rng.sample(receivers, 1)
                op = new_op(p, "challenge.issue", "blackjack", {"kind": "achievement",
                                                                "achievementId": "com.example.blackjack.regular",
                                                                "receivers": receivers})
                game = "blackjack"
            elif kind >= 0.85:
                receivers = [q for q in candidates if inbox_bound[(q, "dash")] < 180
                             and lists_bound[(q, "dash", "received")] < 190]
                if not receivers or lists_bound[(p, "dash", "issued")] >= 190 or lists_bound[(p, "dash", "received")] >= 190:
                    continue
                receivers = rng.sample(receivers, 1)
                op = new_op(p, "challenge.start", "dash", {"boardId": HIGH, "durationMilliseconds": 2592000000,
                                                           "receivers": receivers, "message": f"timed r{r}"})
                game = "dash"
                lists_bound[(p, game, "received")] += 1
            else:
                continue
            lists_bound[(p, game, "issued")] += 1
            inbox_bound[(p, game)] += len(op["payload"]["receivers"])  # completed-by-receiver
            for q in op["payload"]["receivers"]:
                inbox_bound[(q, game)] += 2  # received, completed
                lists_bound[(q, game, "received")] += 1
            challenge[p].append(op)
        # Challenges started from definitions (not in the last round: their runs come later).
        if r < rounds_count - 1:
            starts = [SPRINT] + ([CHAOS_DEFINITION["id"]] if r in (0, 2) else []) + ([BLITZ] if r == 1 else [])
            for definition_id in starts:
                game, attempts, _ = DEFINED[definition_id]
                duel = definition_id == CHAOS_DEFINITION["id"]
                for _ in range(20):  # a starter with a friend who may take part
                    p = rng.randrange(players)
                    receivers = [q for q in friends[p] if inbox_bound[(q, game)] < 180
                                 and lists_bound[(q, game, "received")] < 190 and not (duel and q in took_duel)]
                    if receivers and lists_bound[(p, game, "issued")] < 190 and lists_bound[(p, game, "received")] < 190 \
                            and not (duel and p in took_duel):
                        break
                else:
                    continue
                receivers = rng.sample(receivers, min(len(receivers), rng.choice([1, 2])))
                op = new_op(p, "challenge.start", game, {"definitionId": definition_id, "durationMilliseconds": DAY,
                                                         "receivers": receivers})
                op["defined"] = True
                challenge[p].append(op)
                lists_bound[(p, game, "issued")] += 1
                lists_bound[(p, game, "received")] += 1
                for q in receivers:
                    inbox_bound[(q, game)] += 1  # received
                    lists_bound[(q, game, "received")] += 1
                if duel:
                    took_duel.update([p, *receivers])
                defined_runs.append([op["id"], definition_id, {q: attempts + 1 for q in [p, *receivers]}])
        # Operators' notices (admin key), each then read or deleted by its player: the inbox must
        # keep every notice once (a resend finds it by its request id) and apply each change once.
        for _ in range(max(1, budget // 200)):
            p = rng.randrange(players)
            notice = new_op(p, "inbox.admin.notify", "dash", {"message": f"notice r{r}"})
            notice["admin"] = True
            follow = "inbox.read" if rng.random() < 0.5 else "inbox.delete"
            play[p] += [notice, new_op(p, follow, "dash", {"noticeOf": notice["id"]})]
        # Invite codes: a friend code made in the play phase and entered by a player who is not a
        # friend yet in the challenge phase (a friend request each); a code for a time-boxed
        # challenge of an earlier round, entered by someone not in it yet (one more participant).
        for _ in range(max(1, budget // 300)):
            owner = rng.randrange(players)
            strangers = [q for q in range(players) if q != owner and q not in friends[owner] and owner not in friends[q]
                         and (q, owner) not in invited and (owner, q) not in invited]
            if not strangers:
                continue
            q = rng.choice(strangers)
            invited.add((q, owner))
            made = new_op(owner, "auth.invites.create", None, {})
            play[owner].append(made)
            # Entered from a game: the owner's friend.requested is kept in that game's inbox (made
            # from the auth service's stream), compared between the runs with the rest of it.
            challenge[q].append(new_op(q, "auth.invites.redeem", "dash", {"codeOf": made["id"]}))
            inbox_bound[(owner, "dash")] += 1  # friend.requested
            # Another code of the owner's, revoked by the owner in the challenge phase (auth.invites.revoke).
            spare = new_op(owner, "auth.invites.create", None, {})
            play[owner].append(spare)
            challenge[owner].append(new_op(owner, "auth.invites.revoke", None, {"codeOf": spare["id"]}))
        for starter, start_id, participants in list(timed):
            if rng.random() > 0.5 or len(participants) >= 21:
                continue
            joiners = [q for q in range(players) if q not in participants and lists_bound[(q, "dash", "received")] < 190]
            if not joiners or inbox_bound[(starter, "dash")] >= 180:
                continue
            q = rng.choice(joiners)
            made = new_op(starter, "challenge.invite", "dash", {"challengeOf": start_id})
            play[starter].append(made)
            challenge[q].append(new_op(q, "challenge.join", "dash", {"codeOf": made["id"]}))
            participants.add(q)
            lists_bound[(q, "dash", "received")] += 1
            inbox_bound[(starter, "dash")] += 1  # challenge.joined
        for queue in challenge.values():
            for op in queue:
                if op["type"] == "challenge.start" and not op.get("defined"):
                    timed.append((op["player"], op["id"], {op["player"], *op["payload"]["receivers"]}))
        rounds.append((play, challenge))
    # Top up to the asked number with coin submissions (no challenge looks at that board).
    while total < ops:
        p = rng.randrange(players)
        value = rng.randrange(1, 50)
        rounds[-1][0][p].append(new_op(p, "leaderboard.submit", "dash", {"boardId": COINS, "value": value}))
        expected_boards[COINS][p] = expected_boards[COINS].get(p, 0) + value
    return rounds, friends, total, expected_boards


def defined_model(rounds):
    """The standings each defined challenge must end with, from the stream alone: per participant
    the runs in their order (each player's operations are sent in order), the first `attempts`
    of them counted, the best of those the value (every board here is higherIsBetter).
    start op id -> [{"rank", "playerId": "P<n>", "value", "attempts"}]."""
    runs = collections.defaultdict(lambda: collections.defaultdict(list))
    allowed = {}
    for play, challenge in rounds:
        for phase in (play, challenge):
            for p, ops in phase.items():
                for op in ops:
                    if "run" in op:
                        start_id, definition_id, value = op["run"]
                        runs[start_id][p].append(value)
                        allowed[start_id] = DEFINED[definition_id][1]
    model = {}
    for start_id, by_player in runs.items():
        rows = sorted(((max(values[:allowed[start_id]]), min(len(values), allowed[start_id]), p)
                       for p, values in by_player.items()), reverse=True)
        model[start_id] = [{"rank": i + 1, "playerId": f"P{p}", "value": value, "attempts": attempts}
                           for i, (value, attempts, p) in enumerate(rows)]
    return model


# ------------------------------------------------------------------------------------------------
# Clients


class Ledger:
    """What the clients saw, shared by all client threads of a run."""

    def __init__(self):
        self.lock = threading.Lock()
        self.acked = {}  # id -> (op, reply payload)
        self.sends = 0
        self.retries = 0
        self.timeouts = 0
        self.reconnects = 0
        self.duplicates = 0  # acknowledgements marked duplicate: a resend answered with the original
        self.errors = collections.Counter()  # retryable error codes seen
        self.rejected = []  # (op, error): non-retryable errors, none expected
        self.storage_unavailable_while_full = 0
        self.internal_errors = []  # (id, type, message): internal_error answers, retried
        self.first_sent = {}  # id -> monotonic time of its first send
        self.acked_at = {}  # id -> monotonic time of its acknowledgement

    def progress(self):
        with self.lock:
            return len(self.acked)


def is_duplicate(op, payload):
    if not isinstance(payload, dict):
        return False
    if payload.get("duplicate") is True:
        return True
    return False


class Client(threading.Thread):
    def __init__(self, run, index, players, rounds, barrier):
        super().__init__(daemon=True, name=f"client-{index}")
        self.run_, self.players, self.rounds, self.barrier = run, players, rounds, barrier
        self.ctx = zmq.Context.instance()
        self.sock = None
        self.failure = None
        self.sent = set()

    def connect(self):
        if self.sock is not None:
            self.sock.close(0)
        self.sock = self.ctx.socket(zmq.DEALER)
        self.sock.setsockopt(zmq.LINGER, 0)
        # A stack with several gateways (scripts/cluster) lists them all: the DEALER spreads its
        # requests over the connected ones (IMMEDIATE: none queued for a gateway that is down),
        # and ZMTP heartbeats drop a gateway that went silent (a cut link).
        endpoints = getattr(self.run_.stack, "request_endpoints", [self.run_.stack.requests])
        if len(endpoints) > 1:
            self.sock.setsockopt(zmq.IMMEDIATE, 1)
            self.sock.setsockopt(zmq.HEARTBEAT_IVL, 500)
            self.sock.setsockopt(zmq.HEARTBEAT_TIMEOUT, 1500)
        for endpoint in endpoints:
            self.sock.connect(endpoint)

    def request_for(self, op):
        run = self.run_
        payload = dict(op["payload"])
        if "receivers" in payload:
            payload["receivers"] = [run.player_ids[q] for q in payload["receivers"]]
        if "codeOf" in payload:  # the code an earlier (acknowledged) request got
            payload = {"code": run.ledger.acked[payload["codeOf"]][1]["code"]}
        if "challengeOf" in payload:
            payload = {"challengeId": run.ledger.acked[payload["challengeOf"]][1]["challengeId"]}
        if "runOf" in payload:  # a run: tagged with the id the challenge's start got
            start_id = payload.pop("runOf")
            if start_id not in run.ledger.acked:
                raise RuntimeError(f"{op['id']} is a run of {start_id}, which was not acknowledged")
            payload["challengeId"] = run.ledger.acked[start_id][1]["challengeId"]
        if "noticeOf" in payload:  # an operator notice's item id: notice:<game>:<player>:<request id>
            payload = {"ids": [f"notice:{op['gameId']}:{run.player_ids[op['player']]}:{payload['noticeOf']}"]}
        if op["gameId"] is None:
            return {"type": op["type"], "id": op["id"], "token": run.tokens[op["player"]], "payload": payload}
        if op.get("admin") == "operator":  # an operator's request about the game, no player
            return {"type": op["type"], "id": op["id"], "gameId": op["gameId"], "adminKey": run.stack.admin_key,
                    "payload": payload}
        if op.get("admin"):
            payload["playerId"] = run.player_ids[op["player"]]
            return {"type": op["type"], "id": op["id"], "gameId": op["gameId"], "adminKey": run.stack.admin_key,
                    "payload": payload}
        return {"type": op["type"], "id": op["id"], "gameId": op["gameId"], "token": run.tokens[op["player"]],
                "payload": payload}

    def run(self):
        try:
            self.connect()
            for play, challenge in self.rounds:
                for phase in (play, challenge):
                    self.run_phase({p: list(phase[p]) for p in self.players})
                    self.barrier.wait()
        except threading.BrokenBarrierError:
            pass
        except Exception as error:  # a bug in the driver: stop everyone
            self.failure = repr(error)
            self.barrier.abort()
            raise

    def run_phase(self, queues):
        ledger = self.run_.ledger
        position = {p: 0 for p in queues}
        in_flight = {}  # id -> (player, sent at)
        due = {p: 0.0 for p in queues}  # earliest send time of the player's next (re)send
        while True:
            now = time.monotonic()
            pending = False
            for p, ops in queues.items():
                if position[p] >= len(ops):
                    continue
                pending = True
                op = ops[position[p]]
                if op["id"] in in_flight or now < due[p]:
                    continue
                if op["id"] not in self.sent and len(ledger.acked) >= self.run_.gate:
                    continue  # the fault schedule holds the stream back until its action is done
                self.sent.add(op["id"])
                self.sock.send(encode(self.request_for(op)))
                in_flight[op["id"]] = (p, now)
                with ledger.lock:
                    ledger.sends += 1
                    ledger.first_sent.setdefault(op["id"], now)
            if not pending:
                return
            if self.sock.poll(50):
                while True:
                    try:
                        envelope = json.loads(self.sock.recv(zmq.NOBLOCK))
                    except zmq.Again:
                        break
                    rid = envelope.get("correlationId")
                    if rid not in in_flight:
                        continue
                    p, _ = in_flight.pop(rid)
                    op = queues[p][position[p]]
                    body = envelope.get("payload") or {}
                    if envelope["type"] == "reply":
                        with ledger.lock:
                            if op["id"] not in ledger.acked:
                                ledger.acked[op["id"]] = (op, body)
                                ledger.acked_at[op["id"]] = time.monotonic()
                            if is_duplicate(op, body):
                                ledger.duplicates += 1
                        position[p] += 1
                        due[p] = 0.0
                    else:
                        code = body.get("code")
                        if code == "internal_error":
                            # Known issue: a request cut off by a service's SIGTERM gets
                            # internal_error. The same id again is safe (idempotency key).
                            with ledger.lock:
                                ledger.internal_errors.append((op["id"], op["type"], body.get("message")))
                                ledger.retries += 1
                            due[p] = time.monotonic() + 0.2
                            continue
                        with ledger.lock:
                            if code in RETRYABLE:
                                ledger.errors[code] += 1
                                ledger.retries += 1
                                if code == "storage_unavailable" and self.run_.disk_full.is_set():
                                    ledger.storage_unavailable_while_full += 1
                            else:
                                ledger.rejected.append((op, body))
                        if code in RETRYABLE:
                            wait = body.get("retryAfterMilliseconds", 200) / 1000 if code == "rate_limited" else 0.2
                            due[p] = time.monotonic() + wait
                        else:
                            position[p] += 1
            now = time.monotonic()
            expired = [rid for rid, (_, sent) in in_flight.items() if now - sent > REPLY_TIMEOUT]
            if expired:
                # No reply in time: the gateway or the connection is gone. A fresh socket, and
                # every request in flight again with the same id.
                with ledger.lock:
                    ledger.timeouts += len(expired)
                    ledger.retries += len(in_flight)
                    ledger.reconnects += 1
                in_flight.clear()
                self.connect()


# ------------------------------------------------------------------------------------------------
# A run


class Run:
    def __init__(self, label, stack, args):
        self.label, self.stack, self.args = label, stack, args
        self.ledger = Ledger()
        self.player_ids, self.tokens, self.names = [], [], {}
        self.disk_full = threading.Event()
        self.gate = float("inf")  # clients send no new operation once this many are acknowledged
        self.disk_report = None

    def setup(self, players, friends):
        """Players, tokens and friendships: idempotent, retried until done."""
        for p in range(players):
            username, password = f"chaos{p:03d}", f"chaos-password-{p}"
            grant = None
            while grant is None:
                reply = self.stack.call({"type": "auth.register", "payload": {
                    "username": username, "password": password, "displayName": f"P{p}"}}, 5)
                if reply and reply["type"] == "error" and reply["payload"]["code"] == "username_taken":
                    reply = self.stack.call({"type": "auth.login", "payload": {"username": username, "password": password}}, 5)
                if reply and reply["type"] == "reply":
                    grant = reply["payload"]
                else:
                    time.sleep(0.2)
            self.player_ids.append(grant["playerId"])
            self.tokens.append(grant["sessionToken"])
            self.names[grant["playerId"]] = f"P{p}"
        for p, others in friends.items():
            for q in others:
                if q <= p:
                    continue
                self.must(p, "auth.friends.request", {"playerId": self.player_ids[q]})
                self.must(q, "auth.friends.accept", {"playerId": self.player_ids[p]})

    def must(self, p, type_, payload, game=None, timeout=5, tries=100):
        for _ in range(tries):
            request = {"type": type_, "token": self.tokens[p], "payload": payload}
            if game:
                request["gameId"] = game
            reply = self.stack.call(request, timeout)
            if reply and reply["type"] == "reply":
                return reply["payload"]
            if reply and reply["payload"].get("code") not in RETRYABLE:
                raise RuntimeError(f"{type_} for P{p}: {reply['payload']}")
            time.sleep(0.3)
        raise RuntimeError(f"{type_} for P{p}: no answer")

    def send_stream(self, rounds, players):
        clients_count = min(self.args.clients, players)
        barrier = threading.Barrier(clients_count)
        groups = [list(range(players))[i::clients_count] for i in range(clients_count)]
        clients = [Client(self, i, groups[i], rounds, barrier) for i in range(clients_count)]
        for client in clients:
            client.start()
        return clients

    def owner_health(self, service):
        """`<service>.health` from the instance that owns the service's data: any instance answers
        health, and with several (scripts/cluster) a standby's stream positions stand still."""
        reply = None
        for _ in range(8):
            reply = self.stack.call({"type": f"{service}.health", "adminKey": self.stack.admin_key}, 3)
            if reply and reply["type"] == "reply" and reply["payload"].get("partitions", [0]):
                return reply
        return reply

    def wait_converged(self, timeout=180):
        """Until the followers' positions equal their heads and the gateway's log head, stable ~3 s."""
        deadline = time.monotonic() + timeout
        stable_since, last = None, None
        while time.monotonic() < deadline:
            head = self.stack.admin("events.read", {"after": 0, "limit": 1})
            achievement = self.owner_health("achievement")
            challenge = self.owner_health("challenge")
            state = None
            if head and head["type"] == "reply" and achievement and achievement["type"] == "reply" and challenge \
                    and challenge["type"] == "reply":
                a = achievement["payload"].get("streams") or {}
                c = challenge["payload"].get("streams") or {}
                log_head = head["payload"]["head"]
                ok = a.get("events", {}).get("position") == log_head and all(
                    c.get(s, {}).get("position") == c.get(s, {}).get("head") for s in ("leaderboard", "achievement"))
                # Any other stream it follows (the auth service's outbox, for friend requests in the
                # inbox) must be caught up too.
                ok = ok and all(v.get("position") == v.get("head") for k, v in c.items() if k != "events")
                if "events" in c:  # the challenge service follows the event log too (runs by event)
                    ok = ok and c["events"].get("position") == log_head
                state = (log_head, json.dumps({k: v.get("position") for k, v in a.items()}, sort_keys=True),
                         json.dumps({k: (v.get("position"), v.get("head")) for k, v in c.items()}, sort_keys=True))
                if ok and state == last:
                    if stable_since and time.monotonic() - stable_since >= 3:
                        return {"eventsHead": log_head, "achievement": a, "challenge": c}
                elif ok:
                    stable_since = time.monotonic()
                else:
                    stable_since = None
                last = state
            time.sleep(0.5)
        raise RuntimeError(f"run {self.label}: the stack did not converge within {timeout} s (last {last})")

    # -------------------------------------------------------------------------------- snapshot

    def name(self, text):
        if isinstance(text, str):
            for pid, name in self.names.items():
                text = text.replace(pid, name)
        return text

    def normal(self, value, drop=()):
        if isinstance(value, dict):
            normal = {k: self.normal(v, drop) for k, v in sorted(value.items()) if k not in drop}
            if isinstance(normal.get("receivers"), list):  # sorted by player id, which differs between runs
                normal["receivers"] = sorted(normal["receivers"], key=lambda r: json.dumps(r, sort_keys=True))
            return normal
        if isinstance(value, list):
            return [self.normal(v, drop) for v in value]
        return self.name(value)

    def snapshot(self, players):
        state = {}
        # Defined challenges: the definitions (the operator's included) and each challenge's
        # standings (rank, player, best value, runs counted).
        for game in ("dash", "whackacac"):
            state[f"challenge definitions {game}"] = self.must(0, "challenge.definitions", {}, game)["definitions"]
        # Invite codes still working per player (their codes differ between the runs: counted, and
        # how often each was used, in code order of creation).
        for p in range(players):
            live = self.must(p, "auth.invites.list", {})["invites"]
            if live:
                state[f"invites P{p}"] = sorted((invite["purpose"], invite["uses"]) for invite in live)
        with self.ledger.lock:
            started = [(op, body) for op, body in self.ledger.acked.values() if op.get("defined")]
        for op, body in sorted(started, key=lambda entry: entry[0]["id"]):
            reply = self.must(op["player"], "challenge.standings", {"challengeId": body["challengeId"]}, op["gameId"])
            state[f"standings {op['id']} {op['payload']['definitionId']}"] = self.normal(reply, drop=("challengeId", "endsAt"))
        for board in (HIGH, FAST, COINS):
            entries, cursor = {}, None
            while True:
                payload = {"boardId": board, "limit": 200}
                if cursor:
                    payload["cursor"] = cursor
                page = self.must(0, "leaderboard.top", payload, "dash")
                for entry in page["entries"]:
                    entries[self.names[entry["playerId"]]] = entry["value"]
                cursor = page.get("nextCursor")
                if not cursor:
                    break
            state[f"board {board}"] = entries
        for p in range(players):
            relations = self.must(p, "auth.friends.list", {})
            state[f"friends P{p}"] = {kind: sorted(self.names[f["playerId"]] for f in relations[kind])
                                      for kind in ("friends", "incoming", "outgoing", "blocked")}
            for game in GAMES_WITH_ACHIEVEMENTS:
                listing = self.must(p, "achievement.list", {}, game)
                state[f"achievements P{p} {game}"] = {
                    a["id"]: {k: a.get(k) for k in ("steps", "percentComplete", "earned", "timesEarned")}
                    for a in listing["achievements"] if a["id"] not in EXCLUDED_ACHIEVEMENTS}
            for game in CHALLENGE_GAMES:
                for kind in ("received", "issued"):
                    challenges = self.must(p, f"challenge.{kind}", {}, game)["challenges"]
                    state[f"challenges {kind} P{p} {game}"] = sorted(
                        json.dumps(self.normal(c, drop=("challengeId", "createdAt", "expiresAt", "endsAt", "completedAt")),
                                   sort_keys=True) for c in challenges)
                items = self.must(p, "challenge.inbox", {}, game)["items"]
                state[f"inbox P{p} {game}"] = sorted(
                    json.dumps(self.normal({"kind": i["kind"], "message": i["message"], "details": i["details"]},
                                           drop=("challengeId", "inboxId", "createdAt")), sort_keys=True)
                    for i in items)
            # The whole inbox: every item made from the streams (achievements earned, challenges)
            # and every operator notice exactly once, with its read flag. A left-top item depends
            # on how the players' submissions interleave, and the window achievement on wall-clock
            # timing: both differ between runs and are left out.
            for game in ("dash", "whackacac", "blackjack"):
                kept, before = [], None
                while True:
                    payload = {"limit": 200}
                    if before is not None:
                        payload["before"] = before
                    page = self.must(p, "inbox.list", payload, game)
                    kept += page["items"]
                    before = page.get("nextBefore")
                    if before is None:
                        break
                state[f"all of the inbox P{p} {game}"] = sorted(
                    json.dumps(self.normal({"kind": i["kind"], "message": i["message"], "details": i["details"], "read": i["read"]},
                                           drop=("challengeId", "inboxId", "createdAt")), sort_keys=True)
                    for i in kept if i["kind"] != "leaderboard.left-top"
                    and i["details"].get("achievementId") not in EXCLUDED_ACHIEVEMENTS)
        return state

    def check_receipts(self):
        """receipt.get for every acknowledged id: found, or (challenges) in the state."""
        ledger = self.ledger
        with ledger.lock:
            # The inbox's requests keep no receipts (a notice is found by its request id, reads
            # and deletes change nothing twice): the state checks them, as it checks the
            # operator's challenge definition (the definitions listing).
            acked = [(rid, entry) for rid, entry in ledger.acked.items()
                     if not entry[0]["type"].startswith(("inbox.", "auth.invites.", "challenge.invite", "challenge.join",
                                                         "challenge.admin."))]
        missing, not_kept, answered = [], collections.Counter(), 0
        sock = zmq.Context.instance().socket(zmq.DEALER)
        sock.setsockopt(zmq.LINGER, 0)
        sock.connect(self.stack.requests)
        queue = collections.deque(acked)
        in_flight = {}
        deadline = time.monotonic() + 300
        while (queue or in_flight) and time.monotonic() < deadline:
            while queue and len(in_flight) < 200:
                rid, (op, _) = queue.popleft()
                qid = f"receipt-{uuid.uuid4().hex}"
                in_flight[qid] = (rid, op, time.monotonic())
                sock.send(encode({"type": "receipt.get", "id": qid, "gameId": op["gameId"],
                                  "token": self.tokens[op["player"]], "payload": {"id": rid}}))
            if sock.poll(200):
                while True:
                    try:
                        envelope = json.loads(sock.recv(zmq.NOBLOCK))
                    except zmq.Again:
                        break
                    entry = in_flight.pop(envelope.get("correlationId"), None)
                    if entry is None:
                        continue
                    rid, op, _ = entry
                    if envelope["type"] == "reply":
                        answered += 1
                        if not envelope["payload"].get("found"):
                            if op["type"].startswith("challenge."):
                                not_kept[op["type"]] += 1
                            else:
                                missing.append(rid)
                    else:
                        queue.append((rid, (op, None)))
                        time.sleep(0.05)
            now = time.monotonic()
            for qid, (rid, op, sent) in list(in_flight.items()):
                if now - sent > REPLY_TIMEOUT:
                    del in_flight[qid]
                    queue.append((rid, (op, None)))
        sock.close(0)
        return {"answered": answered, "notFound": missing, "notKeptByReceiptGet": dict(not_kept),
                "unanswered": len(queue) + len(in_flight)}


# ------------------------------------------------------------------------------------------------
# Faults


def mount_tmpfs(path, size_mb):
    os.makedirs(path, exist_ok=True)
    result = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_mb}m,mode=0755", "tmpfs", path],
                            capture_output=True, text=True)
    return result.returncode == 0, result.stderr.strip()


def umount(path):
    subprocess.run(["umount", "-l", path], capture_output=True)


def fill_disk(path):
    """Writes a filler file until the filesystem is full; returns its path and size."""
    filler = os.path.join(path, "filler")
    written = 0
    with open(filler, "wb", buffering=0) as f:
        for chunk in (1 << 20, 1 << 12, 1):
            block = b"\0" * chunk
            while True:
                try:
                    f.write(block)
                    written += chunk
                except OSError:
                    break
    return filler, written


class Killer(threading.Thread):
    """Runs the fault schedule of run B, each action when the stream reaches its share."""

    def __init__(self, run, total_ops, actions, subscriber, disk_path, postgres=None):
        super().__init__(daemon=True, name="killer")
        self.run_, self.total, self.actions, self.subscriber, self.disk_path = run, total_ops, actions, subscriber, disk_path
        self.postgres = postgres  # (scripts/postgres, cluster directory) when the stack keeps its data there
        self.done = threading.Event()
        self.history = []
        self.kills = collections.Counter()
        self.restarts = collections.Counter()
        self.notes = []
        self.failure = None

    def note(self, text):
        self.notes.append(text)
        log(f"B: {text}")

    def run(self):
        # Each action starts when its share of the stream is acknowledged; the clients may go on
        # only half a share further until it is done, so that every action happens under load.
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
                self.perform(action)
        except Exception as error:
            self.failure = repr(error)
            log(f"B: killer failed: {error!r}")
        finally:
            self.run_.gate = float("inf")

    def perform(self, action):
        stack = self.run_.stack
        at = self.run_.ledger.progress()
        kind, _, name = action.partition(":")
        if kind == "kill":
            stack.kill(name)
            self.kills[name] += 1
            time.sleep(random.uniform(0.3, 1.0))
            stack.start(name)
            self.restarts[name] += 1
            ready = stack.wait_ready(60, name)
            self.note(f"SIGKILL {name} at {at} acks, restarted, {'ready' if ready else 'NOT READY after 60 s'}")
        elif kind == "pause":
            stack.procs[name].send_signal(signal.SIGSTOP)
            time.sleep(4)
            stack.procs[name].send_signal(signal.SIGCONT)
            self.note(f"SIGSTOP {name} for 4 s at {at} acks, then SIGCONT")
        elif kind == "stack":
            stack.stop_all()
            codes = {n: p.returncode for n, p in stack.procs.items()}
            time.sleep(0.5)
            for n in NAMES:
                stack.start(n)
                self.restarts[n] += 1
            ready = stack.wait_ready(90)
            self.note(f"whole stack stopped (SIGTERM, exit codes {codes}) at {at} acks and started: "
                      f"{'ready' if ready else 'NOT READY after 90 s'}")
        elif kind == "subscriber":
            self.subscriber.pause(6)
            self.note(f"notification subscriber stopped reading for 6 s at {at} acks, then resumed")
        elif kind == "dbdown":
            self.database_down(at)
        elif kind == "diskfull":
            if not self.disk_path:
                self.note("gateway disk full: skipped (no tmpfs)")
                return
            ledger = self.run_.ledger
            self.run_.gate += self.total / (len(self.actions) + 1)  # load enough to meet the full disk
            before_acks, before_errors = ledger.progress(), ledger.errors["storage_unavailable"]
            filler, size = fill_disk(self.disk_path)
            probe, first_error, held = self.hold_storage_fault(before_errors)
            during_acks = ledger.progress()
            errors = ledger.errors["storage_unavailable"] - before_errors
            acked_events = sum(1 for op, _ in list(ledger.acked.values())[before_acks:] if op["type"] == "event.publish")
            self.run_.disk_full.clear()
            os.unlink(filler)
            self.run_.disk_report = {"fillerBytes": size, "heldSeconds": round(held, 1),
                                     "firstStorageUnavailableAfterSeconds": None if first_error is None else round(first_error, 1),
                                     "acksWhileFull": during_acks - before_acks, "eventAcksWhileFull": acked_events,
                                     "storageUnavailable": errors, "probeEventsAcked": len(probe.acked),
                                     "probeStorageUnavailable": probe.refused,
                                     "probeFirstRefusalAfterAcks": probe.first_refusal_after}
            self.note(f"gateway disk filled ({size} bytes filler) at {at} acks for {held:.1f} s: "
                      f"{during_acks - before_acks} acks ({acked_events} event.publish) while full, {errors} "
                      f"storage_unavailable errors (first after {None if first_error is None else round(first_error, 1)} s); filler removed")


    def hold_storage_fault(self, before_errors):
        """While a storage fault is in place (the disk full, the database down): sends probe events
        and waits until the stack has refused writes with storage_unavailable for 3 s, at most 20 s.
        Returns the probe, seconds until the first refusal (None: none) and seconds held."""
        ledger = self.run_.ledger
        self.run_.disk_full.set()
        started = time.monotonic()
        probe = DiskProbe(self.run_)
        probe.start()
        first_error = None
        while time.monotonic() - started < 20:
            if first_error is None and (ledger.errors["storage_unavailable"] > before_errors or probe.refused):
                first_error = time.monotonic() - started
            if first_error is not None and time.monotonic() - started > first_error + 3:
                break
            time.sleep(0.1)
        held = time.monotonic() - started
        probe.stop.set()
        probe.join()
        self.run_.probes = probe
        return probe, first_error, held

    def database_down(self, at):
        """Stops the PostgreSQL server under load until the stack has refused writes with
        storage_unavailable for 3 s (at most 20 s), then starts it again on the same port."""
        script, cluster = self.postgres
        ledger = self.run_.ledger
        self.run_.gate += self.total / (len(self.actions) + 1)
        before_acks, before_errors = ledger.progress(), ledger.errors["storage_unavailable"]
        port = open(os.path.join(cluster, "port")).read().strip()
        stopped = subprocess.run([script, "stop", cluster], capture_output=True, text=True)
        if stopped.returncode != 0:
            raise RuntimeError(f"could not stop PostgreSQL: {stopped.stderr[-300:]}")
        probe, first_error, held = self.hold_storage_fault(before_errors)
        during_acks = ledger.progress()
        errors = ledger.errors["storage_unavailable"] - before_errors
        started = subprocess.run([script, "start", cluster, port], capture_output=True, text=True)
        self.run_.disk_full.clear()
        if started.returncode != 0:
            raise RuntimeError(f"could not start PostgreSQL again: {started.stderr[-300:]}")
        self.run_.disk_report = {"databaseDownSeconds": round(held, 1),
                                 "firstStorageUnavailableAfterSeconds": None if first_error is None else round(first_error, 1),
                                 "acksWhileDown": during_acks - before_acks, "storageUnavailable": errors,
                                 "probeEventsAcked": len(probe.acked), "probeStorageUnavailable": probe.refused,
                                 "probeFirstRefusalAfterAcks": probe.first_refusal_after}
        self.note(f"PostgreSQL stopped at {at} acks for {held:.1f} s: {during_acks - before_acks} acks while down, "
                  f"{errors} storage_unavailable errors (first after "
                  f"{None if first_error is None else round(first_error, 1)} s); started again")


class DiskProbe(threading.Thread):
    """While the gateway's disk is full: extra events (game dash, which has no achievements, so the
    compared state is not touched) until the gateway refuses them, so that the event log must grow."""

    def __init__(self, run):
        super().__init__(daemon=True, name="disk-probe")
        self.run_ = run
        self.stop = threading.Event()
        self.acked, self.refused, self.other = [], 0, collections.Counter()
        self.first_refusal_after = None

    def run(self):
        sock = zmq.Context.instance().socket(zmq.DEALER)
        sock.setsockopt(zmq.LINGER, 0)
        sock.connect(self.run_.stack.requests)
        n, in_flight = 0, set()
        while not self.stop.is_set():
            while len(in_flight) < 50 and not self.refused:
                rid = f"probe-{n}"
                n += 1
                in_flight.add(rid)
                sock.send(encode({"type": "event.publish", "id": rid, "gameId": "dash", "playerId": "chaos-probe",
                                  "adminKey": self.run_.stack.admin_key,
                                  "payload": {"name": "chaos.probe", "attributes": {"pad": "x" * 200}}}))
            if self.refused:
                time.sleep(0.1)
            if sock.poll(100):
                envelope = json.loads(sock.recv())
                rid = envelope.get("correlationId")
                in_flight.discard(rid)
                if envelope["type"] == "reply":
                    self.acked.append(rid)
                elif envelope["payload"].get("code") == "storage_unavailable":
                    if not self.refused:
                        self.first_refusal_after = len(self.acked)
                    self.refused += 1
                else:
                    self.other[envelope["payload"].get("code")] += 1
        sock.close(0)


class Subscriber(threading.Thread):
    """A notification subscriber for one player that stops reading for a while, then resumes."""

    def __init__(self, run, player, game="dash"):
        super().__init__(daemon=True, name="subscriber")
        self.run_, self.player, self.game = run, player, game
        self.received = 0
        self.after_resume = 0
        self.paused_until = 0.0
        self.resumed = False
        self.stop = threading.Event()
        self.topic = None

    def pause(self, seconds):
        self.paused_until = time.monotonic() + seconds
        time.sleep(seconds)
        self.resumed = True

    def run(self):
        self.topic = self.run_.must(self.player, "notifications.subscribe", {}, self.game)["topic"]
        sock = zmq.Context.instance().socket(zmq.SUB)
        sock.setsockopt(zmq.LINGER, 0)
        sock.setsockopt(zmq.RCVHWM, 100)
        sock.connect(self.run_.stack.notifications)
        sock.setsockopt_string(zmq.SUBSCRIBE, self.topic)
        while not self.stop.is_set():
            if time.monotonic() < self.paused_until:
                time.sleep(0.1)
                continue
            if sock.poll(100):
                sock.recv_multipart()
                self.received += 1
                if self.resumed:
                    self.after_resume += 1
        sock.close(0)

    def prove_alive(self):
        """After the stream: a leaderboard test notification must reach the resumed subscriber."""
        deadline = time.monotonic() + 20
        start = self.after_resume
        while time.monotonic() < deadline and self.after_resume == start:
            self.run_.must(self.player, "leaderboard.test-notification", {"message": "after resume"}, self.game)
            time.sleep(0.5)
        return self.after_resume > start


# ------------------------------------------------------------------------------------------------
# Read-only disk at start


def readonly_start_check(args, tmp):
    """A gateway whose data directory is on a read-only filesystem must refuse to start."""
    results = []
    for variant in ("empty", "event log closed by SIGTERM", "event log left by SIGKILL: -wal and -shm remain"):
        path = os.path.join(tmp, f"ro-{len(results)}")
        ok, err = mount_tmpfs(path, 16)
        if not ok:
            return [f"skipped: cannot mount tmpfs ({err})"]
        try:
            if variant != "empty":
                stack = Stack("ro-seed", args.bin, os.path.join(tmp, "ro-seed"), args.games, gateway_data=path)
                stack.start("gateway")
                stack.wait_ready(30, "gateway")
                stack.call({"type": "event.publish", "gameId": "dash", "playerId": "chaos-probe",
                            "adminKey": stack.admin_key, "payload": {"name": "chaos.probe"}}, 5)
                stack.kill("gateway", signal.SIGKILL if "SIGKILL" in variant else signal.SIGTERM)
            files = ", ".join(sorted(os.listdir(path))) or "no files"
            remount = subprocess.run(["mount", "-o", "remount,ro", path], capture_output=True, text=True)
            if remount.returncode != 0:
                results.append(f"skipped ({variant}): cannot remount read-only ({remount.stderr.strip()})")
                continue
            stack = Stack("ro", args.bin, os.path.join(tmp, f"ro-run-{len(results)}"), args.games, gateway_data=path)
            stack.start("gateway")
            proc = stack.procs["gateway"]
            try:
                code = proc.wait(20)
            except subprocess.TimeoutExpired:
                code = None
                answered = stack.call({"type": "gateway.health"}, 2)
                publish = stack.call({"type": "event.publish", "gameId": "dash", "playerId": "chaos-probe",
                                      "adminKey": stack.admin_key, "payload": {"name": "chaos.probe"}}, 8)
                answered = f"{bool(answered)}; event.publish answered " + (
                    "nothing" if publish is None else f"{publish['type']} {json.dumps(publish['payload'])[:200]}")
                proc.kill()
                proc.wait()
            with open(os.path.join(stack.logs, "gateway.log"), errors="replace") as f:
                lines = [l.strip() for l in f if l.strip()]
            message = lines[-1] if lines else "(nothing logged)"
            if code is None:
                results.append((variant, False, f"[{files}] still running after 20 s (answered health: {answered})"))
            else:
                results.append((variant, code != 0, f"[{files}] exit status {code}: {message[:300]}"))
        finally:
            umount(path)
    return results


# ------------------------------------------------------------------------------------------------
# Main


def read_all_events(stack):
    """Every envelope still in the event log, as text."""
    texts, after = [], 0
    while True:
        reply = stack.admin("events.read", {"after": after, "limit": 500}, 10)
        if not reply or reply["type"] != "reply":
            raise RuntimeError(f"events.read: {reply}")
        messages = reply["payload"]["messages"]
        texts += [json.dumps(m, sort_keys=True) for m in messages]
        if not messages:
            return texts
        after = messages[-1]["envelope"]["sequence"]


def audit_through(stack, through):
    """Every audit entry up to sequence `through`, as text."""
    texts, before = [], through + 1
    while True:
        reply = stack.admin("admin.audit", {"before": before, "limit": 200}, 10)
        if not reply or reply["type"] != "reply":
            raise RuntimeError(f"admin.audit: {reply}")
        entries = reply["payload"]["entries"]
        texts += [json.dumps(e, sort_keys=True) for e in entries]
        if not reply["payload"].get("next"):
            return texts
        before = reply["payload"]["next"]


def deletion_under_kills(run, victim):
    """An operator deletes one player's account mid-run; right after the reply the leaderboard,
    achievement and challenge services and the gateway are killed with SIGKILL (each may or may not
    have erased the player yet) and started again. The verdict: after recovery nothing names the
    player: not the other players' exports (friends, challenges, inboxes), not the event log or the
    audit entries written before, not the boards, achievements or accounts. Returns (problems, notes)."""
    stack = run.stack
    pid = run.player_ids[victim]
    head = stack.admin("admin.audit", {"limit": 1})
    t0 = time.monotonic()
    reply = None
    for _ in range(100):
        reply = stack.admin("auth.admin.delete-account", {"playerId": pid, "reason": "chaos", "confirm": True}, 10)
        if reply and (reply["type"] == "reply" or reply["payload"].get("code") == "unknown_player"):
            break
        time.sleep(0.3)
    if not reply or (reply["type"] != "reply" and reply["payload"].get("code") != "unknown_player"):
        return [f"account deletion: never answered: {reply}"], []
    for name in ("leaderboard", "achievement", "challenge", "gateway"):
        stack.kill(name)
    for name in ("gateway", "leaderboard", "achievement", "challenge"):
        stack.start(name)
    stack.wait_ready(60)
    recovered = time.monotonic()
    # The audit entries up to the deletion's (later reads that name the id are audited as they happen).
    audit_head = stack.admin("admin.audit", {"limit": 1})
    through = audit_head["payload"]["entries"][0]["seq"] if audit_head and audit_head["type"] == "reply" else 0
    others = [p for p in range(len(run.player_ids)) if p != victim]
    deadline = time.monotonic() + 90
    traces = ["not checked"]
    while time.monotonic() < deadline:
        traces = []
        for text in read_all_events(stack):
            if pid in text:
                traces.append("event log")
                break
        if any(pid in text for text in audit_through(stack, through)):
            traces.append("audit log")
        for p in others:
            export = stack.call({"type": "account.export", "token": run.tokens[p], "payload": {}}, 10)
            if not export or export["type"] != "reply":
                traces.append(f"P{p}'s export unanswered: {export and export['payload']}")
            elif pid in json.dumps(export["payload"]):
                traces.append(f"P{p}'s export")
        if not traces:
            break
        time.sleep(1)
    # The services asked about the id directly (an operator's reads, audited after `through`).
    lookup = stack.admin("auth.admin.lookup", {"playerId": pid})
    if not lookup or lookup["payload"].get("code") != "unknown_player":
        traces.append(f"auth.admin.lookup: {lookup and lookup['payload']}")
    export = stack.admin("account.export", {"playerId": pid}, 10)
    if not export or export["payload"].get("code") != "unknown_player":
        traces.append(f"account.export: {export and export['payload']}")
    for game in GAMES_WITH_ACHIEVEMENTS:
        listed = stack.call({"type": "achievement.list", "gameId": game, "playerId": pid,
                             "adminKey": stack.admin_key, "payload": {}}, 10)
        if not listed or listed["type"] != "reply":
            traces.append(f"achievement.list {game}: {listed}")
        elif any((a.get("percentComplete") or 0) > 0 or a.get("earned") for a in listed["payload"]["achievements"]):
            traces.append(f"achievements in {game}")
    for board in (HIGH, FAST, COINS):
        entry = stack.call({"type": "leaderboard.entry", "gameId": "dash", "playerId": pid,
                            "adminKey": stack.admin_key, "payload": {"boardId": board}}, 10)
        if not entry or entry["type"] != "reply":
            traces.append(f"leaderboard.entry {board}: {entry}")
        elif entry["payload"].get("entry") is not None:
            traces.append(f"an entry on {board}")
    notes = [f"account deletion of P{victim}: answered in {recovered - t0:.1f} s with the kills and restarts; "
             f"no trace left {time.monotonic() - recovered:.1f} s after recovery" if not traces else
             f"account deletion of P{victim}: traces remain: {traces}"]
    return ([f"account deletion under kills: the deleted player remains in: {traces}"] if traces else []), notes


def diff_states(a, b):
    lines = []
    for key in sorted(set(a) | set(b)):
        va, vb = a.get(key), b.get(key)
        if va == vb:
            continue
        if isinstance(va, dict) and isinstance(vb, dict):
            for k in sorted(set(va) | set(vb), key=str):
                if va.get(k) != vb.get(k):
                    lines.append(f"{key} / {k}: A={va.get(k)} B={vb.get(k)}")
        elif isinstance(va, list) and isinstance(vb, list):
            # Items may be objects (definitions, standings): counted by their JSON text.
            ca = collections.Counter(json.dumps(item, sort_keys=True) for item in va)
            cb = collections.Counter(json.dumps(item, sort_keys=True) for item in vb)
            for item in sorted((ca - cb).keys()):
                lines.append(f"{key}: only in A ({(ca - cb)[item]}x): {item}")
            for item in sorted((cb - ca).keys()):
                lines.append(f"{key}: only in B ({(cb - ca)[item]}x): {item}")
        else:
            lines.append(f"{key}: A={va} B={vb}")
    return lines


def run_stream(run, rounds, players, total, killer=None, subscriber=None):
    started = time.monotonic()
    clients = run.send_stream(rounds, players)
    last_report = time.monotonic()
    while any(c.is_alive() for c in clients):
        time.sleep(0.5)
        if time.monotonic() - last_report > 15:
            last_report = time.monotonic()
            l = run.ledger
            log(f"{run.label}: {l.progress()}/{total} acknowledged, {l.retries} retries, {l.timeouts} timeouts"
                + (f", errors {dict(l.errors)}" if l.errors else ""))
    if killer:
        killer.done.set()
        killer.join()
    failures = [c.failure for c in clients if c.failure]
    if failures:
        raise RuntimeError(f"client failure: {failures}")
    return time.monotonic() - started


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", required=True)
    parser.add_argument("--games", required=True)
    parser.add_argument("--ops", type=int, default=100000)
    parser.add_argument("--players", type=int, default=24)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--short", action="store_true")
    parser.add_argument("--tmp", required=True)
    parser.add_argument("--report", default=None)
    parser.add_argument("--strict", action="store_true",
                        help="known issues fail the verdict (internal_error at shutdown, challenge ids unknown to "
                             "receipt.get, a gateway that starts on a read-only event log)")
    parser.add_argument("--postgres", default=None,
                        help="a scripts/postgres cluster directory: the stacks keep their data there (a database "
                             "per run) and the database server is stopped and started instead of the disk filling up")
    parser.add_argument("--postgres-script", default=None)
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 10**9)
    is_root = os.geteuid() == 0
    t0 = time.monotonic()

    rounds, friends, total, expected_boards = build_stream(seed, args.ops, args.players)
    counts = collections.Counter(op["type"] for play, ch in rounds for ph in (play, ch) for ops in ph.values() for op in ops)
    log(f"seed {seed}: {total} operations in {len(rounds)} rounds for {args.players} players on {args.clients} clients: "
        + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))

    storage_fault = "dbdown" if args.postgres else "diskfull"
    if args.short:
        actions = ["kill:gateway", "kill:leaderboard", "subscriber", "kill:achievement", storage_fault, "kill:challenge",
                   "pause:leaderboard", "kill:auth", "stack"]
    else:
        kills = [f"kill:{n}" for n in NAMES]
        actions = kills + ["pause:achievement", "subscriber"] + kills + [storage_fault, "stack"] + kills + ["pause:leaderboard"]

    def database(run):
        if not args.postgres:
            return None
        made = subprocess.run([args.postgres_script, "createdb", args.postgres, f"chaos_{seed}_{run}"],
                              capture_output=True, text=True)
        if made.returncode != 0:
            raise RuntimeError(f"scripts/postgres createdb failed: {made.stderr[-300:]}")
        return made.stdout.strip()

    verdict = {"seed": seed, "operations": total, "problems": []}
    problems = verdict["problems"]

    # ---- run A: no faults
    stack_a = Stack("A", args.bin, os.path.join(args.tmp, "A"), args.games, database_url=database("a"))
    stacks = [stack_a]
    mounts = []
    try:
        stack_a.start_all()
        run_a = Run("A", stack_a, args)
        run_a.setup(args.players, friends)
        duration_a = run_stream(run_a, rounds, args.players, total)
        log(f"A: stream done in {duration_a:.1f} s ({total / duration_a:.0f} ops/s); waiting for convergence")
        conv_a = run_a.wait_converged()
        state_a = run_a.snapshot(args.players)
        receipts_a = run_a.check_receipts()
        stack_a.stop_all()
        log(f"A: converged (event log head {conv_a['eventsHead']}), snapshot of {len(state_a)} views taken")

        # The fault-free run checked against the model of the boards (doubles there would be ours to see)
        # and of the defined challenges' standings (runs past the attempts allowed must not count).
        for start_id, rows in defined_model(rounds).items():
            key = next((k for k in state_a if k.startswith(f"standings {start_id} ")), None)
            got = state_a[key]["standings"] if key else None
            if got != rows:
                problems.append(f"run A: the standings of the defined challenge started by {start_id} differ from the "
                                f"stream's model: expected {rows}, got {got}")
        for board, expected in expected_boards.items():
            got = state_a[f"board {board}"]
            want = {f"P{p}": v for p, v in expected.items()}
            if got != want:
                problems.append(f"run A: board {board} differs from the stream's model: {diff_states({'x': want}, {'x': got})[:5]}")

        # ---- run B: faults
        gateway_disk = None
        if args.postgres:
            log("B: on PostgreSQL: the database server is stopped and started instead of the disk filling up")
        elif is_root:
            gateway_disk = os.path.join(args.tmp, "B-gateway-disk")
            ok, err = mount_tmpfs(gateway_disk, 64 if args.short else 512)
            if ok:
                mounts.append(gateway_disk)
            else:
                log(f"B: no tmpfs for the gateway ({err}): the disk-full fault is skipped")
                gateway_disk = None
        else:
            log("B: not root: no tmpfs for the gateway, the disk-full fault is skipped")
        stack_b = Stack("B", args.bin, os.path.join(args.tmp, "B"), args.games, gateway_data=gateway_disk,
                        database_url=database("b"))
        stacks.append(stack_b)
        stack_b.start_all()
        run_b = Run("B", stack_b, args)
        run_b.disk_report = None
        run_b.setup(args.players, friends)
        subscriber = Subscriber(run_b, 1)
        subscriber.start()
        killer = Killer(run_b, total, actions, subscriber, gateway_disk,
                        postgres=(args.postgres_script, args.postgres) if args.postgres else None)
        killer.start()
        duration_b = run_stream(run_b, rounds, args.players, total, killer, subscriber)
        log(f"B: stream done in {duration_b:.1f} s; waiting for convergence")
        conv_b = run_b.wait_converged()
        subscriber_alive = subscriber.prove_alive() if subscriber.resumed else None
        subscriber.stop.set()
        state_b = run_b.snapshot(args.players)
        receipts_b = run_b.check_receipts()
        probe_missing = []
        for rid in getattr(getattr(run_b, "probes", None), "acked", []):
            for _ in range(20):
                reply = stack_b.call({"type": "receipt.get", "gameId": "dash", "playerId": "chaos-probe",
                                      "adminKey": stack_b.admin_key, "payload": {"id": rid}}, 5)
                if reply and reply["type"] == "reply":
                    if not reply["payload"].get("found"):
                        probe_missing.append(rid)
                    break
                time.sleep(0.2)
            else:
                probe_missing.append(rid)
        exits = stack_b.exited()
        # ---- account deletion with kills in the middle (after B's state was compared)
        deletion_problems, deletion_notes = deletion_under_kills(run_b, 2)
        problems.extend(deletion_problems)
        stack_b.stop_all()

        if args.postgres:
            readonly = ["skipped: the stack keeps its data in PostgreSQL, not in the data directory"]
        else:
            readonly = readonly_start_check(args, args.tmp) if is_root else ["skipped: not root"]
    finally:
        for stack in stacks:
            stack.stop_all()
        for path in mounts:
            umount(path)

    # ---- verdict
    diff = diff_states(state_a, state_b)
    la, lb = run_a.ledger, run_b.ledger
    lost_a = set(receipts_a["notFound"])
    lost_b = set(receipts_b["notFound"])
    for label, ledger in (("A", la), ("B", lb)):
        if len(ledger.acked) != total:
            problems.append(f"run {label}: {total - len(ledger.acked)} operations never acknowledged")
        for op, error in ledger.rejected[:5]:
            problems.append(f"run {label}: {op['type']} {op['id']} rejected: {error.get('code')}: {error.get('message')}")
        if len(ledger.rejected) > 5:
            problems.append(f"run {label}: {len(ledger.rejected)} rejected in all")
    if lost_a or lost_b:
        problems.append(f"receipt.get found:false for acknowledged ids: A {sorted(lost_a)[:5]} ({len(lost_a)}), "
                        f"B {sorted(lost_b)[:5]} ({len(lost_b)})")
    for label, receipts in (("A", receipts_a), ("B", receipts_b)):
        if receipts["unanswered"]:
            problems.append(f"run {label}: {receipts['unanswered']} receipt.get never answered")
    if diff:
        problems.append(f"state differs between A and B in {len(diff)} places")
    if killer.failure:
        problems.append(f"fault schedule failed: {killer.failure}")
    if exits:
        problems.append(f"run B: processes exited on their own: {exits}")
    if subscriber_alive is False:
        problems.append("the notification subscriber received nothing after it resumed")
    if run_b.disk_report is not None and run_b.disk_report["storageUnavailable"] + run_b.disk_report["probeStorageUnavailable"] == 0:
        problems.append("storage fault: no storage_unavailable error while the disk was full or the database down")
    known = []
    for item in readonly:
        if isinstance(item, tuple) and not item[1]:
            text = f"read-only data directory ({item[0]}): the gateway did not refuse to start: {item[2]}"
            if "event.publish answered reply" in item[2]:
                problems.append(text + " (and acknowledged an event it cannot have written)")
            else:
                known.append(text)
    for label, ledger in (("A", la), ("B", lb)):
        if ledger.internal_errors:
            known.append(f"run {label}: {len(ledger.internal_errors)} internal_error answers (retried with the same id "
                         f"and then acknowledged), e.g. {ledger.internal_errors[:2]}: requests cut off by a SIGTERM "
                         f"get internal_error, which is not a retryable code")
    for label, receipts in (("A", receipts_a), ("B", receipts_b)):
        if receipts["notKeptByReceiptGet"]:
            known.append(f"run {label}: receipt.get says found:false for acknowledged challenge requests "
                         f"{receipts['notKeptByReceiptGet']} (checked in the state instead)")
    if probe_missing:
        problems.append(f"disk probe: {len(probe_missing)} acknowledged events not in the event log: {probe_missing[:5]}")
    if args.strict:
        problems.extend(known)

    print()
    print("==== chaos verdict")
    print(f"seed {seed}; {total} state-changing operations ({', '.join(f'{k} {v}' for k, v in sorted(counts.items()))})")
    for label, ledger, duration, receipts in (("A (no faults)", la, duration_a, receipts_a),
                                              ("B (faults)", lb, duration_b, receipts_b)):
        print(f"run {label}: {ledger.sends} sent, {len(ledger.acked)} acknowledged, {ledger.retries} retried "
              f"({dict(ledger.errors)}; {ledger.timeouts} timeouts, {ledger.reconnects} reconnects), "
              f"{ledger.duplicates} acknowledged as duplicate (harmless resends), {len(ledger.rejected)} rejected; "
              f"stream {duration:.1f} s")
        print(f"    internal_error answers (retried): {len(ledger.internal_errors)}")
        print(f"    receipt.get: {receipts['answered']} answered, {len(receipts['notFound'])} not found, "
              f"challenge ids unknown to receipt.get: {receipts['notKeptByReceiptGet']}")
    print(f"run B faults: kills {dict(killer.kills)}, restarts {dict(killer.restarts)}")
    for note in killer.notes:
        print(f"    {note}")
    for note in deletion_notes:
        print(note)
    print(f"run B convergence: event log head {conv_b['eventsHead']}, achievement streams "
          f"{ {k: v.get('duplicatesSkipped') for k, v in conv_b['achievement'].items()} } duplicatesSkipped, challenge "
          f"streams { {k: (v.get('position'), v.get('duplicatesSkipped'), v.get('refetched')) for k, v in conv_b['challenge'].items()} } "
          f"(position, duplicatesSkipped, refetched)")
    print(f"notification subscriber (P1, dash): {subscriber.received} received, {subscriber.after_resume} after resuming; "
          f"alive after resume: {subscriber_alive}")
    if run_b.disk_report:
        print(f"storage fault ({storage_fault}): {run_b.disk_report}; stream requests refused with storage_unavailable meanwhile: "
              f"{lb.storage_unavailable_while_full}; acknowledged probe events missing from the log afterwards: "
              f"{len(probe_missing)}")
    for item in readonly:
        if isinstance(item, tuple):
            print(f"read-only data directory ({item[0]}): {'refused to start' if item[1] else 'DID NOT REFUSE'}: {item[2]}")
        else:
            print(f"read-only data directory: {item}")
    lost = len(lost_b | lost_a)
    print(f"lost (acknowledged, then not found): {lost}; duplicated (applied twice): "
          f"{'see state diff' if diff else 0}; state views compared: {len(state_a)}")
    if diff:
        print(f"state diff A vs B ({len(diff)}):")
        for line in diff[:60]:
            print(f"    {line}")
    else:
        print("state diff A vs B: empty")
    print(f"total time {time.monotonic() - t0:.1f} s")
    if args.report:
        with open(args.report, "w") as f:
            json.dump({"verdict": verdict, "diff": diff, "stateA": state_a, "stateB": state_b,
                       "notes": killer.notes}, f, indent=1, default=str)
    for item in known:
        print(f"KNOWN ISSUE: {item}")
    if problems:
        for problem in problems:
            print(f"FAIL: {problem}")
        print("chaos: FAIL")
        return 1
    print("chaos: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
