"""Black-box tests of defined challenges (docs/PROTOCOL.md 12.12; issue 20): a studio's challenge
definitions (docs/examples/games/dash.json and whackacac.json), challenges started from them,
runs (scores tagged with `challengeId`, and game events named by a definition's `runEvent`),
best of the allowed attempts, standings, rematches, and the operators' `challenge.admin.define`
and `challenge.admin.remove`. Through the HTTP front with httpx, and over ZeroMQ with pyzmq
(requests, and the live `challenge.standings` notification).

The tests start nothing. They read:

    PODIUM_TEST_HTTP           the HTTP front's base URL (http://127.0.0.1:8080); without it this
                               module is skipped
    PODIUM_TEST_REQUESTS       (conftest.py) the same stack's ZeroMQ endpoints
    PODIUM_TEST_NOTIFICATIONS
    PODIUM_TEST_ADMIN_KEY      the stack's PODIUM_ADMIN_KEY: the operator tests (ending a challenge,
                               defining and removing definitions) are skipped without it

The stack must serve the games of docs/examples/games (scripts/test does). Every test makes its
own players (device logins: no scrypt) and, where it defines one, a definition with an id of its
own, so the tests do not depend on each other or on what earlier runs left behind. Dash is not
an open game (PODIUM_CHALLENGE_OPEN_GAMES): the players of a challenge are made friends first.

Runs are counted by the challenge service from its streams (the leaderboard's outbox, the
gateway's event log), after the request that made them is answered: the tests poll the standings
with a bounded wait. To know that a run that must not count has been read, a test waits for a
later run that does count (each stream is applied in order); no test asserts how long anything
takes.
"""

import json
import os
import re
import time
import uuid

import pytest
import zmq

import podium_client as pc
from podium_client import unique

BASE_URL = os.environ.get("PODIUM_TEST_HTTP")
if not BASE_URL:
    pytest.skip("PODIUM_TEST_HTTP is not set (the HTTP front's base URL)", allow_module_level=True)

RUN_WAIT_SECONDS = 10.0  # bound on waiting for a run to show in the standings (not an assertion)
DELIVERY_WAIT_SECONDS = 15.0

DASH = "dash"
HIGHSCORE = "com.example.dash.highscore"
FASTEST = "com.example.dash.fastest"
SPRINT = "com.example.dash.sprint"  # highscore, attempts 3, 10 min / 1 h / 1 day, repeatable
TRIAL = "com.example.dash.trial"  # fastest (lowerIsBetter), attempts 1, 1 h, not repeatable
WHACKACAC = "whackacac"
WHACK_BOARD = "com.dragonforged.whackacac.leaderboard"
BLITZ = "com.dragonforged.whackacac.blitz"  # runEvent match.end, attempts 3, 1 h / 1 day, repeatable
BLACKJACK = "blackjack"  # no challenges
MINUTE, HOUR, DAY = 60000, 3600000, 86400000

GAMES_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "docs", "examples", "games")
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
PROBLEM_MEMBERS = {"type", "title", "status", "detail", "code", "field", "retryAfterMilliseconds", "requestId"}
TOKEN_CODES = {"invalid_token", "token_expired", "session_revoked"}
WRONG_KEY = "not-the-admin-key-" + "0" * 40
ANY = object()  # "do not check" for an optional argument


# ---------------------------------------------------------------------------------------------
# Helpers (the small ones of test_http.py, copied: importing that module would bring its tests)


def describe(response):
    return f"{response.request.method} {response.request.url} -> {response.status_code} {response.text[:600]}"


def media_type(response):
    return response.headers.get("content-type", "").split(";")[0].strip().lower()


def ok(response):
    """The JSON body of a 200 reply, after checking what every success carries."""
    assert response.status_code == 200, describe(response)
    assert media_type(response) == "application/json", describe(response)
    assert response.headers.get("podium-request-id"), describe(response)
    return response.json()


def problem(response, status, code, field=ANY):
    """The body of an RFC 9457 problem with `status` and `code` (and `field`: None means none)."""
    assert response.status_code == status, describe(response)
    assert media_type(response) == "application/problem+json", describe(response)
    body = response.json()
    assert set(body) <= PROBLEM_MEMBERS, body
    assert body["type"] == f"urn:podium:error:{code}", body
    assert body["title"] == code and body["code"] == code, body
    assert body["status"] == status, body
    assert isinstance(body["detail"], str) and body["detail"], body
    if field is not ANY:
        assert body.get("field") == field, body
    if status == 401:
        challenge = response.headers.get("www-authenticate")
        assert challenge is not None and challenge.startswith('Bearer realm="podium"'), describe(response)
    return body


def bearer(grant):
    return {"Authorization": f"Bearer {grant['sessionToken']}"}


def keyed(grant, key=None):
    return {**bearer(grant), "Idempotency-Key": key or unique("k")}


def admin(admin_key, key=None):
    return {"X-Podium-Admin-Key": admin_key, "Idempotency-Key": key or unique("op")}


def device_player(http):
    """A new device account made over HTTP (no scrypt: cheap)."""
    grant = ok(http.post("/v1/sessions/device", json={"deviceId": f"defined-{uuid.uuid4()}"}))
    assert grant["created"] is True and UUID.match(grant["playerId"]), grant
    return grant


def befriend(http, one, other):
    assert ok(http.post(f"/v1/friends/{other['playerId']}/request", headers=bearer(one)))["state"] == "outgoing_request"
    assert ok(http.post(f"/v1/friends/{one['playerId']}/accept", headers=bearer(other)))["state"] == "friends"


def players(http, count):
    """`count` new players, the first a friend of each of the others."""
    made = [device_player(http) for _ in range(count)]
    for other in made[1:]:
        befriend(http, made[0], other)
    return made


def start(http, grant, definition, duration, receivers, game=DASH, key=None):
    body = {"definitionId": definition, "durationMilliseconds": duration, "receivers": [r["playerId"] for r in receivers]}
    return http.post(f"/v1/games/{game}/challenges/timed", headers=keyed(grant, key), json=body)


def run(http, grant, value, challenge_id, board=HIGHSCORE, key=None):
    """A tagged score (a run); returns the leaderboard's receipt."""
    body = {"value": value}
    if challenge_id is not None:
        body["challengeId"] = challenge_id
    receipt = ok(http.post(f"/v1/games/{DASH}/leaderboards/{board}/scores", headers=keyed(grant, key), json=body))
    if challenge_id is not None:
        assert receipt.get("challengeId") == challenge_id, receipt
    return receipt


def publish(http, grant, name, value=None, game=WHACKACAC, **attributes):
    body = {"name": name}
    if value is not None:
        body["value"] = value
    if attributes:
        body["attributes"] = attributes
    return ok(http.post(f"/v1/games/{game}/events", headers=keyed(grant), json=body))


def standings(http, grant, challenge_id, game=DASH):
    reply = ok(http.get(f"/v1/games/{game}/challenges/{challenge_id}/standings", headers=bearer(grant)))
    assert reply["challengeId"] == challenge_id and reply["state"] in ("running", "ended"), reply
    assert [row["rank"] for row in reply["standings"]] == list(range(1, len(reply["standings"]) + 1)), reply
    return reply


def rows(reply):
    """The standings as (playerId, value, attempts) in rank order."""
    return [(row["playerId"], row["value"], row.get("attempts")) for row in reply["standings"]]


def attempts_of(reply, grant):
    for row in reply["standings"]:
        if row["playerId"] == grant["playerId"]:
            return row.get("attempts")
    return 0


def poll(fetch, until, what, wait=RUN_WAIT_SECONDS):
    """Calls `fetch` until `until(result)` holds; returns that result or fails the test."""
    deadline = time.monotonic() + wait
    while True:
        result = fetch()
        if until(result):
            return result
        if time.monotonic() > deadline:
            pytest.fail(f"{what} did not happen within {wait} s; last: {result}")
        time.sleep(0.1)


def wait_for_attempts(http, viewer, challenge_id, grant, count, game=DASH):
    """The standings once `grant`'s player has `count` runs counted in the challenge."""
    return poll(lambda: standings(http, viewer, challenge_id, game), lambda s: attempts_of(s, grant) == count,
                f"{count} runs of {grant['playerId']} counted in {challenge_id}")


def detail(http, grant, challenge_id, game=DASH):
    return ok(http.get(f"/v1/games/{game}/challenges/{challenge_id}", headers=bearer(grant)))


def same_challenge(one, other):
    """Equal but for the order of `receivers` (12.1 says sorted by player id; the start reply
    lists the starter first)."""
    def key(challenge):
        return dict(challenge, receivers=sorted(challenge["receivers"], key=lambda r: r["playerId"]))
    return key(one) == key(other)


def participants(challenge):
    return sorted(r["playerId"] for r in challenge["receivers"])


def check_started(challenge, definition, duration, attempts_allowed, board, issuer, others):
    assert challenge["kind"] == "timed" and challenge["state"] == "running", challenge
    assert challenge["definitionId"] == definition, challenge
    assert challenge.get("attemptsAllowed") == attempts_allowed, challenge  # absent for "unlimited"
    assert challenge["durationMilliseconds"] == duration, challenge
    assert challenge["boardId"] == board, challenge
    assert challenge["endsAt"] == challenge["createdAt"] + duration, challenge
    assert challenge["issuerId"] == issuer["playerId"], challenge
    assert participants(challenge) == sorted(p["playerId"] for p in [issuer, *others]), challenge
    assert all(r["attempts"] == 0 for r in challenge["receivers"]), challenge
    assert UUID.match(challenge["challengeId"]), challenge


def definitions(http, headers, game=DASH):
    listing = ok(http.get(f"/v1/games/{game}/challenges/definitions", headers=headers))
    assert set(listing) == {"definitions"}, listing
    return listing["definitions"]


def as_listed(definition):
    """A definition of a game file as `challenge.definitions` shows it: the defaults filled in."""
    listed = {"attempts": 1, "repeatable": False, "releaseState": "released", **definition}
    return listed


def without_null(definition):
    return {k: v for k, v in definition.items() if v is not None}


def file_definitions(game):
    with open(os.path.join(GAMES_DIR, f"{game}.json"), encoding="utf-8") as file:
        return [as_listed(d) for d in json.load(file).get("challenges", [])]


def wait_until_ended(http, grant, challenge_id):
    """An ended challenge is `ended` after the service's grace for scores in flight (12.1)."""
    return poll(lambda: detail(http, grant, challenge_id), lambda c: c["state"] == "ended",
                f"challenge {challenge_id} ended", wait=DELIVERY_WAIT_SECONDS)


# ---------------------------------------------------------------------------------------------
# The definitions of the game files


def test_definitions_list_the_released_dash_definitions(http):
    ann = device_player(http)
    shown = {d["id"]: without_null(d) for d in definitions(http, bearer(ann))}
    expected = file_definitions(DASH)
    assert [d["id"] for d in expected] == [SPRINT, TRIAL]
    for definition in expected:
        assert shown.get(definition["id"]) == definition, (definition["id"], shown.get(definition["id"]))
    # The file's order is kept (operators' definitions, made by other tests, may come between).
    order = [d for d in (d["id"] for d in definitions(http, bearer(ann))) if d in (SPRINT, TRIAL)]
    assert order == [SPRINT, TRIAL]
    # Spelled out once, so that the example file and the product cannot drift together.
    assert shown[SPRINT] == {
        "id": SPRINT, "title": "Sprint", "details": "Your best of three runs in the time you pick.",
        "image": "https://cdn.example.com/dash/sprint.png", "leaderboardId": HIGHSCORE,
        "durations": [10 * MINUTE, HOUR, DAY], "attempts": 3, "repeatable": True, "releaseState": "released",
    }
    assert shown[TRIAL]["leaderboardId"] == FASTEST and shown[TRIAL]["attempts"] == 1
    assert shown[TRIAL]["repeatable"] is False and shown[TRIAL]["durations"] == [HOUR] and "image" not in shown[TRIAL]
    # A game without challenges lists none.
    assert definitions(http, bearer(ann), BLACKJACK) == []


def test_whackacac_lists_its_blitz_with_its_run_event(http):
    ann = device_player(http)
    shown = {d["id"]: d for d in definitions(http, bearer(ann), WHACKACAC)}
    blitz = shown.get(BLITZ)
    assert blitz is not None, shown
    assert blitz == file_definitions(WHACKACAC)[0], blitz
    assert blitz["runEvent"] == {"name": "match.end"} and blitz["attempts"] == 3 and blitz["durations"] == [HOUR, DAY], blitz


# ---------------------------------------------------------------------------------------------
# Sprint: best of three tagged runs


def test_sprint_counts_the_best_of_three_tagged_runs(http):
    ann, bo = players(http, 2)
    run(http, ann, 900, None)  # a score before the challenge: no run
    started = ok(start(http, ann, SPRINT, HOUR, [bo]))
    check_started(started, SPRINT, HOUR, 3, HIGHSCORE, ann, [bo])
    challenge_id = started["challengeId"]
    assert same_challenge(detail(http, bo, challenge_id), started)

    # An untagged score, even a better one, is not a run of a defined challenge.
    run(http, ann, 5000, None)
    for value in (30, 70, 50):
        run(http, ann, value, challenge_id)
    ann_three = wait_for_attempts(http, ann, challenge_id, ann, 3)
    assert rows(ann_three) == [(ann["playerId"], 70, 3)], ann_three

    # A fourth run is accepted by the leaderboard (an ordinary score there) but does not count
    # here (12.12: neither attempts nor value, even if better).
    fourth = run(http, ann, 999, challenge_id)
    assert fourth["boardId"] == HIGHSCORE, fourth
    bo_key = unique("bo-run")
    run(http, bo, 40, challenge_id, key=bo_key)  # read after the fourth: once it counts, the fourth was read
    after = wait_for_attempts(http, ann, challenge_id, bo, 1)
    assert rows(after) == [(ann["playerId"], 70, 3), (bo["playerId"], 40, 1)], after
    assert after["state"] == "running" and after["endsAt"] == started["endsAt"], after

    # A resend of the same request id is not a second run.
    run(http, bo, 40, challenge_id, key=bo_key)
    run(http, bo, 80, challenge_id)
    later = poll(lambda: standings(http, bo, challenge_id), lambda s: rows(s)[0][0] == bo["playerId"], "bo's 80 counted")
    assert rows(later) == [(bo["playerId"], 80, 2), (ann["playerId"], 70, 3)], later
    # The receivers of the detail carry the same counts and best values.
    receivers = {r["playerId"]: r for r in detail(http, ann, challenge_id)["receivers"]}
    assert (receivers[ann["playerId"]]["attempts"], receivers[ann["playerId"]]["value"]) == (3, 70), receivers
    assert (receivers[bo["playerId"]]["attempts"], receivers[bo["playerId"]]["value"]) == (2, 80), receivers
    # The board itself took every score, tagged or not: ann's best there is the untagged 5000.
    assert fourth["submittedValue"] == 999, fourth
    entry = ok(http.get(f"/v1/games/{DASH}/leaderboards/{HIGHSCORE}/entry", headers=bearer(ann)))["entry"]
    assert entry["value"] == 5000, entry


def test_sprint_start_refusals(http):
    ann, bo = players(http, 2)
    # A duration the definition does not offer (within 1 minute-30 days): invalid_field.
    body = problem(start(http, ann, SPRINT, 2 * MINUTE, [bo]), 400, "invalid_field", "payload.durationMilliseconds")
    assert "600000" in body["detail"], body  # the message lists the durations offered
    problem(start(http, ann, SPRINT, 30 * MINUTE, [bo]), 400, "invalid_field", "payload.durationMilliseconds")
    problem(start(http, ann, "com.example.dash.nothing", HOUR, [bo]), 400, "invalid_field", "payload.definitionId")
    mismatch = http.post(f"/v1/games/{DASH}/challenges/timed", headers=keyed(ann),
                         json={"definitionId": SPRINT, "durationMilliseconds": HOUR, "boardId": FASTEST,
                               "receivers": [bo["playerId"]]})
    problem(mismatch, 400, "invalid_field", "payload.boardId")
    # None of these started anything.
    assert ok(http.get(f"/v1/games/{DASH}/challenges/issued", headers=bearer(ann)))["challenges"] == []
    assert ok(http.get(f"/v1/games/{DASH}/challenges/received", headers=bearer(bo)))["challenges"] == []


def test_a_run_tagged_for_another_challenge_counts_only_there(http):
    ann, bo, cy = players(http, 3)
    first = ok(start(http, ann, SPRINT, HOUR, [bo]))["challengeId"]
    second = ok(start(http, ann, SPRINT, DAY, [cy]))["challengeId"]
    run(http, ann, 60, second)
    run(http, ann, 20, first)
    one = wait_for_attempts(http, ann, first, ann, 1)
    assert rows(one) == [(ann["playerId"], 20, 1)], one
    two = wait_for_attempts(http, ann, second, ann, 1)
    assert rows(two) == [(ann["playerId"], 60, 1)], two
    # A tag that names no challenge is accepted and counts for none.
    run(http, ann, 500, str(uuid.uuid4()))
    run(http, ann, 25, first)
    one = wait_for_attempts(http, ann, first, ann, 2)
    assert rows(one) == [(ann["playerId"], 25, 2)], one
    assert rows(standings(http, cy, second)) == [(ann["playerId"], 60, 1)]
    # A player who is not in a challenge does not see its standings.
    problem(http.get(f"/v1/games/{DASH}/challenges/{first}/standings", headers=bearer(cy)), 404, "unknown_challenge",
            "payload.challengeId")


# ---------------------------------------------------------------------------------------------
# Trial: one run, lower is better, taken on once


def test_trial_is_one_run_lower_is_better_and_not_repeatable(http):
    ann, bo, cy = players(http, 3)
    befriend(http, bo, cy)
    started = ok(start(http, ann, TRIAL, HOUR, [bo]))
    check_started(started, TRIAL, HOUR, 1, FASTEST, ann, [bo])
    challenge_id = started["challengeId"]

    # Taken on once: a second start by the same player is a conflict (running or ended), and so
    # is one naming a player who took part.
    problem(start(http, ann, TRIAL, HOUR, [cy]), 409, "conflict", "payload.definitionId")
    problem(start(http, cy, TRIAL, HOUR, [bo]), 409, "conflict", "payload.receivers")
    assert [c["challengeId"] for c in ok(http.get(f"/v1/games/{DASH}/challenges/issued", headers=bearer(ann)))["challenges"]] \
        == [challenge_id]

    run(http, ann, 5000, challenge_id, board=FASTEST)
    run(http, ann, 4000, challenge_id, board=FASTEST)  # past the one attempt: does not count
    run(http, bo, 4500, challenge_id, board=FASTEST)
    final = wait_for_attempts(http, bo, challenge_id, bo, 1)
    # Lower is better: bo's 4500 beats ann's only counted run, 5000.
    assert rows(final) == [(bo["playerId"], 4500, 1), (ann["playerId"], 5000, 1)], final


# ---------------------------------------------------------------------------------------------
# Rematch after an operator's early end


def test_rematch_of_a_sprint_ended_early_by_an_operator(http, admin_key):
    ann, bo = players(http, 2)
    old = ok(start(http, ann, SPRINT, 10 * MINUTE, [bo]))
    old_id = old["challengeId"]
    problem(http.post(f"/v1/games/{DASH}/challenges/{old_id}/rematch", headers=keyed(bo)), 409, "conflict")
    run(http, bo, 42, old_id)
    wait_for_attempts(http, ann, old_id, bo, 1)

    ended = ok(http.post(f"/v1/admin/games/{DASH}/challenges/{old_id}/end", headers=admin(admin_key)))
    assert ended["challengeId"] == old_id and ended["durationMilliseconds"] == 10 * MINUTE, ended
    assert ended["endsAt"] < old["endsAt"], ended
    wait_until_ended(http, ann, old_id)
    final = standings(http, ann, old_id)
    assert final["state"] == "ended" and rows(final) == [(bo["playerId"], 42, 1)], final

    new = ok(http.post(f"/v1/games/{DASH}/challenges/{old_id}/rematch", headers=keyed(bo)))
    check_started(new, SPRINT, 10 * MINUTE, 3, HIGHSCORE, bo, [ann])
    assert new["rematchOf"] == old_id and new["challengeId"] != old_id, new
    assert participants(new) == participants(old)
    # The new one counts its own runs from 0.
    run(http, ann, 7, new["challengeId"])
    fresh = wait_for_attempts(http, bo, new["challengeId"], ann, 1)
    assert rows(fresh) == [(ann["playerId"], 7, 1)], fresh


# ---------------------------------------------------------------------------------------------
# Operators' definitions


def definition_path(game=DASH):
    return f"/v1/admin/games/{game}/challenges/definitions"


def new_definition(**fields):
    definition = {
        "id": f"com.example.dash.op-{uuid.uuid4().hex[:12]}", "title": "Operator Sprint",
        "details": "A sprint the operators set up.", "leaderboardId": HIGHSCORE, "durations": [HOUR, 2 * HOUR],
        "attempts": "unlimited",
    }
    definition.update(fields)
    return definition


def test_operator_defines_replaces_and_removes_a_definition(http, admin_key):
    ann, bo = players(http, 2)
    definition = new_definition()
    def_id = definition["id"]
    stored = ok(http.post(definition_path(), headers=admin(admin_key), json={"definition": definition}))
    assert set(stored) == {"definition"}, stored
    assert without_null(stored["definition"]) == as_listed(definition), stored
    listed = {d["id"]: without_null(d) for d in definitions(http, bearer(ann))}
    assert listed.get(def_id) == as_listed(definition), listed.get(def_id)
    assert SPRINT in listed and TRIAL in listed  # the file's are still there
    order = [d["id"] for d in definitions(http, bearer(ann))]
    assert order.index(SPRINT) < order.index(TRIAL) < order.index(def_id), order  # the file's first

    started = ok(start(http, ann, def_id, HOUR, [bo]))
    check_started(started, def_id, HOUR, None, HIGHSCORE, ann, [bo])  # unlimited: no attemptsAllowed
    challenge_id = started["challengeId"]
    for value in (5, 9, 3, 11):
        run(http, ann, value, challenge_id)
    four = wait_for_attempts(http, bo, challenge_id, ann, 4)  # unlimited: every run counts
    assert rows(four) == [(ann["playerId"], 11, 4)], four

    # Replaced: the new version is listed and applies to new starts; the running challenge keeps
    # what it started with (unlimited runs, its duration).
    replacement = dict(definition, title="Operator Sprint II", attempts=1, durations=[DAY], repeatable=True)
    stored = ok(http.post(definition_path(), headers=admin(admin_key), json={"definition": replacement}))
    assert without_null(stored["definition"]) == as_listed(replacement), stored
    listed = {d["id"]: without_null(d) for d in definitions(http, bearer(ann))}
    assert listed.get(def_id) == as_listed(replacement)
    assert [d["id"] for d in definitions(http, bearer(ann))] == order  # a replaced one keeps its place
    problem(start(http, ann, def_id, HOUR, [bo]), 400, "invalid_field", "payload.durationMilliseconds")
    run(http, ann, 13, challenge_id)
    five = wait_for_attempts(http, bo, challenge_id, ann, 5)
    assert rows(five) == [(ann["playerId"], 13, 5)], five
    kept = detail(http, ann, challenge_id)
    assert "attemptsAllowed" not in kept and kept["durationMilliseconds"] == HOUR, kept

    # Removed: gone from the listing, and a start with it is refused; the running challenge still
    # counts tagged runs.
    removed = ok(http.post(f"{definition_path()}/{def_id}/remove", headers=admin(admin_key)))
    assert removed == {"definitionId": def_id, "removed": True}, removed
    assert def_id not in [d["id"] for d in definitions(http, bearer(ann))]
    assert def_id not in [d["id"] for d in definitions(http, {"X-Podium-Admin-Key": admin_key})]
    problem(start(http, ann, def_id, DAY, [bo]), 400, "invalid_field", "payload.definitionId")
    run(http, ann, 2, challenge_id)
    six = wait_for_attempts(http, bo, challenge_id, ann, 6)
    assert rows(six) == [(ann["playerId"], 13, 6)], six
    # Its rematch is refused once it ended (the game no longer has the definition).
    ok(http.post(f"/v1/admin/games/{DASH}/challenges/{challenge_id}/end", headers=admin(admin_key)))
    wait_until_ended(http, ann, challenge_id)
    problem(http.post(f"/v1/games/{DASH}/challenges/{challenge_id}/rematch", headers=keyed(bo)), 400, "invalid_field",
            "payload.definitionId")

    # Removing it again changes nothing and says so (a resend is answered like the first); an id
    # that was never defined is unknown_challenge.
    again = ok(http.post(f"{definition_path()}/{def_id}/remove", headers=admin(admin_key)))
    assert again == {"definitionId": def_id, "removed": False}, again
    problem(http.post(f"{definition_path()}/com.example.dash.never-{uuid.uuid4().hex[:8]}/remove", headers=admin(admin_key)),
            404, "unknown_challenge", "payload.definitionId")


BAD_DEFINITIONS = [
    ("unknown leaderboard", DASH, {"leaderboardId": "com.example.dash.nope"}, "payload.definition.leaderboardId"),
    ("attempts 2", DASH, {"attempts": 2}, "payload.definition"),
    ("no durations", DASH, {"durations": []}, "payload.definition"),
    ("a duration of 1000 ms", DASH, {"durations": [1000]}, "payload.definition"),
    ("a duration over 30 days", DASH, {"durations": [2592000001]}, "payload.definition"),
    ("a duration twice", DASH, {"durations": [MINUTE, MINUTE]}, "payload.definition"),
    ("11 durations", DASH, {"durations": [MINUTE * (i + 1) for i in range(11)]}, "payload.definition"),
    ("a bad id", DASH, {"id": "com.example.dash.bad id!"}, "payload.definition"),
    ("an id of 101 characters", DASH, {"id": "c" * 101}, "payload.definition"),
    ("an empty title", DASH, {"title": ""}, "payload.definition"),
    ("empty details", DASH, {"details": ""}, "payload.definition"),
    ("an image that is not http(s)", DASH, {"image": "ftp://cdn.example.com/x.png"}, "payload.definition"),
    ("a bad runEvent name", DASH, {"runEvent": {"name": "Match End"}}, "payload.definition"),
    ("a runEvent the game does not declare", WHACKACAC,
     {"leaderboardId": WHACK_BOARD, "runEvent": {"name": "cactus.miss"}}, "payload.definition"),
    ("an empty measureAttribute", WHACKACAC,
     {"leaderboardId": WHACK_BOARD, "runEvent": {"name": "match.end", "measureAttribute": ""}}, "payload.definition"),
    ("a measureAttribute the game does not declare", WHACKACAC,
     {"leaderboardId": WHACK_BOARD, "runEvent": {"name": "match.end", "measureAttribute": "combo"}}, "payload.definition"),
]


@pytest.mark.parametrize("what,game,fields,field", BAD_DEFINITIONS, ids=[case[0] for case in BAD_DEFINITIONS])
def test_bad_operator_definitions_are_refused_and_change_nothing(http, admin_key, what, game, fields, field):
    operator = {"X-Podium-Admin-Key": admin_key}
    before = definitions(http, operator, game)
    definition = new_definition(**fields)
    body = problem(http.post(definition_path(game), headers=admin(admin_key), json={"definition": definition}),
                   400, "invalid_field", field)
    assert body["detail"], body
    assert definitions(http, operator, game) == before
    # Also as the request type itself, over /v1/call.
    problem(http.post("/v1/call/challenge.admin.define", headers=admin(admin_key),
                      json={"gameId": game, "payload": {"definition": definition}}), 400, "invalid_field", field)
    assert definitions(http, operator, game) == before


def test_operator_definition_on_a_board_an_operator_defined(http, admin_key):
    # A game of this test's own, made by an operator's board (leaderboard.admin.define creates
    # the game): a challenge definition may use that board (the leaderboard service is asked),
    # unlike in a game file.
    game = f"optest-{uuid.uuid4().hex[:10]}"
    board = f"com.example.{game}.score"
    problem(http.post(definition_path(game), headers=admin(admin_key),
                      json={"definition": new_definition(leaderboardId=board)}), 404, "unknown_game", "gameId")
    ok(http.post("/v1/call/leaderboard.admin.define", headers=admin(admin_key),
                 json={"gameId": game, "payload": {"definition": {"id": board, "title": "Score"}}}))
    definition = new_definition(id=f"com.example.{game}.cup", leaderboardId=board)
    stored = ok(http.post(definition_path(game), headers=admin(admin_key), json={"definition": definition}))
    assert without_null(stored["definition"]) == as_listed(definition), stored
    assert [d["id"] for d in definitions(http, {"X-Podium-Admin-Key": admin_key}, game)] == [definition["id"]]
    problem(http.post(definition_path(game), headers=admin(admin_key),
                      json={"definition": dict(definition, leaderboardId=HIGHSCORE)}),  # dash's, not this game's
            400, "invalid_field", "payload.definition.leaderboardId")
    problem(http.post(definition_path(game), headers=admin(admin_key), json={}), 400, "missing_field", "payload.definition")
    assert ok(http.post(f"{definition_path(game)}/{definition['id']}/remove", headers=admin(admin_key))) == {
        "definitionId": definition["id"], "removed": True}
    assert definitions(http, {"X-Podium-Admin-Key": admin_key}, game) == []


def test_operator_definition_routes_are_refused_without_the_admin_key(http):
    ann = device_player(http)
    definition = new_definition()
    before = definitions(http, bearer(ann))
    routes = [
        (definition_path(), {"definition": definition}),
        (f"{definition_path()}/{SPRINT}/remove", None),
    ]
    for path, body in routes:
        # As the other operator types answer (test_admin.py): a player's token 403 forbidden, no
        # credential 401 unauthenticated, a wrong key 401 invalid_credentials.
        problem(http.post(path, headers=keyed(ann), json=body), 403, "forbidden")
        problem(http.post(path, json=body), 401, "unauthenticated")
        problem(http.post(path, headers={"X-Podium-Admin-Key": WRONG_KEY}, json=body), 401, "invalid_credentials", "adminKey")
    assert definitions(http, bearer(ann)) == before
    assert definition["id"] not in [d["id"] for d in before] and SPRINT in [d["id"] for d in before]


# ---------------------------------------------------------------------------------------------
# Runs by game event (runEvent)


def test_blitz_counts_match_end_events_as_runs(http):
    ann, bo, cy = players(http, 3)
    publish(http, ann, "match.end", 500, matchId="before")  # before ann took part: no run
    blitz = ok(start(http, ann, BLITZ, HOUR, [bo], game=WHACKACAC))
    check_started(blitz, BLITZ, HOUR, 3, WHACK_BOARD, ann, [bo])
    other = ok(start(http, ann, BLITZ, DAY, [cy], game=WHACKACAC))
    first, second = blitz["challengeId"], other["challengeId"]

    publish(http, ann, "match.end", matchId="m1")  # no value: not a run
    publish(http, ann, "match.end", 10, matchId="m2", challengeId=first)  # first only
    publish(http, ann, "match.end", 99, matchId="m3", challengeId=second)  # second only
    publish(http, ann, "match.end", 20, matchId="m4")  # no challengeId: every blitz ann is in
    two = wait_for_attempts(http, cy, second, ann, 2, WHACKACAC)
    assert rows(two) == [(ann["playerId"], 99, 2)], two
    one = standings(http, bo, first, WHACKACAC)
    assert rows(one) == [(ann["playerId"], 20, 2)], one

    publish(http, ann, "match.end", 30, matchId="m5")  # ann's third in both
    publish(http, ann, "match.end", 77, matchId="m6", challengeId=first)  # past the three: nothing
    publish(http, ann, "cactus.hit", 400, matchId="m6")  # another event: nothing
    publish(http, bo, "match.end", 15, matchId="b1")
    publish(http, bo, "match.end", 25, matchId="b2")
    one = wait_for_attempts(http, ann, first, bo, 2, WHACKACAC)
    assert rows(one) == [(ann["playerId"], 30, 3), (bo["playerId"], 25, 2)], one
    publish(http, bo, "match.end", 31, matchId="b3")
    one = poll(lambda: standings(http, bo, first, WHACKACAC), lambda s: attempts_of(s, bo) == 3, "bo's third match")
    assert rows(one) == [(bo["playerId"], 31, 3), (ann["playerId"], 30, 3)], one
    two = standings(http, ann, second, WHACKACAC)
    assert rows(two) == [(ann["playerId"], 99, 3)], two  # ann's third (30) counted, 99 still best
    # Runs by event go to the challenge only, not to the board.
    entry = ok(http.get(f"/v1/games/{WHACKACAC}/leaderboards/{WHACK_BOARD}/entry", headers=bearer(ann)))
    assert entry["entry"] is None, entry


def test_events_after_the_end_do_not_count(http, admin_key):
    ann, bo = players(http, 2)
    ending = ok(start(http, ann, BLITZ, HOUR, [bo], game=WHACKACAC))["challengeId"]
    going = ok(start(http, ann, BLITZ, DAY, [bo], game=WHACKACAC))["challengeId"]
    publish(http, ann, "match.end", 10, matchId="e1")  # a run of both
    wait_for_attempts(http, ann, going, ann, 1, WHACKACAC)
    assert rows(standings(http, ann, ending, WHACKACAC)) == [(ann["playerId"], 10, 1)]

    ok(http.post(f"/v1/admin/games/{WHACKACAC}/challenges/{ending}/end", headers=admin(admin_key)))
    poll(lambda: detail(http, ann, ending, WHACKACAC), lambda c: c["state"] == "ended", f"challenge {ending} ended",
         wait=DELIVERY_WAIT_SECONDS)
    publish(http, ann, "match.end", 20, matchId="e2")  # after the end of one: a run of the other only
    going_now = wait_for_attempts(http, ann, going, ann, 2, WHACKACAC)
    assert rows(going_now) == [(ann["playerId"], 20, 2)], going_now
    ended = standings(http, bo, ending, WHACKACAC)
    assert ended["state"] == "ended" and rows(ended) == [(ann["playerId"], 10, 1)], ended


def test_a_run_event_defined_later_applies_to_running_challenges(http, admin_key):
    # 22.6: which event is a run is read from the definition as it is when the event comes.
    ann, bo = players(http, 2)
    definition = new_definition(id=f"com.dragonforged.whackacac.late-{uuid.uuid4().hex[:8]}", leaderboardId=WHACK_BOARD,
                                attempts=3, repeatable=True)
    ok(http.post(definition_path(WHACKACAC), headers=admin(admin_key), json={"definition": definition}))
    try:
        late = ok(start(http, ann, definition["id"], HOUR, [bo], game=WHACKACAC))["challengeId"]
        blitz = ok(start(http, ann, BLITZ, HOUR, [bo], game=WHACKACAC))["challengeId"]  # sees every match.end
        publish(http, ann, "match.end", 10, matchId="l1")  # no runEvent yet: a run of the blitz only
        wait_for_attempts(http, ann, blitz, ann, 1, WHACKACAC)
        assert rows(standings(http, ann, late, WHACKACAC)) == []

        ok(http.post(definition_path(WHACKACAC), headers=admin(admin_key),
                     json={"definition": dict(definition, runEvent={"name": "match.end"})}))
        publish(http, ann, "match.end", 20, matchId="l2")
        wait_for_attempts(http, ann, blitz, ann, 2, WHACKACAC)
        now = standings(http, bo, late, WHACKACAC)
        assert rows(now) == [(ann["playerId"], 20, 1)], now
    finally:
        ok(http.post(f"{definition_path(WHACKACAC)}/{definition['id']}/remove", headers=admin(admin_key)))


def test_prerelease_operator_definition_is_for_operators_only(http, admin_key):
    ann, bo = players(http, 2)
    definition = new_definition(releaseState="prerelease")
    ok(http.post(definition_path(), headers=admin(admin_key), json={"definition": definition}))
    try:
        assert definition["id"] not in [d["id"] for d in definitions(http, bearer(ann))]
        shown = {d["id"]: without_null(d) for d in definitions(http, {"X-Podium-Admin-Key": admin_key})}
        assert shown.get(definition["id"]) == as_listed(definition), shown.get(definition["id"])
        problem(start(http, ann, definition["id"], HOUR, [bo]), 400, "invalid_field", "payload.definitionId")
    finally:
        ok(http.post(f"{definition_path()}/{definition['id']}/remove", headers=admin(admin_key)))


# ---------------------------------------------------------------------------------------------
# Over ZeroMQ: a sprint with its live standings, and an operator definition with measureAttribute


def zmq_player(dealer):
    grant = pc.ok(dealer, {"type": "auth.device-login", "payload": {"deviceId": f"defined-zmq-{uuid.uuid4()}"}})
    assert UUID.match(grant["playerId"]), grant
    return grant


def zmq_friends(dealer, one, other):
    pc.ok(dealer, {"type": "auth.friends.request", "token": one["sessionToken"], "payload": {"playerId": other["playerId"]}})
    pc.ok(dealer, {"type": "auth.friends.accept", "token": other["sessionToken"], "payload": {"playerId": one["playerId"]}})


def next_standings(sub, topic, grant, challenge_id, until):
    """Reads `challenge.standings` notifications of the challenge until `until(standings)` holds."""
    deadline = time.monotonic() + DELIVERY_WAIT_SECONDS
    seen = []
    while time.monotonic() < deadline:
        if not sub.poll(100):
            continue
        envelope = pc.read_notification(sub, topic)
        assert envelope["gameId"] == DASH and envelope["playerId"] == grant["playerId"], envelope
        body = envelope["payload"]
        if body["kind"] != "challenge.standings" or body["details"].get("challengeId") != challenge_id:
            continue
        assert set(body["details"]) == {"challengeId", "standings"}, body  # no inboxId: live only
        assert body["message"] == f"The standings of the challenge on {HIGHSCORE} changed", body
        seen.append(body["details"]["standings"])
        if until(body["details"]["standings"]):
            return envelope
    pytest.fail(f"no matching challenge.standings notification for {challenge_id}; seen {seen}")


def test_sprint_over_zeromq_with_live_standings(ready_stack, sockets):
    dealer = sockets(zmq.DEALER)
    ann, bo = zmq_player(dealer), zmq_player(dealer)
    zmq_friends(dealer, ann, bo)
    listed = pc.ok(dealer, {"type": "challenge.definitions", "gameId": DASH, "token": ann["sessionToken"]})["definitions"]
    assert SPRINT in [d["id"] for d in listed] and TRIAL in [d["id"] for d in listed], listed

    topic = pc.subscription_topic(dealer, DASH, ann)
    sub = sockets(zmq.SUB, subscribe=topic)
    pc.warm_up(dealer, sub, topic, DASH, ann)

    started = pc.ok(dealer, {"type": "challenge.start", "gameId": DASH, "token": ann["sessionToken"], "payload": {
        "definitionId": SPRINT, "durationMilliseconds": 10 * MINUTE, "receivers": [bo["playerId"]]}})
    check_started(started, SPRINT, 10 * MINUTE, 3, HIGHSCORE, ann, [bo])
    challenge_id = started["challengeId"]
    pc.error(dealer, {"type": "challenge.start", "gameId": DASH, "token": ann["sessionToken"], "payload": {
        "definitionId": SPRINT, "durationMilliseconds": DAY + 1, "receivers": [bo["playerId"]]}},
        "invalid_field", "payload.durationMilliseconds")

    def submit(grant, value, request_id):
        receipt = pc.ok(dealer, {"type": "leaderboard.submit", "id": request_id, "gameId": DASH, "token": grant["sessionToken"],
                                 "payload": {"boardId": HIGHSCORE, "value": value, "challengeId": challenge_id}})
        assert receipt["challengeId"] == challenge_id, receipt

    # bo's first run changes the order (a first score): ann, the starter, hears it live.
    submit(bo, 40, unique("zmq-run"))
    next_standings(sub, topic, ann, challenge_id, lambda s: s == [{"rank": 1, "playerId": bo["playerId"], "value": 40, "attempts": 1}])
    # ann passes bo.
    submit(ann, 50, unique("zmq-run"))
    next_standings(sub, topic, ann, challenge_id, lambda s: [r["playerId"] for r in s] == [ann["playerId"], bo["playerId"]])

    reply = pc.ok(dealer, {"type": "challenge.standings", "gameId": DASH, "token": bo["sessionToken"],
                           "payload": {"challengeId": challenge_id}})
    assert reply["standings"] == [
        {"rank": 1, "playerId": ann["playerId"], "value": 50, "attempts": 1},
        {"rank": 2, "playerId": bo["playerId"], "value": 40, "attempts": 1},
    ], reply
    pc.error(dealer, {"type": "challenge.standings", "gameId": DASH, "token": bo["sessionToken"], "payload": {}},
             "missing_field", "payload.challengeId")
    stranger = zmq_player(dealer)
    pc.error(dealer, {"type": "challenge.standings", "gameId": DASH, "token": stranger["sessionToken"],
                      "payload": {"challengeId": challenge_id}}, "unknown_challenge", "payload.challengeId")
    # The standings notification is live only: not in the inbox.
    items = pc.ok(dealer, {"type": "inbox.list", "gameId": DASH, "token": ann["sessionToken"], "payload": {"limit": 200}})["items"]
    assert "challenge.standings" not in [i["kind"] for i in items], items


def test_operator_definition_with_a_measure_attribute_over_zeromq(ready_stack, sockets, admin_key):
    # Dash declares no events, so any event name and attribute may be a definition's runEvent.
    dealer = sockets(zmq.DEALER)
    ann, bo = zmq_player(dealer), zmq_player(dealer)
    zmq_friends(dealer, ann, bo)
    def_id = f"com.example.dash.distance-{uuid.uuid4().hex[:8]}"
    definition = {"id": def_id, "title": "Long Run", "details": "Your longest run in metres; best of three.",
                  "leaderboardId": HIGHSCORE, "durations": [HOUR], "attempts": 3, "repeatable": True,
                  "runEvent": {"name": "run.end", "measureAttribute": "metres"}}
    request_id = unique("define")
    request = {"type": "challenge.admin.define", "id": request_id, "gameId": DASH, "adminKey": admin_key,
               "payload": {"definition": definition}}
    stored = pc.ok(dealer, request)["definition"]
    assert without_null(stored) == as_listed(definition), stored
    # A resend of the same request is answered as the first (the id is the idempotency key).
    assert pc.ok(dealer, dict(request))["definition"] == stored
    listed = pc.ok(dealer, {"type": "challenge.definitions", "gameId": DASH, "token": ann["sessionToken"]})["definitions"]
    assert stored in listed, listed

    started = pc.ok(dealer, {"type": "challenge.start", "gameId": DASH, "token": ann["sessionToken"], "payload": {
        "definitionId": def_id, "durationMilliseconds": HOUR, "receivers": [bo["playerId"]]}})
    challenge_id = started["challengeId"]

    def event(grant, value=None, **attributes):
        payload = {"name": "run.end", "attributes": attributes}
        if value is not None:
            payload["value"] = value
        pc.ok(dealer, {"type": "event.publish", "gameId": DASH, "token": grant["sessionToken"], "payload": payload})

    event(ann, 1000)  # a value but no metres: not a run (the measure is the attribute)
    event(ann, 1000, metres="12")  # a string: not a run
    event(ann, None, metres=12.5)  # a fraction: not a run
    event(ann, 1000, metres=12)
    event(ann, None, metres=17)
    event(bo, None, metres=5)

    def read():
        return pc.ok(dealer, {"type": "challenge.standings", "gameId": DASH, "token": ann["sessionToken"],
                              "payload": {"challengeId": challenge_id}})

    final = poll(read, lambda s: attempts_of(s, bo) == 1, "bo's run counted")
    assert rows(final) == [(ann["playerId"], 17, 2), (bo["playerId"], 5, 1)], final

    # A second definition with the same runEvent, and a challenge of it: once it counts ann's
    # next event, that event has been read.
    other = dict(definition, id=f"{def_id}-2", title="Long Run Too")
    pc.ok(dealer, {"type": "challenge.admin.define", "gameId": DASH, "adminKey": admin_key, "payload": {"definition": other}})
    second = pc.ok(dealer, {"type": "challenge.start", "gameId": DASH, "token": ann["sessionToken"], "payload": {
        "definitionId": other["id"], "durationMilliseconds": HOUR, "receivers": [bo["playerId"]]}})["challengeId"]

    # Removed: events are no longer runs of its running challenge (tagged scores still are).
    removed = pc.ok(dealer, {"type": "challenge.admin.remove", "gameId": DASH, "adminKey": admin_key,
                             "payload": {"definitionId": def_id}})
    assert removed == {"definitionId": def_id, "removed": True}, removed
    event(ann, None, metres=50)
    counted = poll(lambda: pc.ok(dealer, {"type": "challenge.standings", "gameId": DASH, "token": ann["sessionToken"],
                                          "payload": {"challengeId": second}}),
                   lambda s: attempts_of(s, ann) == 1, "ann's event counted in the second challenge")
    assert rows(counted) == [(ann["playerId"], 50, 1)], counted
    assert rows(read()) == [(ann["playerId"], 17, 2), (bo["playerId"], 5, 1)]
    pc.ok(dealer, {"type": "leaderboard.submit", "gameId": DASH, "token": bo["sessionToken"],
                   "payload": {"boardId": HIGHSCORE, "value": 9, "challengeId": challenge_id}})
    after = poll(read, lambda s: attempts_of(s, bo) == 2, "bo's tagged run counted")
    assert rows(after) == [(ann["playerId"], 17, 2), (bo["playerId"], 9, 2)], after
    pc.ok(dealer, {"type": "challenge.admin.remove", "gameId": DASH, "adminKey": admin_key,
                   "payload": {"definitionId": other["id"]}})

    again = pc.ok(dealer, {"type": "challenge.admin.remove", "gameId": DASH, "adminKey": admin_key,
                           "payload": {"definitionId": def_id}})
    assert again == {"definitionId": def_id, "removed": False}, again
    pc.error(dealer, {"type": "challenge.admin.remove", "gameId": DASH, "adminKey": admin_key,
                      "payload": {"definitionId": f"com.example.dash.never-{uuid.uuid4().hex[:8]}"}},
             "unknown_challenge", "payload.definitionId")
    pc.error(dealer, {"type": "challenge.admin.define", "gameId": DASH, "token": ann["sessionToken"],
                      "payload": {"definition": definition}}, "forbidden")
    listed = pc.ok(dealer, {"type": "challenge.definitions", "gameId": DASH, "token": ann["sessionToken"]})["definitions"]
    assert def_id not in [d["id"] for d in listed], listed
