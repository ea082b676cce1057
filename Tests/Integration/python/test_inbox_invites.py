"""Black-box tests of the notification inbox and of invite codes, through the HTTP front, with httpx.

The notification inbox (docs/PROTOCOL.md section 14.5; routes in 20.3 and 22.8):
`GET /v1/games/{game}/inbox/items`, `GET …/inbox/unread`, `POST …/inbox/read`,
`POST …/inbox/delete` and the operators' `POST /v1/admin/games/{game}/players/{playerId}/notices`.
Invite codes (9.5 and 12.11): `POST`/`GET /v1/invites`, `POST /v1/invites/redeem`,
`POST /v1/invites/revoke`, `POST /v1/games/{game}/challenges/{challengeId}/invites` and
`POST /v1/games/{game}/challenges/join`. Where a notification must be heard live, the test
subscribes with pyzmq to the topic the HTTP front hands out.

The tests start nothing. They read:

    PODIUM_TEST_HTTP           the HTTP front's base URL (http://127.0.0.1:8080); without it this
                               module is skipped
    PODIUM_TEST_REQUESTS       (conftest.py) the same stack's ZeroMQ endpoints; the live tests
    PODIUM_TEST_NOTIFICATIONS  subscribe there to the topic the HTTP front hands out
    PODIUM_TEST_ADMIN_KEY      the stack's PODIUM_ADMIN_KEY: the inbox tests send operator notices
                               (those tests are skipped without it)

Every test makes its own players (device logins: no scrypt), so the tests do not depend on each
other or on what earlier runs left behind.

Invite codes count wrong guesses: 10 per player and 100 per client address in 15 minutes, after
which every code entered, even a right one, is refused. Every client of the stack shares
127.0.0.1, so this file does not test that limit; scripts/test trusts 127.0.0.1 as a proxy
(PODIUM_HTTP_TRUSTED_PROXIES), so every code this file enters names a made-up address of its own
in X-Forwarded-For (198.51.100.0/24, TEST-NET-2), and no test player enters more than 3 wrong
codes. Nothing else is throttled by these tests.

Waits are bounded and only poll where something is asynchronous (notifications, items made from
the achievement stream); no test asserts how long anything takes.
"""

import json
import os
import random
import re
import time
import uuid

import pytest
import zmq

from podium_client import PLAYER_TOPIC, unique

BASE_URL = os.environ.get("PODIUM_TEST_HTTP")
if not BASE_URL:
    pytest.skip("PODIUM_TEST_HTTP is not set (the HTTP front's base URL)", allow_module_level=True)

DELIVERY_WAIT_SECONDS = 15.0

DASH = "dash"
HIGHSCORE = "com.example.dash.highscore"
WHACKACAC = "whackacac"
KILL_ONE = "com.dragonforged.whackacac.killone"  # earned by the first cactus.hit

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
CODE = re.compile(r"^[2-9A-HJKMNP-TV-Z]{5}-[2-9A-HJKMNP-TV-Z]{5}$")
PROBLEM_MEMBERS = {"type", "title", "status", "detail", "code", "field", "retryAfterMilliseconds", "requestId"}
ITEM_MEMBERS = {"id", "kind", "message", "details", "createdAt", "read", "position", "correlationId"}
INVITE_MEMBERS = {"code", "purpose", "challengeId", "gameId", "createdAt", "expiresAt", "revokedAt", "uses"}
DAY = 86400000
ANY = object()  # "do not check" for an optional argument


# ---------------------------------------------------------------------------------------------
# Helpers (the small ones of test_http.py, copied: importing that module would bring its tests)


def describe(response):
    return f"{response.request.method} {response.request.url} -> {response.status_code} {dict(response.headers)} {response.text[:600]}"


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
    request_id = response.headers.get("podium-request-id")
    if request_id is not None or "requestId" in body:
        assert body.get("requestId") == request_id, describe(response)
    assert "retry-after" not in response.headers, describe(response)
    return body


def bearer(grant):
    return {"Authorization": f"Bearer {grant['sessionToken']}"}


def keyed(grant, key):
    return {**bearer(grant), "Idempotency-Key": key}


def device_player(http):
    """A new device account made over HTTP (no scrypt: cheap)."""
    grant = ok(http.post("/v1/sessions/device", json={"deviceId": f"device-{uuid.uuid4()}"}))
    assert grant["created"] is True and UUID.match(grant["playerId"]), grant
    return grant


def befriend(http, one, other):
    assert ok(http.post(f"/v1/friends/{other['playerId']}/request", headers=bearer(one)))["state"] == "outgoing_request"
    assert ok(http.post(f"/v1/friends/{one['playerId']}/accept", headers=bearer(other)))["state"] == "friends"


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


def own_address():
    """A made-up client address (the stack trusts 127.0.0.1 as a proxy): this test's guesses
    are counted apart from every other client's."""
    return {"X-Forwarded-For": f"198.51.100.{random.randrange(1, 255)}"}


# --- the inbox


def admin(admin_key, key=None):
    headers = {"X-Podium-Admin-Key": admin_key}
    if key is not None:
        headers["Idempotency-Key"] = key
    return headers


def notice(http, admin_key, grant, message, game=DASH, key=None, details=None, resend=False):
    """An operator notice to `grant`'s player, sent with Idempotency-Key `key`; returns the item.
    A first notice answers the new item (no position yet); a resend answers the item as kept."""
    key = key or unique("notice")
    body = {"message": message}
    if details is not None:
        body["details"] = details
    response = http.post(f"/v1/admin/games/{game}/players/{grant['playerId']}/notices", headers=admin(admin_key, key), json=body)
    item = ok(response)
    assert response.headers["podium-request-id"] == key
    assert item["id"] == f"notice:{game}:{grant['playerId']}:{key}", item
    assert item["kind"] == "operator.notice" and item["message"] == message and item["read"] is False, item
    assert item["correlationId"] == key and item["details"] == (details if details is not None else {}), item
    assert ("position" in item) == resend and isinstance(item["createdAt"], int), item
    return item


def inbox(http, grant, game=DASH, **query):
    params = {name: (",".join(value) if isinstance(value, list) else value) for name, value in query.items()}
    for name, value in params.items():
        if isinstance(value, bool):
            params[name] = "true" if value else "false"
    page = ok(http.get(f"/v1/games/{game}/inbox/items", headers=bearer(grant), params=params))
    assert set(page) <= {"items", "nextBefore", "unread"}, page
    assert isinstance(page["unread"], int) and page["unread"] >= 0, page
    for item in page["items"]:
        assert set(item) <= ITEM_MEMBERS, item
        assert isinstance(item["position"], int) and isinstance(item["read"], bool), item
        assert isinstance(item["details"], dict) and "inboxId" not in item["details"], item
    return page


def unread(http, grant, game=DASH):
    return ok(http.get(f"/v1/games/{game}/inbox/unread", headers=bearer(grant)))["unread"]


def mark_read(http, grant, body, game=DASH):
    return ok(http.post(f"/v1/games/{game}/inbox/read", headers=bearer(grant), json=body))["marked"]


def delete(http, grant, body, game=DASH):
    return ok(http.post(f"/v1/games/{game}/inbox/delete", headers=bearer(grant), json=body))["deleted"]


# --- live notifications (pyzmq)


def subscription_topic(http, grant, game):
    reply = ok(http.get(f"/v1/games/{game}/notifications/subscription", headers=bearer(grant)))
    assert reply["gameId"] == game and reply["playerId"] == grant["playerId"], reply
    assert PLAYER_TOPIC.match(reply["topic"]), reply
    return reply["topic"]


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


def subscribed(http, sockets, grant, game):
    """A SUB socket on the player's topic that has heard a test notification (subscriptions are
    not confirmed: sends `challenge.test-notification` until one arrives). Returns (sub, topic)."""
    topic = subscription_topic(http, grant, game)
    sub = sockets(zmq.SUB, subscribe=topic)
    sent = set()
    deadline = time.monotonic() + DELIVERY_WAIT_SECONDS
    while time.monotonic() < deadline:
        key = unique("warm-up")
        ok(
            http.post(
                "/v1/call/challenge.test-notification",
                headers=keyed(grant, key),
                json={"gameId": game, "payload": {"message": key}},
            )
        )
        sent.add(key)
        heard = next_notification(sub, topic, lambda e: e.get("correlationId") in sent, min(deadline, time.monotonic() + 0.5))
        if heard is not None:
            return sub, topic
    pytest.fail(f"no notification reached the subscriber of {topic}")


# --- invite codes


def create_invite(http, grant, **body):
    invite = ok(http.post("/v1/invites", headers=bearer(grant), json=body))
    assert set(invite) <= INVITE_MEMBERS, invite
    assert CODE.match(invite["code"]), invite
    assert invite["purpose"] == "friend" and invite["uses"] == 0, invite
    assert "challengeId" not in invite and "gameId" not in invite and "revokedAt" not in invite, invite
    assert invite["expiresAt"] == invite["createdAt"] + body.get("expiresInMilliseconds", DAY), invite
    return invite


def invites(http, grant):
    return {invite["code"]: invite for invite in ok(http.get("/v1/invites", headers=bearer(grant)))["invites"]}


def redeem(http, grant, code, address):
    return http.post("/v1/invites/redeem", headers={**bearer(grant), **address}, json={"code": code})


def join(http, grant, code, address, key=None, game=DASH):
    headers = {**(keyed(grant, key) if key else bearer(grant)), **address}
    return http.post(f"/v1/games/{game}/challenges/join", headers=headers, json={"code": code})


def typed(code):
    """The code as a player might type it: lowercase, without the hyphen."""
    return code.replace("-", "").lower()


def made_up_code(taken):
    """A valid-looking code that is (almost certainly) nobody's: 30^10 codes."""
    alphabet = "23456789ABCDEFGHJKMNPQRSTVWXYZ"
    while True:
        raw = "".join(random.choice(alphabet) for _ in range(10))
        code = f"{raw[:5]}-{raw[5:]}"
        if code not in taken:
            return code


def start_timed(http, starter, receivers):
    started = ok(
        http.post(
            f"/v1/games/{DASH}/challenges/timed",
            headers=keyed(starter, unique("start")),
            json={"boardId": HIGHSCORE, "durationMilliseconds": 600000, "receivers": [r["playerId"] for r in receivers]},
        )
    )
    assert started["kind"] == "timed" and started["state"] == "running", started
    return started


def participants(detail):
    return sorted(receiver["playerId"] for receiver in detail["receivers"])


# ---------------------------------------------------------------------------------------------
# The notification inbox


def test_operator_notice_is_kept_for_a_player_who_is_not_subscribed(http, admin_key):
    ann = device_player(http)
    assert inbox(http, ann) == {"items": [], "unread": 0}
    assert unread(http, ann) == 0

    key = unique("notice")
    item = notice(http, admin_key, ann, "Servers restart at 04:00 UTC", key=key, details={"url": "https://status.example.com"})
    page = inbox(http, ann)
    assert page["unread"] == 1 and "nextBefore" not in page, page
    assert len(page["items"]) == 1, page
    kept = page["items"][0]
    assert kept == {**item, "position": kept["position"]}, (kept, item)
    assert kept["kind"] == "operator.notice" and kept["read"] is False and kept["position"] >= 1
    assert unread(http, ann) == 1
    # The inbox is per game, and per player.
    assert inbox(http, ann, game=WHACKACAC) == {"items": [], "unread": 0}
    assert inbox(http, device_player(http)) == {"items": [], "unread": 0}

    # A resend (same Idempotency-Key) answers the same item and keeps no second one.
    again = notice(
        http, admin_key, ann, "Servers restart at 04:00 UTC", key=key, details={"url": "https://status.example.com"}, resend=True)
    page = inbox(http, ann)
    assert [i["id"] for i in page["items"]] == [item["id"]] and page["unread"] == 1, page
    assert page["items"][0] == kept, page  # the kept item is unchanged
    # "it answers the item as kept" (14.5): the kept one, not a new one made for the resend.
    assert again == kept, (again, kept)
    # The same key with another notice is refused and changes nothing.
    refused = http.post(f"/v1/admin/games/{DASH}/players/{ann['playerId']}/notices", headers=admin(admin_key, key),
                        json={"message": "something else"})
    problem(refused, 409, "id_reused", "id")
    assert inbox(http, ann)["items"] == [kept]


def test_notice_heard_live_names_its_inbox_item(http, sockets, admin_key):
    bo = device_player(http)
    sub, topic = subscribed(http, sockets, bo, DASH)
    key = unique("notice")
    item = notice(http, admin_key, bo, "Live notice", key=key, details={"level": "info"})
    envelope = next_notification(
        sub, topic, lambda e: e["payload"].get("kind") == "operator.notice", time.monotonic() + DELIVERY_WAIT_SECONDS
    )
    assert envelope is not None, "no operator.notice notification arrived"
    assert envelope["gameId"] == DASH and envelope["playerId"] == bo["playerId"] and envelope["correlationId"] == key
    assert envelope["payload"]["message"] == "Live notice"
    assert envelope["payload"]["details"] == {"level": "info", "inboxId": item["id"]}
    # Heard live, and kept as well, unread.
    page = inbox(http, bo)
    assert [i["id"] for i in page["items"]] == [item["id"]] and page["unread"] == 1

    # A resend sends nothing again: the next thing heard is a later test notification.
    notice(http, admin_key, bo, "Live notice", key=key, details={"level": "info"}, resend=True)
    marker = unique("after-resend")
    ok(
        http.post(
            "/v1/call/challenge.test-notification",
            headers=keyed(bo, marker),
            json={"gameId": DASH, "payload": {"message": marker}},
        )
    )
    heard = next_notification(
        sub,
        topic,
        lambda e: e["payload"].get("kind") == "operator.notice" or e.get("correlationId") == marker,
        time.monotonic() + DELIVERY_WAIT_SECONDS,
    )
    assert heard is not None and heard["correlationId"] == marker, heard


def test_paging_newest_first_and_catching_up(http, admin_key):
    cy = device_player(http)
    sent = [notice(http, admin_key, cy, f"notice {n}") for n in range(3)]
    newest_first = [item["id"] for item in reversed(sent)]

    whole = inbox(http, cy)
    assert [i["id"] for i in whole["items"]] == newest_first and whole["unread"] == 3 and "nextBefore" not in whole
    positions = [i["position"] for i in whole["items"]]
    assert positions == sorted(positions, reverse=True) and len(set(positions)) == 3

    # Pages of one, newest first, each `before` the previous page's `nextBefore`.
    seen, before = [], None
    for _ in range(3):
        page = inbox(http, cy, limit=1, **({} if before is None else {"before": before}))
        assert len(page["items"]) == 1 and page["unread"] == 3, page
        assert page["nextBefore"] == page["items"][0]["position"], page  # a full page
        seen.append(page["items"][0]["id"])
        before = page["nextBefore"]
    assert seen == newest_first
    last = inbox(http, cy, limit=1, before=before)
    assert last == {"items": [], "unread": 3}, last  # nothing older: no nextBefore

    # Catch-up after a position: oldest first, never a nextBefore.
    oldest = positions[-1]
    caught = inbox(http, cy, after=oldest)
    assert [i["id"] for i in caught["items"]] == [item["id"] for item in sent[1:]] and "nextBefore" not in caught, caught
    caught = inbox(http, cy, after=oldest, limit=1)
    assert [i["id"] for i in caught["items"]] == [sent[1]["id"]] and "nextBefore" not in caught, caught
    assert inbox(http, cy, after=positions[0]) == {"items": [], "unread": 3}
    assert [i["id"] for i in inbox(http, cy, after=0)["items"]] == [item["id"] for item in sent]


def test_achievement_earned_from_an_event_is_kept_and_kinds_filter(http, admin_key):
    dee = device_player(http)
    key = unique("whack")
    ack = ok(
        http.post(
            f"/v1/games/{WHACKACAC}/events",
            headers=keyed(dee, key),
            json={"name": "cactus.hit", "attributes": {"matchId": "m1"}},
        )
    )
    # The item comes from the achievement stream, which the challenge service follows: poll.
    page = poll(
        lambda: inbox(http, dee, game=WHACKACAC),
        lambda p: any(i["kind"] == "achievement.earned" for i in p["items"]),
        "an achievement.earned inbox item",
    )
    earned = [i for i in page["items"] if i["kind"] == "achievement.earned"]
    assert len(earned) == 1, page
    item = earned[0]
    assert item["details"]["achievementId"] == KILL_ONE, item
    assert item["details"]["timesEarned"] == 1 and item["details"]["points"] == 10, item
    assert item["details"]["earnedDescription"] == "You whacked your first cactus.", item
    assert item["message"] == f"Achievement earned: {item['details']['title']}", item
    assert item["correlationId"] == ack["eventId"], (item, ack)
    assert item["read"] is False and page["unread"] == 1

    # The kinds filter (comma-separated in the query); `unread` counts every kind.
    note = notice(http, admin_key, dee, "Double points this weekend", game=WHACKACAC)
    both = inbox(http, dee, game=WHACKACAC)
    assert [i["id"] for i in both["items"]] == [note["id"], item["id"]] and both["unread"] == 2, both
    only = inbox(http, dee, game=WHACKACAC, kinds="achievement.earned")
    assert [i["id"] for i in only["items"]] == [item["id"]] and only["unread"] == 2, only
    only = inbox(http, dee, game=WHACKACAC, kinds="operator.notice")
    assert [i["id"] for i in only["items"]] == [note["id"]] and only["unread"] == 2, only
    pair = inbox(http, dee, game=WHACKACAC, kinds="achievement.earned,operator.notice")
    assert [i["id"] for i in pair["items"]] == [note["id"], item["id"]], pair
    none = inbox(http, dee, game=WHACKACAC, kinds="leaderboard.left-top,challenge.received")
    assert none == {"items": [], "unread": 2}, none

    # Nothing more comes of it: still exactly one achievement.earned item.
    time.sleep(0.5)
    again = inbox(http, dee, game=WHACKACAC, kinds="achievement.earned")
    assert [i["id"] for i in again["items"]] == [item["id"]], again


def test_read_one_and_read_all(http, admin_key):
    eve = device_player(http)
    sent = [notice(http, admin_key, eve, f"notice {n}") for n in range(3)]
    assert unread(http, eve) == 3

    assert mark_read(http, eve, {"ids": [sent[0]["id"], sent[0]["id"]]}) == 1  # repeated ids count once
    assert mark_read(http, eve, {"ids": [sent[0]["id"]]}) == 0  # already read
    assert unread(http, eve) == 2
    page = inbox(http, eve)
    assert {i["id"]: i["read"] for i in page["items"]} == {sent[0]["id"]: True, sent[1]["id"]: False, sent[2]["id"]: False}
    assert page["unread"] == 2
    assert [i["id"] for i in inbox(http, eve, unreadOnly=True)["items"]] == [sent[2]["id"], sent[1]["id"]]

    # Unknown ids, and other players' ids, are skipped and not counted.
    other = device_player(http)
    theirs = notice(http, admin_key, other, "theirs")
    assert mark_read(http, eve, {"ids": [theirs["id"], f"notice:{DASH}:{eve['playerId']}:no-such"]}) == 0
    assert unread(http, other) == 1
    assert mark_read(http, eve, {"ids": []}) == 0

    assert mark_read(http, eve, {"all": True}) == 2
    assert unread(http, eve) == 0
    assert all(i["read"] for i in inbox(http, eve)["items"])
    assert inbox(http, eve, unreadOnly=True) == {"items": [], "unread": 0}
    assert mark_read(http, eve, {"all": True}) == 0
    assert unread(http, other) == 1  # all is the player's own


def test_delete(http, admin_key):
    fay, gus = device_player(http), device_player(http)
    keep = notice(http, admin_key, fay, "keep")
    gone = notice(http, admin_key, fay, "delete me")

    # Another player cannot delete it: nothing is counted and it stays.
    assert delete(http, gus, {"ids": [gone["id"]]}) == 0
    assert [i["id"] for i in inbox(http, fay)["items"]] == [gone["id"], keep["id"]]

    assert delete(http, fay, {"ids": [gone["id"], gone["id"]]}) == 1
    assert delete(http, fay, {"ids": [gone["id"]]}) == 0  # already gone
    page = inbox(http, fay)
    assert [i["id"] for i in page["items"]] == [keep["id"]] and page["unread"] == 1, page
    assert unread(http, fay) == 1
    assert mark_read(http, fay, {"ids": [gone["id"]]}) == 0  # gone from every view


@pytest.mark.parametrize(
    "query, field",
    [
        ({"limit": 0}, "payload.limit"),
        ({"limit": 201}, "payload.limit"),
        ({"after": 1, "before": 5}, "payload.before"),
        ({"after": -1}, "payload.after"),
        ({"before": -1}, "payload.before"),
    ],
)
def test_inbox_list_invalid_field(http, query, field):
    grant = device_player(http)
    problem(http.get(f"/v1/games/{DASH}/inbox/items", headers=bearer(grant), params=query), 400, "invalid_field", field)


def test_inbox_refusals(http, admin_key):
    hal = device_player(http)
    items = f"/v1/games/{DASH}/inbox/items"
    # `after` and `before` together: invalid_field (the field is `payload.before`, 14.5).
    problem(http.get(items, headers=bearer(hal), params={"after": 0, "before": 10}), 400, "invalid_field", "payload.before")
    problem(http.get(items, headers=bearer(hal), params={"limit": "many"}), 400, "invalid_shape", "payload.limit")
    problem(http.get(items, headers=bearer(hal), params={"unreadOnly": "perhaps"}), 400, "invalid_shape", "payload.unreadOnly")
    problem(http.get(items, headers=bearer(hal), params={"kinds": ""}), 400, "invalid_field", "payload.kinds")

    for route in ("read", "delete"):
        path = f"/v1/games/{DASH}/inbox/{route}"
        problem(http.post(path, headers=bearer(hal), json={"ids": "notice:x"}), 400, "invalid_shape", "payload.ids")
        problem(http.post(path, headers=bearer(hal), json={}), 400, "missing_field", "payload.ids")
        problem(http.post(path, headers=bearer(hal), json={"ids": [""]}), 400, "invalid_field", "payload.ids")
        problem(http.post(path, headers=bearer(hal), json={"ids": ["x"] * 201}), 400, "invalid_field", "payload.ids")
    problem(http.post(f"/v1/games/{DASH}/inbox/delete", headers=bearer(hal), json={"all": True}), 400, "invalid_field", "payload.all")

    notices = f"/v1/admin/games/{DASH}/players/{hal['playerId']}/notices"
    problem(http.post(notices, headers=admin(admin_key), json={"message": ""}), 400, "invalid_field", "payload.message")
    problem(http.post(notices, headers=admin(admin_key), json={"message": "   "}), 400, "invalid_field", "payload.message")
    problem(http.post(notices, headers=admin(admin_key), json={"message": "x" * 513}), 400, "invalid_field", "payload.message")
    problem(http.post(notices, headers=admin(admin_key), json={"message": "bell\u0007"}), 400, "invalid_field", "payload.message")
    problem(
        http.post(notices, headers=admin(admin_key), json={"message": "big", "details": {"x": "y" * 2100}}),
        400,
        "invalid_field",
        "payload.details",
    )
    problem(
        http.post(f"/v1/admin/games/{DASH}/players/{uuid.uuid4()}/notices", headers=admin(admin_key), json={"message": "hi"}),
        404,
        "unknown_player",
        "playerId",
    )
    # A player (a session token, not the admin key) may not send notices, not even to themselves.
    problem(http.post(notices, headers=bearer(hal), json={"message": "hi"}), 403, "forbidden")
    # A refused request keeps nothing.
    assert inbox(http, hal) == {"items": [], "unread": 0}


# ---------------------------------------------------------------------------------------------
# Invite codes: friends


def test_friend_code_redeemed_by_another_player(http):
    ann, bo = device_player(http), device_player(http)
    address = own_address()
    invite = create_invite(http, ann)
    code = invite["code"]
    assert invites(http, ann) == {code: invite}

    # Entered lowercase and without the hyphen: a friend request to the code's owner.
    assert ok(redeem(http, bo, typed(code), address)) == {"playerId": ann["playerId"], "state": "outgoing_request"}
    friends = ok(http.get("/v1/friends", headers=bearer(ann)))
    assert [p["playerId"] for p in friends["incoming"]] == [bo["playerId"]], friends
    assert friends["friends"] == [] and friends["outgoing"] == []
    assert [p["playerId"] for p in ok(http.get("/v1/friends", headers=bearer(bo)))["outgoing"]] == [ann["playerId"]]
    listed = invites(http, ann)[code]
    assert listed == {**invite, "uses": 1}, listed
    assert invites(http, bo) == {}

    # Entered again (with spaces this time): unchanged, and counted.
    spaced = f"{code[:5]} {code[6:]}".lower()
    assert ok(redeem(http, bo, spaced, address)) == {"playerId": ann["playerId"], "state": "outgoing_request"}
    assert invites(http, ann)[code]["uses"] == 2

    # The owner's own code: invalid_field (a code that exists is not a wrong guess).
    problem(redeem(http, ann, code, address), 400, "invalid_field", "payload.code")


def test_friend_code_when_the_owner_asked_first(http):
    ann, bo = device_player(http), device_player(http)
    assert ok(http.post(f"/v1/friends/{bo['playerId']}/request", headers=bearer(ann)))["state"] == "outgoing_request"
    code = create_invite(http, ann)["code"]
    assert ok(redeem(http, bo, code, own_address())) == {"playerId": ann["playerId"], "state": "friends"}
    assert [p["playerId"] for p in ok(http.get("/v1/friends", headers=bearer(ann)))["friends"]] == [bo["playerId"]]


def friend_items(http, grant, game=DASH):
    return [item for item in inbox(http, grant, game)["items"] if item["kind"].startswith("friend.")]


def test_friend_requests_reach_the_inbox_of_the_game_they_came_from(http):
    ann, bo, cy = device_player(http), device_player(http), device_player(http)
    # Without a game (the /v1/friends routes name none) the relation changes but no inbox has it.
    assert ok(http.post(f"/v1/friends/{bo['playerId']}/request", headers=bearer(cy)))["state"] == "outgoing_request"
    # From a game: the player asked finds it in that game's inbox, naming who asked.
    assert ok(http.post(f"/v1/games/{DASH}/friends/{bo['playerId']}/request", headers=bearer(ann)))["state"] == "outgoing_request"
    # A repeat changes nothing and adds nothing.
    assert ok(http.post(f"/v1/games/{DASH}/friends/{bo['playerId']}/request", headers=bearer(ann)))["state"] == "outgoing_request"
    items = poll(lambda: friend_items(http, bo), lambda found: found, "Bo's friend.requested item")
    assert [item["kind"] for item in items] == ["friend.requested"], items
    assert items[0]["details"]["playerId"] == ann["playerId"] and items[0]["read"] is False, items
    assert items[0]["message"].endswith("wants to be your friend"), items
    # Accepted from the game: the asker's item. The stream is in order, so once it is kept the
    # repeat and the game-less request have been read too, and made nothing.
    assert ok(http.post(f"/v1/games/{DASH}/friends/{ann['playerId']}/accept", headers=bearer(bo)))["state"] == "friends"
    accepted = poll(lambda: friend_items(http, ann), lambda found: found, "Ann's friend.accepted item")
    assert [item["kind"] for item in accepted] == ["friend.accepted"], accepted
    assert accepted[0]["details"]["playerId"] == bo["playerId"], accepted
    assert [item["kind"] for item in friend_items(http, bo)] == ["friend.requested"]
    assert friend_items(http, bo, WHACKACAC) == [] and friend_items(http, cy) == []
    # A friend code redeemed from a game is a friend request there for the code's owner.
    code = create_invite(http, cy)["code"]
    entered = http.post(f"/v1/games/{WHACKACAC}/invites/redeem", headers={**bearer(ann), **own_address()}, json={"code": code})
    assert ok(entered) == {"playerId": cy["playerId"], "state": "outgoing_request"}
    redeemed = poll(lambda: friend_items(http, cy, WHACKACAC), lambda found: found, "Cy's friend.requested item in whackacac")
    assert [(item["kind"], item["details"]["playerId"]) for item in redeemed] == [("friend.requested", ann["playerId"])]


def test_revoked_and_unknown_codes(http):
    ann, cy = device_player(http), device_player(http)
    address = own_address()
    invite = create_invite(http, ann)
    code = invite["code"]

    assert ok(http.post("/v1/invites/revoke", headers=bearer(ann), json={"code": typed(code)})) == {"code": code, "revoked": True}
    assert ok(http.post("/v1/invites/revoke", headers=bearer(ann), json={"code": code})) == {"code": code, "revoked": False}
    assert code not in invites(http, ann)

    problem(redeem(http, cy, code, address), 410, "invite_revoked", "payload.code")
    assert ok(http.get("/v1/friends", headers=bearer(ann)))["incoming"] == []

    # Wrong codes (2 for this player): a made-up one and text that is no code answer the same.
    unknown = problem(redeem(http, cy, made_up_code({code}), address), 404, "unknown_invite", "payload.code")
    malformed = problem(redeem(http, cy, "not-a-code", address), 404, "unknown_invite", "payload.code")
    assert unknown["detail"] == malformed["detail"]

    # Only the owner revokes: another player's code is unknown_invite, and leaves it working.
    other = create_invite(http, ann)["code"]
    problem(http.post("/v1/invites/revoke", headers=bearer(cy), json={"code": other}), 404, "unknown_invite", "payload.code")
    assert other in invites(http, ann)


@pytest.mark.parametrize("expires", [0, 59999, 2592000001, -60000])
def test_bad_invite_lifetime(http, expires):
    grant = device_player(http)
    problem(
        http.post("/v1/invites", headers=bearer(grant), json={"expiresInMilliseconds": expires}),
        400,
        "invalid_field",
        "payload.expiresInMilliseconds",
    )
    assert invites(http, grant) == {}


def test_invite_lifetime_bounds(http):
    grant = device_player(http)
    shortest = create_invite(http, grant, expiresInMilliseconds=60000)
    longest = create_invite(http, grant, expiresInMilliseconds=2592000000)
    assert shortest["code"] != longest["code"]
    problem(http.post("/v1/invites", headers=bearer(grant), json={"expiresInMilliseconds": "1h"}), 400, "invalid_shape", "payload.expiresInMilliseconds")
    # Newest first.
    listed = ok(http.get("/v1/invites", headers=bearer(grant)))["invites"]
    assert [i["code"] for i in listed] == [longest["code"], shortest["code"]], listed


# ---------------------------------------------------------------------------------------------
# Invite codes: joining a time-boxed challenge


def test_challenge_code_lets_a_stranger_join(http, sockets):
    ann, bo, cy = device_player(http), device_player(http), device_player(http)
    address = own_address()
    befriend(http, ann, bo)
    started = start_timed(http, ann, [bo])
    challenge_id = started["challengeId"]
    assert participants(started) == sorted([ann["playerId"], bo["playerId"]])

    invite = ok(http.post(f"/v1/games/{DASH}/challenges/{challenge_id}/invites", headers=bearer(ann), json={}))
    assert set(invite) <= INVITE_MEMBERS, invite
    assert CODE.match(invite["code"]) and invite["purpose"] == "challenge" and invite["uses"] == 0, invite
    assert invite["challengeId"] == challenge_id and invite["gameId"] == DASH, invite
    assert invite["expiresAt"] == invite["createdAt"] + DAY, invite
    assert invites(http, ann)[invite["code"]] == invite

    # The owner hears of the join live.
    sub, topic = subscribed(http, sockets, ann, DASH)

    # Cy is no friend of anyone in it: the code is the permission.
    key = unique("join")
    joined = ok(join(http, cy, typed(invite["code"]), address, key=key))
    assert joined["challengeId"] == challenge_id and joined["kind"] == "timed" and joined["state"] == "running", joined
    assert participants(joined) == sorted([ann["playerId"], bo["playerId"], cy["playerId"]]), joined
    assert next(r for r in joined["receivers"] if r["playerId"] == cy["playerId"])["state"] == "pending", joined

    envelope = next_notification(
        sub, topic, lambda e: e["payload"].get("kind") == "challenge.joined", time.monotonic() + DELIVERY_WAIT_SECONDS
    )
    assert envelope is not None, "no challenge.joined notification reached the code's owner"
    assert envelope["correlationId"] == key and envelope["playerId"] == ann["playerId"], envelope
    details = envelope["payload"]["details"]
    assert details["playerId"] == cy["playerId"] and details["challengeId"] == challenge_id, details
    # ... and finds it in the inbox.
    kept = inbox(http, ann, kinds="challenge.joined")["items"]
    assert [i["id"] for i in kept] == [details["inboxId"]], kept
    assert kept[0]["correlationId"] == key and kept[0]["details"]["playerId"] == cy["playerId"], kept

    # Joining again: the challenge as it is, nothing changes, nobody is notified again.
    again = ok(join(http, cy, invite["code"], address))
    assert again["challengeId"] == challenge_id and participants(again) == participants(joined), again
    assert again["receivers"] == joined["receivers"] and again["state"] == joined["state"], again
    detail = ok(http.get(f"/v1/games/{DASH}/challenges/{challenge_id}", headers=bearer(cy)))
    assert participants(detail) == participants(joined)
    assert len(inbox(http, ann, kinds="challenge.joined")["items"]) == 1
    # Both entries found the code working.
    assert invites(http, ann)[invite["code"]]["uses"] == 2

    # The owner's own code: invalid_field.
    problem(join(http, ann, invite["code"], address), 400, "invalid_field", "payload.code")


def test_friend_code_does_not_join_a_challenge(http):
    ann, bo, dee = device_player(http), device_player(http), device_player(http)
    address = own_address()
    befriend(http, ann, bo)
    started = start_timed(http, ann, [bo])
    friend_code = create_invite(http, ann)["code"]

    made_up = problem(join(http, dee, made_up_code({friend_code}), address), 404, "unknown_invite", "payload.code")
    refused = problem(join(http, dee, friend_code, address), 404, "unknown_invite", "payload.code")
    assert refused["detail"] == made_up["detail"]  # never says whose code it is
    detail = ok(http.get(f"/v1/games/{DASH}/challenges/{started['challengeId']}", headers=bearer(ann)))
    assert participants(detail) == sorted([ann["playerId"], bo["playerId"]])

    # A challenge code given to redeem: conflict; a revoked challenge code stops joining at once.
    challenge_code = ok(http.post(f"/v1/games/{DASH}/challenges/{started['challengeId']}/invites", headers=bearer(ann), json={}))["code"]
    problem(redeem(http, dee, challenge_code, address), 409, "conflict", "payload.code")
    assert ok(http.post("/v1/invites/revoke", headers=bearer(ann), json={"code": challenge_code}))["revoked"] is True
    problem(join(http, dee, challenge_code, address), 410, "invite_revoked", "payload.code")


def test_challenge_invite_refusals(http):
    ann, bo, cy = device_player(http), device_player(http), device_player(http)
    befriend(http, ann, bo)
    started = start_timed(http, ann, [bo])
    path = f"/v1/games/{DASH}/challenges/{started['challengeId']}/invites"
    # Not a participant, or a bad lifetime.
    problem(http.post(path, headers=bearer(cy), json={}), 404, "unknown_challenge", "payload.challengeId")
    problem(
        http.post(path, headers=bearer(ann), json={"expiresInMilliseconds": 1000}),
        400,
        "invalid_field",
        "payload.expiresInMilliseconds",
    )
    # A receiver may make a code too.
    invite = ok(http.post(path, headers=bearer(bo), json={"expiresInMilliseconds": 3600000}))
    assert invite["purpose"] == "challenge" and invite["expiresAt"] == invite["createdAt"] + 3600000
    problem(
        http.post(f"/v1/games/{DASH}/challenges/join", headers={**bearer(cy), **own_address()}, json={}),
        400,
        "missing_field",
        "payload.code",
    )
