#!/usr/bin/env python3
"""Checks docs/openapi.yaml against a live HTTP front with schemathesis.

Usage, from the repository root:

    PODIUM_TEST_HTTP=http://127.0.0.1:8080 python3 Tests/Integration/python/schemathesis_run.py

It starts nothing: PODIUM_TEST_HTTP is the base URL of a running stack (gateway and the four
services, with the example games of docs/examples/games). It waits (bounded) for
`GET /v1/health` to say ready, registers a fresh player over HTTP (`POST /v1/accounts`, a unique
username and a password of the rules of PROTOCOL.md 8.1) for its session token, and runs the
schemathesis CLI on every operation of the document with that token, with the checks

    not_a_server_error, status_code_conformance, content_type_conformance,
    response_schema_conformance

and a bounded number of examples per operation (phases examples, coverage and fuzzing).

So that generated requests get past "no such game / player / board" to the replies, it first
gives the player a friend, a score and a received challenge (prepare_world), and hands
schemathesis dictionaries of ids that exist (the player's own id for the `playerId` query, the
example games' game, board and achievement ids, the friend, the challenge), used for about
60 % of those values (write_config); the rest stays generated.

`DELETE /v1/sessions/current` (logout) and `POST /v1/me/delete` (account deletion) end the
session they are sent with, so each runs in a separate schemathesis run with a session of its own
(a device login); otherwise every later request of the first run would only test 401.

Settings (environment, all optional):

    PODIUM_SCHEMATHESIS_MAX_EXAMPLES  examples per operation and phase (default 25: about 45 s on
                                      2 cores, ~2400 requests)
    PODIUM_SCHEMATHESIS_WORKERS       concurrent workers (default 1: with more, schemathesis 4.32's
                                      coverage phase can die with "SystemError: AST constructor
                                      recursion depth mismatch", Hypothesis parsing lambda sources
                                      in several threads at once on CPython 3.11)
    PODIUM_SCHEMATHESIS_SEED          a seed, to repeat a run exactly (default: random)
    PODIUM_SCHEMATHESIS_REPORT_DIR    where schemathesis writes JUnit and HAR reports (default: none)

Exits 0 when every check passed, 1 on any failure or error, 2 when it cannot start (no
PODIUM_TEST_HTTP, schemathesis missing, the stack not ready or registration refused). Not a pytest
module (its name does not start with `test_`).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
SPEC = REPO / "docs" / "openapi.yaml"
CHECKS = "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance"
# `stateful` is left out: the document declares no links, so it would only repeat the others.
PHASES = "examples,coverage,fuzzing"
READY_WAIT_SECONDS = 30.0
REQUEST_TIMEOUT_SECONDS = 15.0  # above the default 5 s service timeout: every request is answered by then
LOGOUT_OPERATION = "authLogout"
# Deleting the account ends the session (and the account) too: it runs on its own likewise.
DELETE_OPERATION = "authAccountDelete"
SESSION_ENDING = (LOGOUT_OPERATION, DELETE_OPERATION)
# How often a bound parameter takes an id that exists (write_config) rather than a generated value.
DICTIONARY_PROBABILITY = 0.6

# Operations left out because of a server bug, each with the finding it works around (operationId:
# finding). Empty: every operation passes every check.
EXCLUDED_OPERATIONS: dict[str, str] = {}


def fail_to_start(message):
    print(f"schemathesis_run: {message}", file=sys.stderr)
    sys.exit(2)


def http_json(base, method, path, body=None, token=None):
    """(status, decoded JSON body) of one request."""
    data = None if body is None else json.dumps(body).encode("utf-8")
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT_SECONDS) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        raw = error.read()
        try:
            return error.code, json.loads(raw or b"{}")
        except ValueError:
            return error.code, {"raw": raw.decode("utf-8", "replace")}


def wait_until_ready(base):
    deadline = time.monotonic() + READY_WAIT_SECONDS
    last = None
    while time.monotonic() < deadline:
        try:
            status, body = http_json(base, "GET", "/v1/health")
            if status == 200 and body.get("ready") is True:
                return
            last = f"{status} {body}"
        except (urllib.error.URLError, OSError) as error:
            last = str(error)
        time.sleep(0.5)
    fail_to_start(f"{base}/v1/health did not say ready within {READY_WAIT_SECONDS:.0f} s (last: {last})")


def register(base):
    """A fresh account's session grant (PROTOCOL.md 8.1: username 3-32 letters, digits, . _ -;
    password 8-256 characters)."""
    username = "st_" + uuid.uuid4().hex[:20]
    password = "pw " + uuid.uuid4().hex
    status, body = http_json(base, "POST", "/v1/accounts", {"username": username, "password": password})
    if status != 200 or "sessionToken" not in body:
        fail_to_start(f"POST /v1/accounts for {username} answered {status} {body}")
    return body


def device_login(base):
    status, body = http_json(base, "POST", "/v1/sessions/device", {"deviceId": str(uuid.uuid4())})
    if status != 200 or "sessionToken" not in body:
        fail_to_start(f"POST /v1/sessions/device answered {status} {body}")
    return body


def example_games():
    """Game, board and achievement ids of docs/examples/games (the games a test stack runs)."""
    games, boards, achievements = [], [], []
    for path in sorted((REPO / "docs" / "examples" / "games").glob("*.json")):
        config = json.loads(path.read_text())
        games.append(config["gameId"])
        boards += [board["id"] for board in config.get("leaderboards", [])]
        achievements += [achievement["id"] for achievement in config.get("achievements", [])]
    return games, boards, achievements


def prepare_world(base, player):
    """Gives the player something to find, so that generated requests reach more than the error
    paths: a friend to challenge, a score on the dash high-score board, a challenge received from
    the friend, and a friend request from another player (the friends routes get that one, so that
    blocking or removing does not end the friendship the challenges need). Returns the friend's
    and the other player's ids and the challenge's id (None where a step was refused: the run goes
    on with less)."""
    token = player["sessionToken"]
    friend = device_login(base)
    other = device_login(base)
    steps = [
        (friend["sessionToken"], "POST", f"/v1/friends/{player['playerId']}/request", {}),
        (token, "POST", f"/v1/friends/{friend['playerId']}/accept", {}),
        (other["sessionToken"], "POST", f"/v1/friends/{player['playerId']}/request", {}),
        (token, "POST", "/v1/games/dash/leaderboards/com.example.dash.highscore/scores", {"value": 100}),
        (friend["sessionToken"], "POST", "/v1/games/dash/leaderboards/com.example.dash.highscore/scores", {"value": 200}),
    ]
    for step_token, method, path, body in steps:
        status, reply = http_json(base, method, path, body, step_token)
        if status != 200:
            print(f"schemathesis_run: setup {method} {path} answered {status} {reply}", file=sys.stderr)
    status, challenge = http_json(
        base,
        "POST",
        "/v1/games/dash/challenges",
        {"kind": "score", "boardId": "com.example.dash.highscore", "receivers": [player["playerId"]]},
        friend["sessionToken"],
    )
    if status != 200:
        print(f"schemathesis_run: setup challenge answered {status} {challenge}", file=sys.stderr)
    return friend["playerId"], other["playerId"], challenge.get("challengeId") if status == 200 else None


def write_config(path, player_id, friend_id, other_id, challenge_id):
    """A schemathesis.toml that often (not always) fills ids with ones that exist: the player's own
    playerId (another is only ever 403), the example games, boards and achievements, the friend
    as a challenge receiver, the other player in the friends routes, the challenge. The rest stays
    generated."""
    games, boards, achievements = example_games()
    dictionaries = {
        "me": [player_id],
        "friend": [friend_id] if friend_id else [],
        "other": [other_id] if other_id else [],
        "games": games,
        "boards": boards,
        "achievements": achievements,
        "challenges": [challenge_id] if challenge_id else [],
    }
    bindings = {
        "query.playerId": "me",
        "path.gameId": "games",
        "path.boardId": "boards",
        "path.playerId": "other",
        "path.challengeId": "challenges",
        "query.boardId": "boards",
        "query.achievementId": "achievements",
        "body.boardId": "boards",
        "body.achievementId": "achievements",
        "body.gameId": "games",
        "body.receivers[*]": "friend",
        "body.reports[*].achievementId": "achievements",
    }
    lines = []
    for name, values in dictionaries.items():
        if values:
            lines += [f"[dictionaries.{name}]", f"values = {json.dumps(values)}", ""]
    lines.append("[parameters]")
    for key, name in bindings.items():
        if dictionaries[name]:
            lines.append(f"{json.dumps(key)} = {{ dictionary = {json.dumps(name)}, probability = {DICTIONARY_PROBABILITY} }}")
    Path(path).write_text("\n".join(lines) + "\n")


def schemathesis_command():
    executable = shutil.which("schemathesis")
    if executable:
        return [executable]
    try:
        import schemathesis  # noqa: F401
    except ImportError:
        fail_to_start("schemathesis is not installed: python3 -m pip install schemathesis")
    return [sys.executable, "-m", "schemathesis.cli"]


def run_schemathesis(label, base, token, selection, max_examples, report_dir, config_file):
    command = schemathesis_command() + [
        "--config-file", str(config_file),
        "run",
        str(SPEC),
        "--url", base,
        "--header", f"Authorization: Bearer {token}",
        "--checks", CHECKS,
        "--phases", PHASES,
        "--max-examples", str(max_examples),
        "--workers", os.environ.get("PODIUM_SCHEMATHESIS_WORKERS", "1"),
        # The session token above is the credential; do not generate values for the key headers
        # too (a request with two credentials is only ever 400 invalid_field).
        "--generation-with-security-parameters", "false",
        "--request-timeout", str(REQUEST_TIMEOUT_SECONDS),
        "--suppress-health-check", "all",
        "--no-color",
    ] + selection
    seed = os.environ.get("PODIUM_SCHEMATHESIS_SEED")
    if seed:
        command += ["--seed", seed]
    if report_dir:
        report = Path(report_dir)
        command += ["--report", "junit,har", "--report-dir", report_dir]
        command += ["--report-junit-path", str(report / f"{label}.xml"), "--report-har-path", str(report / f"{label}.har.json")]
    shown = [part if not part.startswith("Authorization: Bearer ") else "Authorization: Bearer <token>" for part in command]
    print(f"\n=== schemathesis run: {label}\n$ {' '.join(shown)}", flush=True)
    started = time.monotonic()
    # In the scratch directory: schemathesis keeps a crash cache (.schemathesis/) and Hypothesis
    # its example database (.hypothesis/) in the working directory, and neither belongs in the
    # repository.
    result = subprocess.run(command, cwd=config_file.parent)
    return result.returncode, time.monotonic() - started


def main():
    base = os.environ.get("PODIUM_TEST_HTTP", "").rstrip("/")
    if not base:
        fail_to_start("PODIUM_TEST_HTTP is not set (the HTTP front's base URL, for example http://127.0.0.1:8080)")
    if not SPEC.is_file():
        fail_to_start(f"{SPEC} does not exist")
    schemathesis_command()
    max_examples = int(os.environ.get("PODIUM_SCHEMATHESIS_MAX_EXAMPLES", "25"))
    report_dir = os.environ.get("PODIUM_SCHEMATHESIS_REPORT_DIR")
    if report_dir:
        report_dir = str(Path(report_dir).resolve())

    started = time.monotonic()
    wait_until_ready(base)
    try:
        player = register(base)
        friend_id, other_id, challenge_id = prepare_world(base, player)
    except (urllib.error.URLError, OSError) as error:
        fail_to_start(f"setting up the player failed: {error}")

    with tempfile.TemporaryDirectory(prefix="podium-schemathesis-") as scratch:
        config_file = Path(scratch) / "schemathesis.toml"
        write_config(config_file, player["playerId"], friend_id, other_id, challenge_id)
        selection = []
        for operation_id in list(SESSION_ENDING) + list(EXCLUDED_OPERATIONS):
            selection += ["--exclude-operation-id", operation_id]
        runs = [
            (
                "all operations but logout and account deletion",
                *run_schemathesis("main", base, player["sessionToken"], selection, max_examples, report_dir, config_file),
            )
        ]
        for ending in SESSION_ENDING:
            if ending in EXCLUDED_OPERATIONS:
                continue
            # Its own session (a device account): the first success ends it, later requests are
            # 401 session_revoked.
            try:
                own_player = device_login(base)
            except (urllib.error.URLError, OSError) as error:
                fail_to_start(f"logging in for the {ending} run failed: {error}")
            write_config(config_file, own_player["playerId"], friend_id, other_id, challenge_id)
            selection = ["--include-operation-id", ending]
            runs.append(
                (
                    ending,
                    *run_schemathesis(
                        ending, base, own_player["sessionToken"], selection, max_examples, report_dir, config_file
                    ),
                )
            )

    print("\n=== summary")
    print(f"document: {SPEC.relative_to(REPO)}; server: {base}; checks: {CHECKS}")
    print(f"phases: {PHASES}; at most {max_examples} examples per operation and phase")
    for operation_id, finding in EXCLUDED_OPERATIONS.items():
        print(f"excluded {operation_id}: {finding}")
    failed = False
    for label, code, seconds in runs:
        outcome = "passed" if code == 0 else f"FAILED (schemathesis exit status {code})"
        print(f"{label}: {outcome} in {seconds:.1f} s")
        failed = failed or code != 0
    print(f"total: {'FAILED' if failed else 'passed'} in {time.monotonic() - started:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
