"""Black-box tests of the gateway's HTTP/JSON front (PODIUM_HTTP), with httpx.

The HTTP front turns every HTTP request into a request of the protocol (docs/PROTOCOL.md) and
runs it through the same pipeline as the ZeroMQ front: `Authorization: Bearer <session token>`,
`X-Podium-Server-Key` and `X-Podium-Admin-Key` are the credential, `Idempotency-Key` is the
request id (echoed in `Podium-Request-Id`), the path names the type, `gameId` and payload
members, the query the request's `playerId` and typed payload members, the JSON body the
payload. A success is 200 with the reply's payload; an error is an RFC 9457
`application/problem+json` whose status fits its stable code.

The tests start nothing. They read:

    PODIUM_TEST_HTTP           the HTTP front's base URL (http://127.0.0.1:8080); without it this
                               module is skipped
    PODIUM_TEST_REQUESTS       (conftest.py) the same stack's ZeroMQ endpoints; the notification
    PODIUM_TEST_NOTIFICATIONS  test subscribes there to the topic the HTTP front hands out
    PODIUM_TEST_ADMIN_KEY      optional: the stack's PODIUM_ADMIN_KEY (operator tests)
    PODIUM_TEST_SERVER_KEY     optional: a game server key of the stack (PODIUM_GAME_SERVER_KEYS)
    PODIUM_TEST_SERVER_GAME    the game of that key (default `g`)

Every test makes its own players (unique usernames, or unique device ids where the username
does not matter: a registration costs the auth service an scrypt hash, a device login does
not), so the tests do not depend on each other or on what earlier runs left behind. Like
test_auth.py, this file makes 2 failed logins per run from 127.0.0.1 (each with its own
username): every client shares that address, whose failed logins are throttled after 300 in
15 minutes (PODIUM_LOGIN_ADDRESS_FAILURES). scripts/test trusts 127.0.0.1 as a proxy
(PODIUM_HTTP_TRUSTED_PROXIES), so the shared-address test names its own made-up addresses in
X-Forwarded-For.

Waits are bounded and only poll where something is asynchronous (notifications, achievements
earned from an event); no test asserts how long anything takes.
"""

import concurrent.futures
import json
import os
import re
import time
import uuid
from urllib.parse import quote

import httpx
import pytest
import zmq

from podium_client import OPERATOR_TOPIC, PLAYER_TOPIC, new_password, unique

BASE_URL = os.environ.get("PODIUM_TEST_HTTP")
if not BASE_URL:
    pytest.skip("PODIUM_TEST_HTTP is not set (the HTTP front's base URL)", allow_module_level=True)

MAX_BODY_BYTES = 65536  # PODIUM_MAX_MESSAGE_BYTES, the default
REPLY_WAIT_SECONDS = 15.0  # above the default 5 s service timeout: every request is answered by then
DELIVERY_WAIT_SECONDS = 15.0

DASH = "dash"
HIGHSCORE = "com.example.dash.highscore"
FASTEST = "com.example.dash.fastest"
COINS = "com.example.dash.coins"  # an `increment` board: a score applied twice would show
RANKED = "com.example.dash.ranked"  # serverOnly
WEEKLY = "com.example.dash.weekly"  # recurring
WHACKACAC = "whackacac"
KILL_ONE = "com.dragonforged.whackacac.killone"  # earned by the first cactus.hit
HUNDRED_WHACKS = "com.dragonforged.whackacac.100whacks"  # a counter of cactus.hit, target 100
BLACKJACK = "blackjack"
TUTORIAL = "com.example.blackjack.tutorial"  # reported directly, no rule

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
PROBLEM_MEMBERS = {"type", "title", "status", "detail", "code", "field", "retryAfterMilliseconds", "requestId"}
TOKEN_CODES = {"invalid_token", "token_expired", "session_revoked"}
ANY = object()  # "do not check" for an optional argument


# ---------------------------------------------------------------------------------------------
# Fixtures and helpers


def describe(response):
    return f"{response.request.method} {response.request.url} -> {response.status_code} {dict(response.headers)} {response.text[:600]}"


def media_type(response):
    return response.headers.get("content-type", "").split(";")[0].strip().lower()


def ok(response):
    """The JSON body of a 200 reply, after checking what every success carries."""
    assert response.status_code == 200, describe(response)
    assert media_type(response) == "application/json", describe(response)
    assert response.headers.get("podium-request-id"), describe(response)
    assert "retry-after" not in response.headers and "www-authenticate" not in response.headers, describe(response)
    return response.json()


def problem(response, status, code, field=ANY):
    """The body of an RFC 9457 problem with `status` and `code` (and `field`: None means none)."""
    assert response.status_code == status, describe(response)
    assert media_type(response) == "application/problem+json", describe(response)
    body = response.json()
    assert set(body) <= PROBLEM_MEMBERS, body
    assert body["type"] == f"urn:podium:error:{code}", body
    assert body["title"] == code and body["code"] == code, body
    assert body["status"] == status == response.status_code, body
    assert isinstance(body["detail"], str) and body["detail"], body
    if field is not ANY:
        assert body.get("field") == field, body
    # The request id, when the response names one, is the same in the header and the body.
    request_id = response.headers.get("podium-request-id")
    if request_id is not None or "requestId" in body:
        assert body.get("requestId") == request_id, describe(response)
    challenge = response.headers.get("www-authenticate")
    if status == 401:
        assert challenge is not None and challenge.startswith('Bearer realm="podium"'), describe(response)
        if code == "unauthenticated":
            assert "error=" not in challenge, challenge  # RFC 6750: no credential, no error code
        if code in TOKEN_CODES:
            assert 'error="invalid_token"' in challenge, challenge
    else:
        assert challenge is None, describe(response)
    if status in (429, 503):
        assert int(response.headers["retry-after"]) >= 1, describe(response)
    else:
        assert "retry-after" not in response.headers, describe(response)
    return body


def bearer(grant):
    return {"Authorization": f"Bearer {grant['sessionToken']}"}


def keyed(grant, key):
    return {**bearer(grant), "Idempotency-Key": key}


def check_grant(grant):
    for name in ("playerId", "displayName", "sessionId", "sessionToken", "refreshToken"):
        assert isinstance(grant[name], str) and grant[name], (name, grant)
    assert UUID.match(grant["playerId"]) and UUID.match(grant["sessionId"]), grant
    assert grant["sessionToken"].count(".") == 2 and grant["refreshToken"].count(".") == 2
    assert grant["sessionToken"] != grant["refreshToken"]
    assert isinstance(grant["sessionExpiresAt"], int) and grant["refreshExpiresAt"] >= grant["sessionExpiresAt"]
    assert isinstance(grant["created"], bool)


def new_username():
    return "h_" + uuid.uuid4().hex[:16]


def register(http, display_name=None):
    """A new account made over HTTP, with `password` added to its session grant."""
    payload = {"username": new_username(), "password": new_password()}
    if display_name is not None:
        payload["displayName"] = display_name
    grant = ok(http.post("/v1/accounts", json=payload))
    check_grant(grant)
    assert grant["created"] is True and grant["username"] == payload["username"]
    grant["password"] = payload["password"]
    return grant


def device_player(http, display_name=None):
    """A new device account made over HTTP (no scrypt: cheap)."""
    payload = {"deviceId": f"device-{uuid.uuid4()}"}
    if display_name is not None:
        payload["displayName"] = display_name
    grant = ok(http.post("/v1/sessions/device", json=payload))
    check_grant(grant)
    assert grant["created"] is True
    grant["deviceId"] = payload["deviceId"]
    return grant


def befriend(http, one, other):
    assert ok(http.post(f"/v1/friends/{other['playerId']}/request", headers=bearer(one))) == {
        "playerId": other["playerId"],
        "state": "outgoing_request",
    }
    assert ok(http.post(f"/v1/friends/{one['playerId']}/accept", headers=bearer(other))) == {
        "playerId": one["playerId"],
        "state": "friends",
    }


def submit(http, grant, board, value, key=None, game=DASH):
    headers = keyed(grant, key) if key else bearer(grant)
    return ok(http.post(f"/v1/games/{game}/leaderboards/{board}/scores", headers=headers, json={"value": value}))


def poll(fetch, until, what, wait=DELIVERY_WAIT_SECONDS):
    """Calls `fetch` until `until(result)` holds; returns that result or fails the test."""
    deadline = time.monotonic() + wait
    while True:
        result = fetch()
        if until(result):
            return result
        if time.monotonic() > deadline:
            pytest.fail(f"{what} did not happen within {wait} s; last: {result}")
        time.sleep(0.1)


def call_test_notification(http, grant, game, message):
    """`challenge.test-notification` through `/v1/call`; returns its request id."""
    key = unique("tn")
    response = http.post(
        "/v1/call/challenge.test-notification", headers=keyed(grant, key), json={"gameId": game, "payload": {"message": message}}
    )
    receipt = ok(response)
    assert response.headers["podium-request-id"] == key
    assert receipt["topic"] == f"notify/{game}/{grant['playerId']}"
    assert isinstance(receipt["notificationId"], str) and receipt["notificationId"]
    return key


def next_notification(sub, topic, predicate, deadline):
    """Reads notifications until one satisfies `predicate`; None at the deadline."""
    while time.monotonic() < deadline:
        if not sub.poll(100):
            continue
        frames = sub.recv_multipart()
        assert len(frames) == 2, f"a notification is [topic, envelope], got {len(frames)} frames"
        assert frames[0].decode("utf-8") == topic
        envelope = json.loads(frames[1].decode("utf-8"))
        assert envelope["type"] == "notification" and envelope["version"] == 1, envelope
        if predicate(envelope):
            return envelope
    return None


def warm_up(http, sub, topic, game, grant):
    """Subscriptions are not confirmed: sends test notifications over HTTP until one arrives."""
    sent = {}
    deadline = time.monotonic() + DELIVERY_WAIT_SECONDS
    while time.monotonic() < deadline:
        message = unique("warm-up")
        sent[call_test_notification(http, grant, game, message)] = message
        envelope = next_notification(
            sub, topic, lambda e: e.get("correlationId") in sent, min(deadline, time.monotonic() + 0.5)
        )
        if envelope is not None:
            assert envelope["payload"]["message"] == sent[envelope["correlationId"]]
            return envelope
    pytest.fail(f"no notification reached the subscriber of {topic}")


def subscription_topic(http, grant, game):
    reply = ok(http.get(f"/v1/games/{game}/notifications/subscription", headers=bearer(grant)))
    assert reply["gameId"] == game and reply["playerId"] == grant["playerId"], reply
    assert PLAYER_TOPIC.match(reply["topic"]), reply
    return reply["topic"]


def compact(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


# ---------------------------------------------------------------------------------------------
# Health


def test_health_routes(http, admin_key):
    # Anyone is told whether Podium is ready, nothing more: no instance ids, storage paths,
    # event ids or stream positions (SECURITY.md).
    assert ok(http.get("/v1/health")) == {"ready": True}
    assert ok(http.get("/v1/gateway/health")) == {"ready": True}
    assert ok(http.post("/v1/call/auth.health")) == {"ready": True}
    player = device_player(http)
    bearer = {"Authorization": f"Bearer {player['sessionToken']}"}
    assert ok(http.get("/v1/health", headers=bearer)) == {"ready": True}, "a player is not an operator"
    # With the admin key: every detail.
    admin = {"X-Podium-Admin-Key": admin_key}
    health = ok(http.get("/v1/health", headers=admin))
    assert health["ready"] is True
    for name in ("auth", "leaderboard", "achievement", "challenge"):
        assert health["services"][name]["ready"] is True, health
        assert health["services"][name]["health"]["service"] == name
    gateway = ok(http.get("/v1/gateway/health", headers=admin))
    assert gateway["ready"] is True
    assert gateway["instance"] == health["gateway"]["instance"]
    assert {"auth", "leaderboard", "achievement", "challenge"} <= set(gateway["connectedServices"])
    assert ok(http.post("/v1/call/auth.health", headers=admin))["service"] == "auth"


# ---------------------------------------------------------------------------------------------
# The player journey, over HTTP only


def test_register_login_profile_and_display_name(http):
    grant = register(http, display_name="Zoë")
    assert grant["displayName"] == "Zoë"

    # Usernames are matched case-insensitively; a login is a new session of the same player.
    login = ok(http.post("/v1/sessions", json={"username": grant["username"].upper(), "password": grant["password"]}))
    check_grant(login)
    assert login["created"] is False
    assert login["playerId"] == grant["playerId"] and login["username"] == grant["username"]
    assert login["sessionId"] != grant["sessionId"]

    profile = ok(http.get("/v1/me", headers=bearer(login)))
    assert profile["playerId"] == grant["playerId"]
    assert profile["username"] == grant["username"]
    assert profile["displayName"] == "Zoë"
    assert profile["linkedDevices"] == 0 and isinstance(profile["createdAt"], int)
    # The first session still works; `playerId` naming yourself is the same as leaving it out.
    assert ok(http.get("/v1/me", headers=bearer(grant), params={"playerId": grant["playerId"]})) == profile
    # The scheme is case-insensitive (RFC 9110).
    assert ok(http.get("/v1/me", headers={"Authorization": f"bearer {grant['sessionToken']}"})) == profile

    renamed = ok(http.post("/v1/me/display-name", headers=bearer(grant), json={"displayName": "  Zoë the Bold ✓ "}))
    assert renamed["displayName"] == "Zoë the Bold ✓"  # trimmed
    assert renamed["playerId"] == grant["playerId"]
    assert ok(http.get("/v1/me", headers=bearer(login)))["displayName"] == "Zoë the Bold ✓"


def test_device_login_and_link(http):
    device_id = f"device-{uuid.uuid4()}"
    first = ok(http.post("/v1/sessions/device", json={"deviceId": device_id, "displayName": "Pocket"}))
    check_grant(first)
    assert first["created"] is True and first["displayName"] == "Pocket" and "username" not in first
    again = ok(http.post("/v1/sessions/device", json={"deviceId": device_id}))
    assert again["created"] is False
    assert again["playerId"] == first["playerId"] and again["sessionId"] != first["sessionId"]

    profile = ok(http.get("/v1/me", headers=bearer(again)))
    assert "username" not in profile and profile["linkedDevices"] == 1

    username, password = new_username(), new_password()
    linked = ok(http.post("/v1/me/link", headers=bearer(first), json={"username": username, "password": password}))
    assert linked["playerId"] == first["playerId"] and linked["username"] == username
    # Linking twice is a conflict; the username and password now log in as the device's player.
    problem(
        http.post("/v1/me/link", headers=bearer(first), json={"username": new_username(), "password": new_password()}),
        409,
        "conflict",
    )
    login = ok(http.post("/v1/sessions", json={"username": username, "password": password}))
    assert login["playerId"] == first["playerId"] and login["created"] is False


def test_refresh_rotates_the_tokens(http):
    grant = device_player(http)
    fresh = ok(http.post("/v1/sessions/refresh", json={"refreshToken": grant["refreshToken"]}))
    check_grant(fresh)
    assert fresh["created"] is False
    assert fresh["sessionId"] == grant["sessionId"] and fresh["playerId"] == grant["playerId"]
    assert fresh["refreshToken"] != grant["refreshToken"] and fresh["sessionToken"] != grant["sessionToken"]
    assert ok(http.get("/v1/me", headers=bearer(fresh)))["playerId"] == grant["playerId"]

    # A refresh token is not a session token, and a session token is not a refresh token.
    problem(http.get("/v1/me", headers={"Authorization": f"Bearer {fresh['refreshToken']}"}), 401, "invalid_token", "token")
    problem(
        http.post("/v1/sessions/refresh", json={"refreshToken": fresh["sessionToken"]}),
        401,
        "invalid_token",
        "payload.refreshToken",
    )
    # The refresh token that was traded in, presented again: the whole session is revoked.
    problem(
        http.post("/v1/sessions/refresh", json={"refreshToken": grant["refreshToken"]}),
        401,
        "session_revoked",
        "payload.refreshToken",
    )
    response = poll(
        lambda: http.get("/v1/me", headers=bearer(fresh)),
        lambda r: r.status_code != 200,
        "the revoked session's token being refused",
    )
    problem(response, 401, "session_revoked", "token")


def test_friends(http):
    ann, bo, cy = device_player(http, "Ann"), device_player(http, "Bo"), device_player(http, "Cy")

    assert ok(http.post(f"/v1/friends/{bo['playerId']}/request", headers=bearer(ann))) == {
        "playerId": bo["playerId"],
        "state": "outgoing_request",
    }
    ann_list = ok(http.get("/v1/friends", headers=bearer(ann)))
    assert ann_list["outgoing"] == [{"playerId": bo["playerId"], "displayName": "Bo"}]
    assert ann_list["friends"] == [] and ann_list["incoming"] == [] and ann_list["blocked"] == []
    assert ok(http.get("/v1/friends", headers=bearer(bo)))["incoming"] == [{"playerId": ann["playerId"], "displayName": "Ann"}]

    assert ok(http.post(f"/v1/friends/{ann['playerId']}/accept", headers=bearer(bo))) == {
        "playerId": ann["playerId"],
        "state": "friends",
    }
    for me, other, name in ((ann, bo, "Bo"), (bo, ann, "Ann")):
        listing = ok(http.get("/v1/friends", headers=bearer(me)))
        assert listing["friends"] == [{"playerId": other["playerId"], "displayName": name}], listing
        assert listing["incoming"] == [] and listing["outgoing"] == []
    # Accepting again changes nothing; declining without a request is a conflict.
    assert ok(http.post(f"/v1/friends/{ann['playerId']}/accept", headers=bearer(bo)))["state"] == "friends"
    problem(http.post(f"/v1/friends/{cy['playerId']}/decline", headers=bearer(ann)), 409, "conflict", "payload.playerId")

    # Blocking: the blocked player cannot ask; unblocking lifts it.
    assert ok(http.post(f"/v1/friends/{ann['playerId']}/block", headers=bearer(cy)))["state"] == "blocked"
    assert ok(http.get("/v1/friends", headers=bearer(cy)))["blocked"] == [{"playerId": ann["playerId"], "displayName": "Ann"}]
    problem(http.post(f"/v1/friends/{cy['playerId']}/request", headers=bearer(ann)), 403, "forbidden")
    assert ok(http.post(f"/v1/friends/{ann['playerId']}/unblock", headers=bearer(cy)))["state"] == "none"
    assert ok(http.post(f"/v1/friends/{cy['playerId']}/request", headers=bearer(ann)))["state"] == "outgoing_request"
    assert ok(http.post(f"/v1/friends/{cy['playerId']}/remove", headers=bearer(ann)))["state"] == "none"

    problem(http.post(f"/v1/friends/{ann['playerId']}/request", headers=bearer(ann)), 400, "invalid_field", "payload.playerId")
    problem(http.post(f"/v1/friends/no-such-{uuid.uuid4().hex}/request", headers=bearer(ann)), 404, "unknown_player", "payload.playerId")


def test_event_earns_an_achievement_and_leaves_a_receipt(http):
    grant = device_player(http)
    key = unique("whack")
    match_id = unique("m")
    response = http.post(
        f"/v1/games/{WHACKACAC}/events",
        headers=keyed(grant, key),
        json={"name": "cactus.hit", "value": 1, "attributes": {"matchId": match_id}},
    )
    ack = ok(response)
    assert response.headers["podium-request-id"] == key
    assert ack["topic"] == f"event/{WHACKACAC}/cactus.hit"
    assert ack["publisher"] == "events" and isinstance(ack["sequence"], int) and ack["sequence"] >= 1
    assert isinstance(ack["eventId"], str) and isinstance(ack["acceptedAt"], int) and "duplicate" not in ack

    def achievements():
        return ok(http.get(f"/v1/games/{WHACKACAC}/achievements", headers=bearer(grant)))

    def kill_one(listing):
        return next(a for a in listing["achievements"] if a["id"] == KILL_ONE)

    listing = poll(achievements, lambda listing: kill_one(listing)["earned"], "earning Kill One")
    earned = kill_one(listing)
    assert earned["timesEarned"] == 1 and isinstance(earned["earnedAt"], int)
    assert earned["description"] == "You whacked your first cactus."  # the earnedDescription once earned
    assert earned["percentComplete"] == 100 and earned["points"] == 10
    counter = next(a for a in listing["achievements"] if a["id"] == HUNDRED_WHACKS)
    assert counter["earned"] is False and counter["steps"] == 1 and counter["target"] == 100
    assert listing["pointsEarned"] == 10 and listing["pointsTotal"] >= 10

    # The receipt of the event: its acknowledgement, and (once applied) what it earned.
    receipt = poll(
        lambda: ok(http.get(f"/v1/games/{WHACKACAC}/receipts/{key}", headers=bearer(grant))),
        lambda r: r.get("effects", {}).get("applied") is True,
        "the event's effects being applied",
    )
    assert receipt["found"] is True and receipt["id"] == key and receipt["type"] == "event.publish"
    assert receipt["acknowledgement"] == ack
    assert any(o["achievementId"] == KILL_ONE and o["status"] == "earned" for o in receipt["effects"]["achievements"]), receipt
    # Receipts are the player's own and the game's own.
    assert ok(http.get(f"/v1/games/{WHACKACAC}/receipts/{key}", headers=bearer(device_player(http)))) == {"found": False, "id": key}
    assert ok(http.get(f"/v1/games/{DASH}/receipts/{key}", headers=bearer(grant))) == {"found": False, "id": key}


def test_scores_and_leaderboard_views(http):
    ann, bo = device_player(http, "Ann"), device_player(http, "Bo")
    befriend(http, ann, bo)

    first = submit(http, ann, HIGHSCORE, 300)
    assert first["boardId"] == HIGHSCORE and first["playerId"] == ann["playerId"]
    assert first["improved"] is True and "previousValue" not in first and "duplicate" not in first
    assert first["entry"]["value"] == 300 and first["entry"]["playerId"] == ann["playerId"]
    assert first["scopesBeaten"] == ["today", "week", "allTime"]  # narrowest first (PROTOCOL.md 10.1)
    lower = submit(http, ann, HIGHSCORE, 250)
    assert lower["improved"] is False and lower["previousValue"] == 300 and lower["entry"]["value"] == 300
    assert lower["scopesBeaten"] == []
    submit(http, bo, HIGHSCORE, 500)

    base = f"/v1/games/{DASH}/leaderboards/{HIGHSCORE}"
    friends = ok(http.get(f"{base}/top", headers=bearer(ann), params={"friendsOnly": "true", "limit": 10}))
    assert friends["boardId"] == HIGHSCORE and friends["scope"] == "allTime" and friends["total"] == 2
    assert [(e["playerId"], e["value"], e["rank"]) for e in friends["entries"]] == [
        (bo["playerId"], 500, 1),
        (ann["playerId"], 300, 2),
    ]
    assert [e.get("displayName") for e in friends["entries"]] == ["Bo", "Ann"]

    entry = ok(http.get(f"{base}/entry", headers=bearer(ann)))["entry"]
    assert entry["playerId"] == ann["playerId"] and entry["value"] == 300 and entry["rank"] >= 1
    assert ok(http.get(f"{base}/entry", headers=bearer(ann), params={"scope": "today"}))["entry"]["value"] == 300
    around = ok(http.get(f"{base}/around", headers=bearer(ann), params={"radius": 0}))
    assert [(e["playerId"], e["rank"]) for e in around["entries"]] == [(ann["playerId"], entry["rank"])]

    history = ok(http.get(f"{base}/history", headers=bearer(ann)))
    assert history["boardId"] == HIGHSCORE and history["playerId"] == ann["playerId"]
    assert [s["value"] for s in history["scores"]] == [300, 250]

    # Paging the whole board: a cursor continues right after the page it came from.
    page = ok(http.get(f"{base}/top", headers=bearer(ann), params={"limit": 1}))
    assert len(page["entries"]) == 1 and page["entries"][0]["rank"] == 1 and page["total"] >= 2
    following = ok(http.get(f"{base}/top", headers=bearer(ann), params={"limit": 1, "cursor": page["nextCursor"]}))
    assert following["entries"][0]["rank"] == 2
    by_offset = ok(http.get(f"{base}/top", headers=bearer(ann), params={"limit": 1, "offset": 1}))
    assert by_offset["entries"] == following["entries"]

    boards = ok(http.get(f"/v1/games/{DASH}/leaderboards", headers=bearer(ann)))["leaderboards"]
    highscore = next(b for b in boards if b["id"] == HIGHSCORE)
    assert highscore["sortOrder"] == "higherIsBetter" and highscore["title"] == "High Score"
    assert {HIGHSCORE, FASTEST, COINS, RANKED, WEEKLY} <= {b["id"] for b in boards}
    sets = ok(http.get(f"/v1/games/{DASH}/leaderboard-sets", headers=bearer(ann)))["leaderboardSets"]
    assert {"id": "com.example.dash.main", "title": "Main", "leaderboardIds": [HIGHSCORE, FASTEST]} in sets

    # A player with no score has no entry.
    assert ok(http.get(f"{base}/entry", headers=bearer(device_player(http))))["entry"] is None


def test_score_receipt_by_idempotency_key(http):
    grant = device_player(http)
    key = unique("score")
    receipt = submit(http, grant, HIGHSCORE, 1234, key=key)
    stored = ok(http.get(f"/v1/games/{DASH}/receipts/{key}", headers=bearer(grant)))
    assert stored["found"] is True and stored["id"] == key and stored["type"] == "leaderboard.submit"
    assert stored["reply"] == receipt
    unknown = unique("never-sent")
    assert ok(http.get(f"/v1/games/{DASH}/receipts/{unknown}", headers=bearer(grant))) == {"found": False, "id": unknown}
    # With the request's type only its keeper is asked: the leaderboard has it, the event log not.
    typed = ok(http.get(f"/v1/games/{DASH}/receipts/{key}", headers=bearer(grant), params={"type": "leaderboard.submit"}))
    assert typed == stored
    assert ok(http.get(f"/v1/games/{DASH}/receipts/{key}", headers=bearer(grant), params={"type": "event.publish"})) == {
        "found": False, "id": key}
    problem(http.get(f"/v1/games/{DASH}/receipts/{key}", headers=bearer(grant), params={"type": "auth.login"}),
            400, "invalid_field", "payload.type")


def test_challenge_journey(http):
    ann, bo, cy = device_player(http), device_player(http), device_player(http)
    befriend(http, ann, bo)
    submit(http, ann, HIGHSCORE, 500)
    challenges = f"/v1/games/{DASH}/challenges"

    candidates = ok(http.get(f"{challenges}/candidates", headers=bearer(ann), params={"boardId": HIGHSCORE, "score": 500}))
    assert candidates == {"playerIds": [bo["playerId"]]}  # friends only, and bo has no entry
    # Only friends may be challenged (dash is not an open game).
    problem(
        http.post(challenges, headers=bearer(ann), json={"kind": "score", "boardId": HIGHSCORE, "receivers": [cy["playerId"]]}),
        403,
        "forbidden",
        "payload.receivers",
    )

    key = unique("issue")
    body = {"kind": "score", "boardId": HIGHSCORE, "receivers": [bo["playerId"]], "message": "beat this ✓", "expiresInMilliseconds": 86400000}
    issued = ok(http.post(challenges, headers=keyed(ann, key), json=body))
    challenge_id = issued["challengeId"]
    assert UUID.match(challenge_id)
    assert issued["kind"] == "score" and issued["gameId"] == DASH and issued["issuerId"] == ann["playerId"]
    assert issued["boardId"] == HIGHSCORE and issued["issuerValue"] == 500 and issued["message"] == "beat this ✓"
    assert issued["expiresAt"] == issued["createdAt"] + 86400000
    assert issued["receivers"] == [{"playerId": bo["playerId"], "state": "pending"}]
    # The same request again returns the same challenge; another body under that id is refused.
    assert ok(http.post(challenges, headers=keyed(ann, key), json=body)) == issued
    problem(http.post(challenges, headers=keyed(ann, key), json=dict(body, message="other")), 409, "id_reused", "id")
    assert ok(http.get(f"/v1/games/{DASH}/receipts/{key}", headers=bearer(ann)))["reply"] == issued

    def ids(listing):
        return [c["challengeId"] for c in listing["challenges"]]

    assert ids(ok(http.get(f"{challenges}/received", headers=bearer(bo), params={"state": "pending"}))) == [challenge_id]
    assert ids(ok(http.get(f"{challenges}/issued", headers=bearer(ann)))) == [challenge_id]
    assert ids(ok(http.get(f"{challenges}/received", headers=bearer(ann)))) == []
    assert ok(http.get(f"{challenges}/{challenge_id}", headers=bearer(ann))) == issued
    assert ok(http.get(f"{challenges}/{challenge_id}", headers=bearer(bo))) == issued
    problem(http.get(f"{challenges}/{challenge_id}", headers=bearer(cy)), 404, "unknown_challenge", "payload.challengeId")

    # The receiver's inbox keeps the notification; marking it read.
    items = ok(http.get(f"{challenges}/inbox", headers=bearer(bo), params={"unreadOnly": "true"}))["items"]
    assert len(items) == 1, items
    item = items[0]
    assert item["kind"] == "challenge.received" and item["read"] is False
    assert item["details"]["challengeId"] == challenge_id and item["details"]["issuerId"] == ann["playerId"]
    assert ann["playerId"] in item["message"]
    assert ok(http.post(f"{challenges}/inbox/read", headers=bearer(bo), json={"ids": [item["id"]]})) == {"marked": 1}
    assert ok(http.post(f"{challenges}/inbox/read", headers=bearer(bo), json={"ids": [item["id"]]})) == {"marked": 0}
    assert ok(http.get(f"{challenges}/inbox", headers=bearer(bo), params={"unreadOnly": "true"}))["items"] == []
    assert [i["read"] for i in ok(http.get(f"{challenges}/inbox", headers=bearer(bo)))["items"]] == [True]

    # Declining: once. The issuer cannot decline their own; a score challenge is no rematch.
    problem(http.post(f"{challenges}/{challenge_id}/decline", headers=bearer(ann)), 404, "unknown_challenge", "payload.challengeId")
    declined = ok(http.post(f"{challenges}/{challenge_id}/decline", headers=bearer(bo)))
    assert declined["challengeId"] == challenge_id
    assert [(r["playerId"], r["state"]) for r in declined["receivers"]] == [(bo["playerId"], "declined")]
    problem(http.post(f"{challenges}/{challenge_id}/decline", headers=bearer(bo)), 409, "conflict", "payload.challengeId")
    assert ids(ok(http.get(f"{challenges}/received", headers=bearer(bo), params={"state": "declined"}))) == [challenge_id]
    assert ids(ok(http.get(f"{challenges}/received", headers=bearer(bo), params={"state": "pending"}))) == []
    problem(http.post(f"{challenges}/{challenge_id}/rematch", headers=bearer(bo)), 404, "unknown_challenge", "payload.challengeId")


def test_timed_challenge_and_rematch_while_running(http):
    ann, bo = device_player(http), device_player(http)
    befriend(http, ann, bo)
    started = ok(
        http.post(
            f"/v1/games/{DASH}/challenges/timed",
            headers=keyed(ann, unique("start")),
            json={"boardId": FASTEST, "durationMilliseconds": 60000, "receivers": [bo["playerId"]]},
        )
    )
    assert started["kind"] == "timed" and started["state"] == "running" and started["boardId"] == FASTEST
    assert started["endsAt"] == started["createdAt"] + 60000
    assert sorted(r["playerId"] for r in started["receivers"]) == sorted([ann["playerId"], bo["playerId"]])
    problem(http.post(f"/v1/games/{DASH}/challenges/{started['challengeId']}/rematch", headers=bearer(bo)), 409, "conflict", None)


def test_notifications_reach_the_zeromq_subscriber(http, sockets):
    ann, bo = device_player(http), device_player(http)
    befriend(http, ann, bo)
    submit(http, ann, HIGHSCORE, 700)
    game = DASH
    topic = subscription_topic(http, bo, game)
    assert subscription_topic(http, bo, game) == topic  # stable
    assert subscription_topic(http, ann, game) != topic
    sub = sockets(zmq.SUB, subscribe=topic)

    # A test notification asked for over HTTP arrives on the ZeroMQ topic.
    first = warm_up(http, sub, topic, game, bo)
    assert first["payload"]["kind"] == "diagnostic.test"
    assert first["payload"]["details"] == {"service": "challenge"}
    assert first["gameId"] == game and first["playerId"] == bo["playerId"]

    # A challenge issued over HTTP notifies its receiver.
    key = unique("issue")
    issued = ok(
        http.post(
            f"/v1/games/{game}/challenges",
            headers=keyed(ann, key),
            json={"kind": "score", "boardId": HIGHSCORE, "receivers": [bo["playerId"]]},
        )
    )
    envelope = next_notification(
        sub,
        topic,
        lambda e: e["payload"]["kind"] == "challenge.received",
        time.monotonic() + DELIVERY_WAIT_SECONDS,
    )
    assert envelope is not None, "no challenge.received notification arrived"
    assert envelope["gameId"] == game and envelope["playerId"] == bo["playerId"]
    details = envelope["payload"]["details"]
    assert details["challengeId"] == issued["challengeId"] and details["issuerId"] == ann["playerId"]
    assert details["issuerValue"] == 700 and details["kind"] == "score"
    # The notification is also the receiver's inbox item.
    items = ok(http.get(f"/v1/games/{game}/challenges/inbox", headers=bearer(bo)))["items"]
    assert [item["id"] for item in items] == [details["inboxId"]]


def test_logout_revokes_the_session(http):
    grant = register(http)
    other = ok(http.post("/v1/sessions", json={"username": grant["username"], "password": grant["password"]}))
    third = ok(http.post("/v1/sessions/device", json={"deviceId": f"device-{uuid.uuid4()}"}))

    receipt = ok(http.delete("/v1/sessions/current", headers=bearer(grant)))
    assert receipt == {"revokedSessions": 1, "sessionIds": [grant["sessionId"]]}
    # The gateway stops accepting the session's tokens before it answers the logout.
    problem(http.get("/v1/me", headers=bearer(grant)), 401, "session_revoked", "token")
    problem(http.delete("/v1/sessions/current", headers=bearer(grant)), 401, "session_revoked", "token")
    problem(http.post("/v1/sessions/refresh", json={"refreshToken": grant["refreshToken"]}), 401, "session_revoked", "payload.refreshToken")
    # The player's other session is untouched.
    assert ok(http.get("/v1/me", headers=bearer(other)))["playerId"] == grant["playerId"]
    # The same through /v1/call.
    assert ok(http.post("/v1/call/auth.logout", headers=bearer(third))) == {"revokedSessions": 1, "sessionIds": [third["sessionId"]]}
    problem(http.get("/v1/me", headers=bearer(third)), 401, "session_revoked", "token")


# ---------------------------------------------------------------------------------------------
# Idempotency-Key (PROTOCOL 4.2)


def test_event_idempotency_key(http):
    grant = device_player(http)
    key = unique("event")
    body = {"name": "match.end", "value": 4200, "attributes": {"matchId": "m-7"}}
    first_response = http.post(f"/v1/games/{DASH}/events", headers=keyed(grant, key), json=body)
    first = ok(first_response)
    assert first_response.headers["podium-request-id"] == key and "duplicate" not in first

    # The same key and body: the original acknowledgement, flagged, logged once.
    again_response = http.post(f"/v1/games/{DASH}/events", headers=keyed(grant, key), json=body)
    again = ok(again_response)
    assert again_response.headers["podium-request-id"] == key
    assert again.pop("duplicate") is True
    assert again == first
    # Key order does not matter; fields the gateway ignores do not count.
    reordered = ok(
        http.post(
            f"/v1/games/{DASH}/events",
            headers=keyed(grant, key),
            content=b'{"attributes":{"matchId":"m-7"},"value":4200,"name":"match.end","x":1}',
        )
    )
    assert reordered["duplicate"] is True and reordered["sequence"] == first["sequence"]

    # The same key with another event: refused, and nothing is logged.
    refused = problem(http.post(f"/v1/games/{DASH}/events", headers=keyed(grant, key), json=dict(body, value=1)), 409, "id_reused", "id")
    assert refused["requestId"] == key
    # Another player's key space is their own.
    other = ok(http.post(f"/v1/games/{DASH}/events", headers=keyed(device_player(http), key), json=dict(body, value=1)))
    assert "duplicate" not in other and other["eventId"] != first["eventId"]


def test_score_idempotency_key_applies_once(http):
    grant = device_player(http)
    key = unique("coins")
    first = submit(http, grant, COINS, 5, key=key)
    assert "duplicate" not in first and first["entry"]["value"] == 5
    again = submit(http, grant, COINS, 5, key=key)
    assert again.pop("duplicate") is True
    assert again == first
    problem(
        http.post(f"/v1/games/{DASH}/leaderboards/{COINS}/scores", headers=keyed(grant, key), json={"value": 6}),
        409,
        "id_reused",
        "id",
    )
    # COINS adds up: 5 once, not 5 + 5 (+ 6).
    assert ok(http.get(f"/v1/games/{DASH}/leaderboards/{COINS}/entry", headers=bearer(grant)))["entry"]["value"] == 5
    assert submit(http, grant, COINS, 2)["entry"]["value"] == 7


def test_concurrent_resends_are_applied_once(http):
    grant = device_player(http)
    key = unique("race")

    def send(_):
        with httpx.Client(base_url=BASE_URL, timeout=REPLY_WAIT_SECONDS) as client:
            return client.post(f"/v1/games/{DASH}/leaderboards/{COINS}/scores", headers=keyed(grant, key), json={"value": 3})

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        responses = list(pool.map(send, range(8)))
    originals, duplicates = [], []
    for response in responses:
        assert response.headers["podium-request-id"] == key, describe(response)
        if response.status_code == 409:
            # Still in flight from the same client address: the resend is told so.
            problem(response, 409, "duplicate_request_id", "id")
            continue
        receipt = ok(response)
        (duplicates if receipt.pop("duplicate", False) else originals).append(receipt)
    assert len(originals) == 1, [r.text for r in responses]
    assert all(d == originals[0] for d in duplicates)
    assert ok(http.get(f"/v1/games/{DASH}/leaderboards/{COINS}/entry", headers=bearer(grant)))["entry"]["value"] == 3


def test_achievement_report_idempotency_key(http):
    grant = device_player(http)
    key = unique("report")
    path = f"/v1/games/{BLACKJACK}/achievements/reports"
    body = {"reports": [{"achievementId": TUTORIAL, "percentComplete": 40}]}
    first = ok(http.post(path, headers=keyed(grant, key), json=body))
    assert [(o["achievementId"], o["status"], o["percentComplete"]) for o in first["outcomes"]] == [(TUTORIAL, "progressed", 40)]
    assert "duplicate" not in first
    again = ok(http.post(path, headers=keyed(grant, key), json=body))
    assert again == dict(first, duplicate=True)
    other = {"reports": [{"achievementId": TUTORIAL, "percentComplete": 50}]}
    problem(http.post(path, headers=keyed(grant, key), json=other), 409, "id_reused", "id")

    # A reset needs its confirmation; it forgets progress, not request ids.
    reset = f"/v1/games/{BLACKJACK}/achievements/reset"
    problem(http.post(reset, headers=bearer(grant), json={"confirm": True}), 400, "confirmation_required", "payload.confirm")
    assert ok(http.post(reset, headers=bearer(grant), json={"confirm": True, "gameId": BLACKJACK})) == {"resetAchievements": 1}
    assert ok(http.post(path, headers=keyed(grant, key), json=body)) == dict(first, duplicate=True)


def test_idempotency_key_must_be_a_valid_request_id(http):
    grant = device_player(http)
    for key in ("has space", "k" * 129):
        body = problem(http.get("/v1/me", headers=keyed(grant, key)), 400, "invalid_field", "id")
        assert body["requestId"] == key


def test_podium_request_id_is_new_for_every_request_without_a_key(http):
    responses = [http.get("/v1/gateway/health") for _ in range(3)]
    for response in responses:
        ok(response)
    ids = [response.headers["podium-request-id"] for response in responses]
    assert all(UUID.match(i) for i in ids), ids
    assert len(set(ids)) == 3


def request_id_cases():
    key = "rid-" + uuid.uuid4().hex

    return [
        pytest.param("GET", "/v1/gateway/health", {}, None, 200, None, id="success without a key"),
        pytest.param("GET", "/v1/gateway/health", {"Idempotency-Key": key}, None, 200, key, id="success with a key"),
        pytest.param("GET", "/v1/me", {}, None, 401, None, id="pipeline error without a key"),
        pytest.param("GET", "/v1/me", {"Idempotency-Key": key}, None, 401, key, id="pipeline error with a key"),
        pytest.param("POST", "/v1/accounts", {"Idempotency-Key": key}, b"{oops", 400, key, id="unreadable body with a key"),
        pytest.param(
            "POST",
            "/v1/accounts",
            {},
            b"{oops",
            400,
            None,
            id="unreadable body without a key",
        ),
        pytest.param(
            "GET",
            "/v1/no-such-route",
            {"Idempotency-Key": key},
            None,
            404,
            key,
            id="unknown route with a key",
        ),
        pytest.param(
            "POST",
            "/v1/accounts",
            {"Idempotency-Key": key},
            b" " * (MAX_BODY_BYTES + 1),
            413,
            key,
            id="body too large with a key",
        ),
    ]


@pytest.mark.parametrize("method, path, headers, body, status, expected", request_id_cases())
def test_every_response_names_its_request_id(http, method, path, headers, body, status, expected):
    response = http.request(method, path, headers=headers, content=body)
    assert response.status_code == status, describe(response)
    request_id = response.headers.get("podium-request-id")
    assert request_id, f"no Podium-Request-Id: {describe(response)}"
    if expected is not None:
        assert request_id == expected
    else:
        assert UUID.match(request_id), request_id
    if status != 200:
        assert response.json().get("requestId") == request_id


# ---------------------------------------------------------------------------------------------
# Errors as problems: 400


MALFORMED_BODIES = [
    # (case, body, code, field)
    ("not JSON", b"this is not json", "malformed_json", None),
    ("truncated", b'{"name":', "malformed_json", None),
    ("trailing comma", b'{"name":"cactus.hit",}', "malformed_json", None),
    ("trailing garbage", b'{"name":"cactus.hit"} x', "malformed_json", None),
    ("invalid UTF-8", b'{"name":"\xff\xfe"}', "malformed_json", None),
    ("array", b"[1, 2]", "invalid_shape", "payload"),
    ("number", b"42", "invalid_shape", "payload"),
    ("string", b'"cactus.hit"', "invalid_shape", "payload"),
    ("null", b"null", "invalid_shape", "payload"),
    ("nested too deep", b'{"a":' * 33 + b"1" + b"}" * 33, "invalid_shape", None),
]


@pytest.mark.parametrize("body, code, field", [c[1:] for c in MALFORMED_BODIES], ids=[c[0] for c in MALFORMED_BODIES])
def test_unreadable_body(http, body, code, field):
    grant = device_player(http)
    response = http.post(f"/v1/games/{DASH}/events", headers=bearer(grant), content=body)
    problem(response, 400, code, field)
    # The same through /v1/call, whose body is the request.
    call_field = None if field == "payload" else field
    problem(http.post("/v1/call/event.publish", headers=bearer(grant), content=body), 400, code, call_field)


def test_empty_body_is_an_empty_payload(http):
    grant = device_player(http)
    problem(http.post(f"/v1/games/{DASH}/events", headers=bearer(grant)), 400, "missing_field", "payload.name")
    problem(http.post(f"/v1/games/{DASH}/events", headers=bearer(grant), content=b" \r\n\t"), 400, "missing_field", "payload.name")
    # A body on a route that takes none is not read.
    assert ok(http.request("GET", "/v1/me", headers=bearer(grant), content=b"not json"))["playerId"] == grant["playerId"]


BAD_QUERIES = [
    # (case, path under /v1/games/dash, query, field)
    ("integer as text", f"leaderboards/{HIGHSCORE}/top", "limit=abc", "payload.limit"),
    ("empty integer", f"leaderboards/{HIGHSCORE}/top", "limit=", "payload.limit"),
    ("integer with a fraction", f"leaderboards/{HIGHSCORE}/top", "offset=1.5", "payload.offset"),
    ("integer beyond 64 bits", f"leaderboards/{HIGHSCORE}/top", "limit=99999999999999999999", "payload.limit"),
    ("period not an integer", f"leaderboards/{WEEKLY}/top", "period=last", "payload.period"),
    ("radius not an integer", f"leaderboards/{HIGHSCORE}/around", "radius=two", "payload.radius"),
    ("boolean as a word", f"leaderboards/{HIGHSCORE}/top", "friendsOnly=maybe", "payload.friendsOnly"),
    ("boolean as yes", "challenges/inbox", "unreadOnly=yes", "payload.unreadOnly"),
    ("score not an integer", "challenges/candidates", f"boardId={HIGHSCORE}&score=high", "payload.score"),
]


@pytest.mark.parametrize("path, query, field", [c[1:] for c in BAD_QUERIES], ids=[c[0] for c in BAD_QUERIES])
def test_bad_query_value(http, path, query, field):
    grant = device_player(http)
    problem(http.get(f"/v1/games/{DASH}/{path}?{query}", headers=bearer(grant)), 400, "invalid_shape", field)


def test_query_booleans_and_unknown_parameters(http):
    grant = device_player(http)
    top = f"/v1/games/{DASH}/leaderboards/{HIGHSCORE}/top"
    for value in ("true", "false", "1", "0"):
        assert ok(http.get(top, headers=bearer(grant), params={"friendsOnly": value, "limit": 1}))["boardId"] == HIGHSCORE
    # Query parameters a route does not take are ignored, not copied into the payload.
    assert ok(http.get("/v1/me", headers=bearer(grant), params={"limit": "abc", "x": "1"}))["playerId"] == grant["playerId"]
    # Percent-encoded query values are decoded.
    assert ok(http.get(f"{top}?scope=all%54ime&limit=1", headers=bearer(grant)))["scope"] == "allTime"


def test_missing_and_invalid_fields(http):
    grant = device_player(http)
    me = bearer(grant)
    problem(http.post("/v1/sessions", json={"password": new_password()}), 400, "missing_field", "payload.username")
    problem(http.post("/v1/accounts", json={"username": new_username()}), 400, "missing_field", "payload.password")
    problem(http.post("/v1/sessions/refresh", json={}), 400, "missing_field", "payload.refreshToken")
    problem(http.post("/v1/me/display-name", headers=me, json={"displayName": None}), 400, "missing_field", "payload.displayName")
    problem(http.post("/v1/accounts", json={"username": "ab", "password": new_password()}), 400, "invalid_username", "payload.username")
    problem(http.post("/v1/accounts", json={"username": new_username(), "password": "short"}), 400, "invalid_password", "payload.password")
    problem(http.post("/v1/accounts", json={"username": new_username(), "password": 12345678}), 400, "invalid_shape", "payload.password")
    problem(http.post("/v1/me/display-name", headers=me, json={"displayName": "   "}), 400, "invalid_field", "payload.displayName")
    problem(http.post("/v1/sessions/device", json={"deviceId": "short"}), 400, "invalid_field", "payload.deviceId")
    problem(http.post(f"/v1/games/{DASH}/events", headers=me, json={"name": "Cactus Hit"}), 400, "invalid_field", "payload.name")
    problem(http.post(f"/v1/games/{DASH}/events", headers=me, json={"name": "a", "value": "1"}), 400, "invalid_shape", "payload.value")
    problem(http.post("/v1/games/bad%20game/events", headers=me, json={"name": "a"}), 400, "invalid_field", "gameId")
    board = f"/v1/games/{DASH}/leaderboards/{HIGHSCORE}"
    problem(http.get(f"{board}/top", headers=me, params={"limit": 0}), 400, "invalid_field", "payload.limit")
    problem(http.get(f"{board}/top", headers=me, params={"cursor": "not-a-cursor"}), 400, "invalid_field", "payload.cursor")
    problem(http.post(f"{board}/scores", headers=me, json={"value": -1}), 400, "score_out_of_bounds", "payload.value")
    problem(http.post(f"{board}/scores", headers=me, json={}), 400, "missing_field", "payload.value")
    problem(http.get(f"/v1/games/{DASH}/challenges/received", headers=me, params={"state": "bogus"}), 400, "invalid_field", "payload.state")
    problem(http.get(f"/v1/games/{DASH}/challenges/candidates", headers=me), 400, "missing_field", "payload")
    problem(http.post(f"/v1/games/{DASH}/challenges/inbox/read", headers=me, json={"ids": "x"}), 400, "missing_field", "payload.ids")
    friend = device_player(http)
    befriend(http, grant, friend)
    problem(
        http.post(f"/v1/games/{DASH}/challenges", headers=me, json={"kind": "timed", "boardId": FASTEST, "receivers": [friend["playerId"]]}),
        400,
        "invalid_field",
        "payload.kind",
    )
    problem(
        http.post(
            f"/v1/games/{DASH}/challenges/timed",
            headers=me,
            json={"boardId": FASTEST, "durationMilliseconds": 1, "receivers": [friend["playerId"]]},
        ),
        400,
        "invalid_field",
        "payload.durationMilliseconds",
    )
    problem(
        http.post(f"/v1/games/{BLACKJACK}/achievements/reports", headers=me, json={"reports": []}), 400, "invalid_field", "payload.reports"
    )


def test_call_body_is_the_request_envelope(http):
    grant = device_player(http)
    for member in ("token", "id", "type", "serverKey", "adminKey"):
        body = {"gameId": DASH, "payload": {"name": "cactus.hit"}, member: "x"}
        problem(http.post("/v1/call/event.publish", headers=bearer(grant), json=body), 400, "invalid_field", member)
    # Even the right token in the body is refused: credentials go in headers only.
    problem(http.post("/v1/call/auth.profile", json={"token": grant["sessionToken"]}), 400, "invalid_field", "token")
    problem(http.post("/v1/call/auth.profile", headers=bearer(grant), json={"payload": [1]}), 400, "invalid_shape", "payload")
    problem(http.post("/v1/call/gateway.health", json={"version": 2}), 400, "unsupported_version", "version")
    problem(http.post("/v1/call/gateway.health", json={"version": 0}), 400, "invalid_field", "version")
    problem(http.post("/v1/call/gateway.health", json={"version": "1"}), 400, "invalid_shape", "version")
    problem(http.post("/v1/call/gateway.health", json={"gameId": 5}), 400, "invalid_shape", "gameId")
    problem(http.post("/v1/call/event.publish", headers=bearer(grant), json={"payload": {"name": "a"}}), 400, "missing_field", "gameId")
    # version 1, gameId, playerId (yourself) and a null payload are accepted.
    ack = ok(
        http.post(
            "/v1/call/event.publish",
            headers=bearer(grant),
            json={"version": 1, "gameId": DASH, "playerId": grant["playerId"], "payload": {"name": "cactus.hit"}},
        )
    )
    assert ack["topic"] == f"event/{DASH}/cactus.hit"
    assert ok(http.post("/v1/call/auth.profile", headers=bearer(grant), json={"payload": None}))["playerId"] == grant["playerId"]


def test_two_credentials_are_refused(http):
    grant = device_player(http)
    problem(http.get("/v1/me", headers={**bearer(grant), "X-Podium-Admin-Key": "k" * 40}), 400, "invalid_field", "token")
    problem(http.get("/v1/me", headers={**bearer(grant), "X-Podium-Server-Key": "k" * 40}), 400, "invalid_field", "token")
    problem(
        http.get("/v1/health", headers={"X-Podium-Server-Key": "k" * 40, "X-Podium-Admin-Key": "k" * 40}), 400, "invalid_field", "serverKey"
    )
    problem(http.get("/v1/me", headers={"Authorization": "Bearer " + "t" * 4097}), 400, "invalid_field", "token")


# ---------------------------------------------------------------------------------------------
# 401, 403


def test_credentials_refused_with_401(http):
    grant = device_player(http)
    body = problem(http.get("/v1/me"), 401, "unauthenticated", "token")
    assert "auth.profile" in body["detail"]
    assert http.get("/v1/me").headers["www-authenticate"] == 'Bearer realm="podium"'
    problem(http.post(f"/v1/games/{DASH}/events", json={"name": "cactus.hit"}), 401, "unauthenticated", "token")
    problem(http.get(f"/v1/games/{DASH}/notifications/subscription"), 401, "unauthenticated", "token")

    for authorization in ("Bearer garbage", "Bearer a.b.c", f"Basic {grant['sessionToken']}", "Basic dXNlcjpwYXNz", "Bearer", grant["sessionToken"]):
        response = http.get("/v1/me", headers={"Authorization": authorization})
        problem(response, 401, "invalid_token", "token")
        assert 'error="invalid_token"' in response.headers["www-authenticate"]
    # A tampered token: one changed character of the signature.
    token = grant["sessionToken"]
    tampered = token[:-2] + ("A" if token[-2] != "A" else "B") + token[-1]
    problem(http.get("/v1/me", headers={"Authorization": f"Bearer {tampered}"}), 401, "invalid_token", "token")
    # A bad token is ignored on a public type (section 5.2).
    assert ok(http.get("/v1/health", headers={"Authorization": "Bearer garbage"}))["ready"] is True

    problem(http.get(f"/v1/games/{DASH}/leaderboards", headers={"X-Podium-Admin-Key": "w" * 40}), 401, "invalid_credentials", "adminKey")
    problem(http.get(f"/v1/games/{DASH}/leaderboards", headers={"X-Podium-Server-Key": "w" * 40}), 401, "invalid_credentials", "serverKey")
    # A server key acts for a game: without one it is refused before it is checked.
    problem(http.post("/v1/call/event.publish", headers={"X-Podium-Server-Key": "w" * 40}), 400, "missing_field", "gameId")
    # On a public type a credential that fails its checks is ignored (section 5.2).
    assert ok(http.get("/v1/health", headers={"X-Podium-Admin-Key": "w" * 40}))["ready"] is True


def test_wrong_login_is_401_invalid_credentials(http):
    grant = register(http)
    # One failed login of this run (see the module docstring).
    body = problem(http.post("/v1/sessions", json={"username": grant["username"], "password": new_password()}), 401, "invalid_credentials")
    assert "field" not in body


def test_wrong_login_does_not_blame_a_token(http):
    # The second failed login of this run, with its own username.
    response = http.post("/v1/sessions", json={"username": new_username(), "password": new_password()})
    problem(response, 401, "invalid_credentials")
    assert "invalid_token" not in response.headers["www-authenticate"]


def test_shared_address_login_throttling(http, admin_key):
    """A guesser behind a shared address (a school, a carrier-grade NAT) is stopped while the other
    players behind it log in; an operator sees the lockout and clears it (docs/SECURITY.md 3.4)."""
    school = f"198.51.100.{uuid.uuid4().int % 250 + 1}"
    elsewhere = f"203.0.113.{uuid.uuid4().int % 250 + 1}"
    via_school = {"X-Forwarded-For": school}
    victim, classmate = register(http), register(http)
    for _ in range(5):  # PODIUM_LOGIN_ACCOUNT_ADDRESS_FAILURES
        problem(
            http.post("/v1/sessions", headers=via_school, json={"username": victim["username"], "password": new_password()}),
            401,
            "invalid_credentials",
        )
    right = {"username": victim["username"], "password": victim["password"]}
    refused = problem(http.post("/v1/sessions", headers=via_school, json=right), 429, "rate_limited")
    assert refused["retryAfterMilliseconds"] > 0
    # The classmate behind the same address logs in; so does the victim from another address.
    ok(http.post("/v1/sessions", headers=via_school, json={"username": classmate["username"], "password": classmate["password"]}))
    ok(http.post("/v1/sessions", headers={"X-Forwarded-For": elsewhere}, json=right))

    admin = {"X-Podium-Admin-Key": admin_key}
    lockouts = ok(http.get("/v1/admin/lockouts", headers=admin, params={"address": school}))["lockouts"]
    assert [(item["limit"], item["username"], item["address"], item["failures"]) for item in lockouts] == [
        ("account-and-address", victim["username"].lower(), school, 5)
    ], lockouts
    assert lockouts[0]["retryAfterMilliseconds"] > 0
    problem(http.get("/v1/admin/lockouts", headers=bearer(classmate)), 403, "forbidden")
    problem(http.post("/v1/admin/lockouts/clear", headers=admin, json={}), 400, "missing_field")
    receipt = ok(http.post("/v1/admin/lockouts/clear", headers=admin, json={"username": victim["username"], "address": school}))
    assert receipt["cleared"] >= 1, receipt
    ok(http.post("/v1/sessions", headers=via_school, json=right))
    assert ok(http.get("/v1/admin/lockouts", headers=admin, params={"address": school}))["lockouts"] == []


def test_forbidden(http):
    mine, theirs = device_player(http), device_player(http)
    problem(http.get("/v1/me", headers=bearer(mine), params={"playerId": theirs["playerId"]}), 403, "forbidden", "playerId")
    problem(
        http.post(f"/v1/games/{DASH}/events", headers=bearer(mine), params={"playerId": theirs["playerId"]}, json={"name": "cactus.hit"}),
        403,
        "forbidden",
        "playerId",
    )
    problem(
        http.get(f"/v1/games/{DASH}/leaderboards/{HIGHSCORE}/entry", headers=bearer(mine), params={"playerId": theirs["playerId"]}),
        403,
        "forbidden",
        "playerId",
    )
    problem(
        http.post("/v1/call/auth.profile", headers=bearer(mine), json={"playerId": theirs["playerId"]}), 403, "forbidden", "playerId"
    )
    problem(http.post(f"/v1/games/{DASH}/leaderboards/{RANKED}/scores", headers=bearer(mine), json={"value": 1}), 403, "forbidden")
    problem(http.post("/v1/call/events.read", headers=bearer(mine), json={"payload": {"after": 0}}), 403, "forbidden")
    problem(http.post("/v1/call/admin.anything", headers=bearer(mine)), 403, "forbidden")


# ---------------------------------------------------------------------------------------------
# 404, 409, 413


UNKNOWN_ROUTES = [
    ("GET", "/"),
    ("GET", "/v1"),
    ("GET", "/v1/no-such-route"),
    ("GET", "/v2/me"),
    ("GET", "/V1/ME"),
    ("PUT", "/v1/me"),
    ("POST", "/v1/me"),
    ("DELETE", "/v1/me"),
    ("PATCH", "/v1/me/display-name"),
    ("GET", "/v1/call/health"),
    ("POST", "/v1/call/"),
    ("POST", "/v1/health"),
    ("GET", "/v1/games/dash"),
    ("GET", "/v1/games/dash/challenges/inbox/read"),
    ("GET", "/v1/friends/someone/request"),
]


@pytest.mark.parametrize("method, path", UNKNOWN_ROUTES, ids=[f"{m} {p}" for m, p in UNKNOWN_ROUTES])
def test_unknown_route(http, method, path):
    grant = device_player(http)
    body = problem(http.request(method, path, headers=bearer(grant)), 404, "unknown_route", None)
    assert path in body["detail"]
    # The same without a credential: an unknown route is not a credential problem.
    problem(http.request(method, path), 404, "unknown_route", None)


def test_unknown_things_are_404(http):
    grant = device_player(http)
    me = bearer(grant)
    problem(http.post("/v1/call/nope.nothing", headers=me), 404, "unknown_type", "type")
    problem(http.post("/v1/call/Health", headers=me), 404, "unknown_type", "type")
    # Without a credential the credential is the first problem (PROTOCOL 4, 13).
    problem(http.post("/v1/call/nope.nothing"), 401, "unauthenticated", "token")
    problem(http.get(f"/v1/games/{DASH}/leaderboards/no.such.board/top", headers=me), 404, "unknown_board", "payload.boardId")
    problem(http.post(f"/v1/games/{DASH}/leaderboards/no.such.board/scores", headers=me, json={"value": 1}), 404, "unknown_board", "payload.boardId")
    game = unique("no-game")
    problem(http.get(f"/v1/games/{game}/leaderboards", headers=me), 404, "unknown_game", "gameId")
    problem(http.get(f"/v1/games/{game}/achievements", headers=me), 404, "unknown_game", "gameId")
    problem(http.get(f"/v1/games/{DASH}/challenges/{uuid.uuid4()}", headers=me), 404, "unknown_challenge", "payload.challengeId")
    problem(http.post(f"/v1/games/{DASH}/challenges/{uuid.uuid4()}/decline", headers=me), 404, "unknown_challenge", "payload.challengeId")
    problem(
        http.post(f"/v1/games/{BLACKJACK}/achievements/reports", headers=me, json={"reports": [{"achievementId": "nope", "steps": 1}]}),
        404,
        "unknown_achievement",
    )
    problem(http.post(f"/v1/friends/no-such-{uuid.uuid4().hex}/block", headers=me), 404, "unknown_player", "payload.playerId")


def test_conflicts_are_409(http):
    grant = register(http)
    problem(http.post("/v1/accounts", json={"username": grant["username"], "password": new_password()}), 409, "username_taken", "payload.username")
    problem(
        http.post("/v1/accounts", json={"username": grant["username"].upper(), "password": new_password()}),
        409,
        "username_taken",
        "payload.username",
    )
    other = device_player(http)
    problem(http.post(f"/v1/friends/{other['playerId']}/accept", headers=bearer(grant)), 409, "conflict", "payload.playerId")
    # A score challenge needs the issuer's own entry on the board.
    befriend(http, grant, other)
    problem(
        http.post(
            f"/v1/games/{DASH}/challenges",
            headers=bearer(grant),
            json={"kind": "score", "boardId": FASTEST, "receivers": [other["playerId"]]},
        ),
        409,
        "conflict",
        "payload.boardId",
    )


def test_body_too_large_is_413(http):
    grant = device_player(http)
    # With a Content-Length.
    body = problem(http.post(f"/v1/games/{DASH}/events", headers=bearer(grant), content=b" " * (MAX_BODY_BYTES + 1)), 413, "message_too_large")
    assert str(MAX_BODY_BYTES) in body["detail"]
    # Chunked, with no Content-Length: the body is cut off at the limit all the same.
    chunks = (b" " * 1024 for _ in range(MAX_BODY_BYTES // 1024 + 2))
    problem(http.post(f"/v1/games/{DASH}/events", headers=bearer(grant), content=chunks), 413, "message_too_large")
    # /v1/call too, and on a route that takes no body.
    problem(http.post("/v1/call/gateway.health", content=b" " * (MAX_BODY_BYTES + 1)), 413, "message_too_large")
    problem(http.request("GET", "/v1/gateway/health", content=b" " * (MAX_BODY_BYTES + 1)), 413, "message_too_large")
    # The front goes on answering.
    assert ok(http.get("/v1/me", headers=bearer(grant)))["playerId"] == grant["playerId"]


def event_body_of(size, name="cactus.hit"):
    """A compact event body of exactly `size` bytes (the gateway ignores the padding field)."""
    body = {"name": name, "padding": ""}
    body["padding"] = "x" * (size - len(compact(body)))
    data = compact(body)
    assert len(data) == size
    return data


def test_body_below_the_limit_is_accepted(http):
    grant = device_player(http)
    ack = ok(http.post(f"/v1/games/{DASH}/events", headers=bearer(grant), content=event_body_of(MAX_BODY_BYTES - 2048)))
    assert ack["topic"] == f"event/{DASH}/cactus.hit"


def test_body_at_the_limit_is_accepted(http):
    grant = device_player(http)
    ack = ok(http.post(f"/v1/games/{DASH}/events", headers=bearer(grant), content=event_body_of(MAX_BODY_BYTES)))
    assert ack["topic"] == f"event/{DASH}/cactus.hit"


def test_request_head_too_large(http):
    # PROTOCOL.md 20.2: a head over 16 KiB, or with more than 100 fields, is answered 431 with a
    # problem and the connection is closed.
    for headers in ({"X-Padding": "x" * 20000}, {f"X-Field-{i}": "y" for i in range(150)}):
        response = http.get("/v1/gateway/health", headers=headers)
        body = problem(response, 431, "header_too_large", None)
        assert response.headers.get("connection", "").lower() == "close", describe(response)
        assert "requestId" not in body, "written before any request was read"
    # The front goes on answering, on a new connection.
    assert ok(http.get("/v1/gateway/health"))["ready"] is True


# ---------------------------------------------------------------------------------------------
# Path parameters


def test_path_parameters_win_over_the_body(http):
    grant = device_player(http)
    receipt = ok(
        http.post(f"/v1/games/{DASH}/leaderboards/{COINS}/scores", headers=bearer(grant), json={"boardId": HIGHSCORE, "value": 9})
    )
    assert receipt["boardId"] == COINS
    # The gameId of a resource route is the path's, whatever the payload says.
    ack = ok(http.post(f"/v1/games/{DASH}/events", headers=bearer(grant), json={"name": "cactus.hit", "gameId": WHACKACAC}))
    assert ack["topic"] == f"event/{DASH}/cactus.hit"


def test_path_parameters_are_percent_decoded(http):
    grant = device_player(http)
    key = f"k/{uuid.uuid4().hex}?x#y%z"
    response = http.post(f"/v1/games/{DASH}/events", headers=keyed(grant, key), json={"name": "cactus.hit"})
    ack = ok(response)
    assert response.headers["podium-request-id"] == key
    receipt = ok(http.get(f"/v1/games/{DASH}/receipts/{quote(key, safe='')}", headers=bearer(grant)))
    assert receipt["id"] == key and receipt["found"] is True and receipt["acknowledgement"] == ack
    encoded_board = HIGHSCORE.replace(".", "%2E")
    assert ok(http.get(f"/v1/games/{DASH}/leaderboards/{encoded_board}/top", headers=bearer(grant)))["boardId"] == HIGHSCORE


# ---------------------------------------------------------------------------------------------
# Every route is the protocol request it names: the same answer as POST /v1/call/{type}


ROUTES = [
    # (method, path, type, query, body, values that differ from the defaults)
    ("GET", "/v1/health", "health", None, None, {}),
    ("GET", "/v1/gateway/health", "gateway.health", None, None, {}),
    ("POST", "/v1/accounts", "auth.register", None, {"username": "ab"}, {}),
    ("POST", "/v1/sessions", "auth.login", None, {}, {}),
    ("POST", "/v1/sessions/device", "auth.device-login", None, {"deviceId": "short"}, {}),
    ("POST", "/v1/sessions/refresh", "auth.refresh", None, {"refreshToken": "not-a-token"}, {}),
    ("GET", "/v1/me", "auth.profile", None, None, {}),
    ("POST", "/v1/me/display-name", "auth.display-name", None, {}, {}),
    ("POST", "/v1/me/link", "auth.link", None, {}, {}),
    ("GET", "/v1/friends", "auth.friends.list", None, None, {}),
    *[
        ("POST", f"/v1/friends/{{playerId}}/{action}", f"auth.friends.{action}", None, {}, {})
        for action in ("request", "accept", "decline", "remove", "block", "unblock")
    ],
    ("POST", "/v1/games/{gameId}/events", "event.publish", None, {"value": 1}, {}),
    ("GET", "/v1/games/{gameId}/leaderboards", "leaderboard.boards", None, None, {}),
    ("GET", "/v1/games/{gameId}/leaderboard-sets", "leaderboard.sets", None, None, {}),
    ("POST", "/v1/games/{gameId}/leaderboards/{boardId}/scores", "leaderboard.submit", None, {"value": -5}, {}),
    (
        "GET",
        "/v1/games/{gameId}/leaderboards/{boardId}/top",
        "leaderboard.top",
        {"scope": "allTime", "limit": 3, "offset": 1, "friendsOnly": False},
        None,
        {},
    ),
    ("GET", "/v1/games/{gameId}/leaderboards/{boardId}/top", "leaderboard.top", {"period": 0, "limit": 2}, None, {"boardId": WEEKLY}),
    ("GET", "/v1/games/{gameId}/leaderboards/{boardId}/top", "leaderboard.top", {"friendsOnly": True}, None, {}),
    (
        "GET",
        "/v1/games/{gameId}/leaderboards/{boardId}/around",
        "leaderboard.around",
        {"scope": "week", "radius": 2, "friendsOnly": False},
        None,
        {},
    ),
    ("GET", "/v1/games/{gameId}/leaderboards/{boardId}/entry", "leaderboard.entry", {"scope": "today"}, None, {}),
    ("GET", "/v1/games/{gameId}/leaderboards/{boardId}/history", "leaderboard.history", None, None, {}),
    ("GET", "/v1/games/{gameId}/achievements", "achievement.list", None, None, {"gameId": BLACKJACK}),
    ("POST", "/v1/games/{gameId}/achievements/reports", "achievement.report", None, {}, {"gameId": BLACKJACK}),
    ("POST", "/v1/games/{gameId}/achievements/reset", "achievement.reset", None, {"confirm": True}, {"gameId": BLACKJACK}),
    ("POST", "/v1/games/{gameId}/challenges", "challenge.issue", None, {"kind": "score"}, {}),
    ("POST", "/v1/games/{gameId}/challenges/timed", "challenge.start", None, {"boardId": FASTEST}, {}),
    ("GET", "/v1/games/{gameId}/challenges/received", "challenge.received", {"state": "pending"}, None, {}),
    ("GET", "/v1/games/{gameId}/challenges/issued", "challenge.issued", None, None, {}),
    ("GET", "/v1/games/{gameId}/challenges/candidates", "challenge.candidates", {"boardId": HIGHSCORE, "score": 10}, None, {}),
    ("GET", "/v1/games/{gameId}/challenges/candidates", "challenge.candidates", {"achievementId": TUTORIAL}, None, {"gameId": BLACKJACK}),
    ("GET", "/v1/games/{gameId}/challenges/inbox", "challenge.inbox", {"unreadOnly": True}, None, {}),
    ("POST", "/v1/games/{gameId}/challenges/inbox/read", "challenge.inbox.read", None, {"ids": ["nothing"]}, {}),
    ("GET", "/v1/games/{gameId}/challenges/{challengeId}", "challenge.detail", None, None, {}),
    ("POST", "/v1/games/{gameId}/challenges/{challengeId}/decline", "challenge.decline", None, {}, {}),
    ("POST", "/v1/games/{gameId}/challenges/{challengeId}/rematch", "challenge.rematch", None, {}, {}),
    ("GET", "/v1/games/{gameId}/notifications/subscription", "notifications.subscribe", None, None, {}),
    ("GET", "/v1/games/{gameId}/receipts/{id}", "receipt.get", None, None, {}),
]


def query_text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def comparable(kind, response):
    """A response reduced to what both fronts must agree on."""
    body = response.json()
    if response.status_code != 200:
        body.pop("requestId", None)
        return response.status_code, body
    if kind == "health":
        body = {"ready": body["ready"]}
    if kind == "achievement.list":
        # Other players' progress may still be applied between the two requests.
        for achievement in body["achievements"]:
            achievement.pop("percentOfPlayersEarned", None)
    return response.status_code, body


@pytest.mark.parametrize(
    "method, path, kind, query, body, overrides",
    ROUTES,
    ids=[f"{r[0]} {r[1]} {r[2]}{' ' + '&'.join(r[3]) if r[3] else ''}" for r in ROUTES],
)
def test_route_is_the_same_request_as_call(http, method, path, kind, query, body, overrides):
    grant = device_player(http)
    values = {
        "gameId": DASH,
        "boardId": HIGHSCORE,
        "playerId": f"no-such-{uuid.uuid4().hex}",
        "challengeId": str(uuid.uuid4()),
        "id": unique("receipt"),
        **overrides,
    }
    names = re.findall(r"{(\w+)}", path)
    route = http.request(
        method,
        path.format(**values),
        headers=bearer(grant),
        params={name: query_text(value) for name, value in (query or {}).items()},
        content=compact(body) if body is not None else None,
    )
    assert not (route.status_code == 404 and route.json().get("code") == "unknown_route"), describe(route)

    payload = {name: values[name] for name in names if name != "gameId"}
    payload.update(query or {})
    payload.update(body or {})
    request = {"payload": payload}
    if "gameId" in names:
        request["gameId"] = values["gameId"]
    called = http.post(f"/v1/call/{kind}", headers=bearer(grant), json=request)

    assert comparable(kind, route) == comparable(kind, called), f"route: {describe(route)}\ncall: {describe(called)}"
    if route.status_code == 200:
        ok(route)
    else:
        problem(route, route.status_code, route.json()["code"])


def test_route_and_call_share_the_idempotency_key(http):
    grant = device_player(http)
    key = unique("shared")
    event = {"name": "match.end", "value": 3}
    ack = ok(http.post(f"/v1/games/{DASH}/events", headers=keyed(grant, key), json=event))
    again = ok(http.post("/v1/call/event.publish", headers=keyed(grant, key), json={"gameId": DASH, "payload": event}))
    assert again == dict(ack, duplicate=True)
    # The achievement service applies the event a moment after its acknowledgement (its receipt's
    # `effects.applied` turns true then): both routes are compared once it has.
    receipt = poll(
        lambda: ok(http.post("/v1/call/receipt.get", headers=bearer(grant), json={"gameId": DASH, "payload": {"id": key}})),
        lambda r: r.get("effects", {}).get("applied"), "the event's effects applied")
    assert receipt == ok(http.get(f"/v1/games/{DASH}/receipts/{key}", headers=bearer(grant)))
    assert receipt["acknowledgement"] == ack


# ---------------------------------------------------------------------------------------------
# Operator and game server credentials


def test_admin_key_header(http, admin_key):
    admin = {"X-Podium-Admin-Key": admin_key}
    player = device_player(http)

    subscription = ok(http.get(f"/v1/games/{DASH}/notifications/subscription", headers=admin))
    assert OPERATOR_TOPIC.match(subscription["topic"]) and subscription["playerId"] == "operator"
    problem(
        http.get(f"/v1/games/{DASH}/notifications/subscription", headers=admin, params={"playerId": player["playerId"]}), 403, "forbidden"
    )

    # The operator acts for a player named in the query.
    as_player = {"playerId": player["playerId"]}
    receipt = ok(http.post(f"/v1/games/{DASH}/leaderboards/{COINS}/scores", headers=admin, params=as_player, json={"value": 4}))
    assert receipt["playerId"] == player["playerId"] and receipt["entry"]["value"] == 4
    assert ok(http.get(f"/v1/games/{DASH}/leaderboards/{COINS}/entry", headers=bearer(player)))["entry"]["value"] == 4
    problem(http.post(f"/v1/games/{DASH}/leaderboards/{COINS}/scores", headers=admin, json={"value": 4}), 400, "missing_field", "playerId")

    key = unique("admin-event")
    ack = ok(http.post(f"/v1/games/{DASH}/events", headers={**admin, "Idempotency-Key": key}, params=as_player, json={"name": "cactus.hit"}))
    page = ok(http.post("/v1/call/events.read", headers=admin, json={"payload": {"after": ack["sequence"] - 1, "limit": 1}}))
    assert page["head"] >= ack["sequence"]
    [message] = page["messages"]
    assert message["topic"] == f"event/{DASH}/cactus.hit"
    envelope = message["envelope"]
    assert envelope["id"] == ack["eventId"] and envelope["playerId"] == player["playerId"] and envelope["correlationId"] == key
    assert envelope["actor"]["kind"] == "admin"
    receipt = ok(http.get(f"/v1/games/{DASH}/receipts/{key}", headers=admin, params={"playerId": player["playerId"]}))
    assert receipt["found"] is True and receipt["acknowledgement"] == ack

    # Requests about "me" are a player's own.
    problem(http.get("/v1/me", headers=admin), 403, "forbidden")
    problem(http.get("/v1/friends", headers=admin), 403, "forbidden")


def test_game_server_key_header(http):
    key = os.environ.get("PODIUM_TEST_SERVER_KEY")
    if not key:
        pytest.skip("PODIUM_TEST_SERVER_KEY is not set (a key of the stack's PODIUM_GAME_SERVER_KEYS)")
    game = os.environ.get("PODIUM_TEST_SERVER_GAME", "g")
    server = {"X-Podium-Server-Key": key}
    player = device_player(http)
    as_player = {"playerId": player["playerId"]}
    request_id = unique("server")
    ack = ok(
        http.post(f"/v1/games/{game}/events", headers={**server, "Idempotency-Key": request_id}, params=as_player, json={"name": "server.ping"})
    )
    assert ack["topic"] == f"event/{game}/server.ping"
    receipt = ok(http.get(f"/v1/games/{game}/receipts/{request_id}", headers=server, params=as_player))
    assert receipt["found"] is True and receipt["acknowledgement"] == ack
    # The player sees the same receipt with their own token: the request acted for them.
    assert ok(http.get(f"/v1/games/{game}/receipts/{request_id}", headers=bearer(player)))["acknowledgement"] == ack
    problem(http.post(f"/v1/games/{game}/events", headers=server, json={"name": "server.ping"}), 400, "missing_field", "playerId")
    problem(http.get(f"/v1/games/{game}/notifications/subscription", headers=server), 403, "forbidden")
    # A server key acts for one game: /v1/me names none; with one, "me" is still a player's own.
    problem(http.get("/v1/me", headers=server, params={"playerId": player["playerId"]}), 400, "missing_field", "gameId")
    problem(http.post("/v1/call/auth.profile", headers=server, json={"gameId": game, "playerId": player["playerId"]}), 403, "forbidden")
    other_game = unique("other")
    problem(
        http.post(f"/v1/games/{other_game}/events", headers=server, params={"playerId": player["playerId"]}, json={"name": "a"}),
        401,
        "invalid_credentials",
        "serverKey",
    )


def test_inbox_catch_up_after_a_position(http):
    # A reconnecting client reads what it missed: the items after the highest position it saw,
    # oldest first (PROTOCOL 12.8).
    ann, bo = device_player(http), device_player(http)
    befriend(http, ann, bo)
    submit(http, ann, HIGHSCORE, 500)
    challenges = f"/v1/games/{DASH}/challenges"
    for message in ["first", "second", "third"]:
        ok(http.post(challenges, headers=bearer(ann), json={"kind": "score", "boardId": HIGHSCORE,
                                                             "receivers": [bo["playerId"]], "message": message}))
    newest_first = ok(http.get(f"{challenges}/inbox", headers=bearer(bo)))["items"]
    positions = [item["position"] for item in newest_first]
    assert len(positions) == 3 and positions == sorted(positions, reverse=True), positions
    assert [item["message"].split(": ", 1)[1] for item in newest_first] == ["third", "second", "first"]
    later = ok(http.get(f"{challenges}/inbox", headers=bearer(bo), params={"after": positions[-1]}))["items"]
    assert [item["position"] for item in later] == sorted(positions)[1:]
    assert [item["message"].split(": ", 1)[1] for item in later] == ["second", "third"]
    assert ok(http.get(f"{challenges}/inbox", headers=bearer(bo), params={"after": positions[0]}))["items"] == []
    problem(http.get(f"{challenges}/inbox", headers=bearer(bo), params={"after": -1}), 400, "invalid_field", "payload.after")


def test_account_deletion_and_export_over_http(http, admin_key):
    # The player exports, then deletes their account (PROTOCOL 8.14, 8.15); the routes refuse
    # what is wrong first and change nothing.
    ann, bo = register(http), device_player(http)
    befriend(http, ann, bo)
    submit(http, ann, HIGHSCORE, 420)
    document = ok(http.get("/v1/me/export", headers=bearer(ann)))
    assert document["format"] == "podium-export-1" and document["playerId"] == ann["playerId"], document
    assert [f["playerId"] for f in document["account"]["friends"]["friends"]] == [bo["playerId"]], document
    assert [(e["boardId"], e["value"]) for e in document["leaderboards"]["entries"]] == [(HIGHSCORE, 420)], document
    admin = {"X-Podium-Admin-Key": admin_key}
    assert ok(http.get(f"/v1/admin/players/{ann['playerId']}/export", headers=admin))["leaderboards"] == document["leaderboards"]
    problem(http.get("/v1/me/export", headers=bearer(bo), params={"playerId": ann["playerId"]}), 403, "forbidden")

    problem(http.post("/v1/me/delete", headers=bearer(ann), json={"confirm": True}), 400, "missing_field", "payload.password")
    problem(http.post("/v1/me/delete", headers=bearer(ann), json={"password": ann["password"]}), 400,
            "confirmation_required", "payload.confirm")
    problem(http.post("/v1/me/delete", headers=bearer(ann), json={"password": "not the password", "confirm": True}), 401,
            "invalid_credentials")
    assert ok(http.get("/v1/me", headers=bearer(ann)))["playerId"] == ann["playerId"]

    receipt = ok(http.post("/v1/me/delete", headers=bearer(ann), json={"password": ann["password"], "confirm": True}))
    assert receipt["playerId"] == ann["playerId"] and receipt["revokedSessions"] == 1, receipt
    assert receipt["usernameFreeAt"] > receipt["deletedAt"], receipt
    assert http.get("/v1/me", headers=bearer(ann)).status_code == 401
    problem(http.post("/v1/sessions", json={"username": ann["username"], "password": ann["password"]}), 401,
            "invalid_credentials")
    problem(http.post("/v1/accounts", json={"username": ann["username"], "password": new_password()}), 409,
            "username_taken", "payload.username")
    poll(lambda: ok(http.get(f"/v1/games/{DASH}/leaderboards/{HIGHSCORE}/top", headers=bearer(bo)))["entries"],
         lambda entries: ann["playerId"] not in [e["playerId"] for e in entries], "the deleted player's score gone")
    assert ok(http.get("/v1/friends", headers=bearer(bo)))["friends"] == []
    problem(http.get(f"/v1/admin/players/{ann['playerId']}/export", headers=admin), 404, "unknown_player")

    # An operator deletes a device account; confirming is required of operators too.
    path = f"/v1/admin/players/{bo['playerId']}/delete"
    problem(http.post(path, headers=admin, json={"reason": "asked by email"}), 400, "confirmation_required", "payload.confirm")
    problem(http.post(path, headers=admin, json={"reason": "", "confirm": True}), 400, "invalid_field", "payload.reason")
    gone = ok(http.post(path, headers=admin, json={"reason": "asked by email", "confirm": True}))
    assert gone["unlinkedDevices"] == 1 and gone.get("usernameFreeAt") is None, gone
    problem(http.post(path, headers=admin, json={"confirm": True}), 404, "unknown_player")
    # The device logs in to a new, empty account.
    again = ok(http.post("/v1/sessions/device", json={"deviceId": bo["deviceId"]}))
    assert again["created"] is True and again["playerId"] != bo["playerId"], again
