"""Black-box tests of the Podium wire protocol, written from docs/PROTOCOL.md alone.

They use only pyzmq and the standard library, and start nothing: the stack (gateway and the
four services) must already be running; conftest.py says which environment variables point at
it. This file covers health, framing, events, notifications and malformed input; test_auth.py
covers accounts, sessions, tokens and friends.

Waits are bounded so that a broken stack fails instead of hanging; no test asserts how long
anything takes.
"""

import os
import json
import time
import uuid

import pytest
import zmq

from podium_client import (
    DELIVERY_WAIT_SECONDS,
    MAX_MESSAGE_BYTES,
    PLAYER_TOPIC,
    SERVICES,
    call,
    check_envelope,
    drain,
    encode,
    error,
    ok,
    receive,
    receive_envelope,
    register,
    request_test_notification,
    subscription_topic,
    unique,
    wait_for_notification,
    warm_up,
)

# ---------------------------------------------------------------------------------------------
# Health


def test_health_reports_every_service_ready(ready_stack, dealer, admin_key):
    assert ready_stack["type"] == "reply"
    assert ready_stack["payload"] == {"ready": True}, "anyone is told readiness only"
    payload = ok(dealer, {"type": "health", "id": unique("h"), "adminKey": admin_key})
    assert payload["ready"] is True
    assert payload["gateway"]["ready"] is True
    assert isinstance(payload["gateway"]["instance"], str)
    assert set(SERVICES) <= set(payload["gateway"]["connectedServices"])
    for name in SERVICES:
        entry = payload["services"][name]
        assert entry["ready"] is True, (name, entry)
        assert entry["health"]["service"] == name
        assert entry["health"]["ready"] is True
        assert "error" not in entry


def test_gateway_health(ready_stack, dealer, admin_key):
    # Anyone: readiness only. The admin key: the details.
    assert ready_stack["payload"] == {"ready": True}
    assert ok(dealer, {"type": "gateway.health", "id": unique("gw")}) == {"ready": True}
    payload = ok(dealer, {"type": "gateway.health", "id": unique("gw"), "adminKey": admin_key})
    assert payload["ready"] is True
    system = ok(dealer, {"type": "health", "id": unique("h"), "adminKey": admin_key})
    assert payload["instance"] == system["gateway"]["instance"]
    assert set(SERVICES) <= set(payload["connectedServices"])


@pytest.mark.parametrize("service", SERVICES)
def test_service_health_needs_no_credential_and_tells_only_readiness(ready_stack, dealer, service):
    envelope = call(dealer, {"type": f"{service}.health", "id": unique("sh")})
    assert envelope["type"] == "reply", envelope
    assert envelope["payload"] == {"ready": True}, "no instance ids, storage or stream positions without the admin key"


@pytest.mark.parametrize("service", SERVICES)
def test_service_health_details_with_the_admin_key(ready_stack, dealer, service, admin_key):
    request = {"type": f"{service}.health", "id": unique("sh"), "gameId": "dash", "playerId": "p-1",
               "adminKey": admin_key}
    envelope = call(dealer, request)
    assert envelope["type"] == "reply"
    # Replies that come from a service repeat the gameId and playerId the gateway forwarded.
    assert envelope["gameId"] == "dash" and envelope["playerId"] == "p-1"
    health = envelope["payload"]
    assert health["service"] == service
    assert health["ready"] is True
    assert isinstance(health["instance"], str) and health["instance"]
    assert isinstance(health["recentEventIds"], list)
    assert isinstance(health["eventsReceived"], int)
    assert isinstance(health["gapsDetected"], int)
    assert isinstance(health["subscriptions"], list)
    # Where the service keeps its data: a SQLite file, or a PostgreSQL schema (never the password).
    if os.environ.get("PODIUM_TEST_STORAGE") == "postgresql":
        assert health["storage"].startswith("postgresql://") and "@" in health["storage"]
        assert ":" not in health["storage"].split("://", 1)[1].split("@", 1)[0], "the password is shown"
    else:
        assert health["storage"].startswith("sqlite:")


def test_service_health_with_a_token_is_readiness_only(new_player, dealer):
    grant = new_player()
    envelope = call(dealer, {"type": "auth.health", "token": grant["sessionToken"]})
    assert envelope["type"] == "reply"
    assert envelope["payload"] == {"ready": True}, "a player is not an operator"


# ---------------------------------------------------------------------------------------------
# Events


def test_event_is_logged_acknowledged_and_applied_by_the_achievement_service(ready_stack, new_player, dealer,
                                                                             admin_key):
    grant = new_player()
    game_id = unique("game")
    acks = []
    for value in (1, 2):
        acks.append(
            ok(
                dealer,
                {
                    "type": "event.publish",
                    "id": unique("ev"),
                    "gameId": game_id,
                    "token": grant["sessionToken"],
                    "payload": {"name": "cactus.hit", "value": value, "attributes": {"lane": "left", "combo": 3}},
                },
            )
        )
    for ack in acks:
        assert ack["topic"] == f"event/{game_id}/cactus.hit"
        assert ack["publisher"] == "events"  # the event log's stream: sequences never restart
        assert isinstance(ack["sequence"], int) and ack["sequence"] >= 1
        assert isinstance(ack["acceptedAt"], int)
        assert isinstance(ack["eventId"], str) and ack["eventId"]
    assert acks[1]["sequence"] > acks[0]["sequence"]
    assert acks[0]["eventId"] != acks[1]["eventId"]

    # The achievement service follows the event log: it reaches the second event's position.
    deadline = time.monotonic() + DELIVERY_WAIT_SECONDS
    position = 0
    while time.monotonic() < deadline:
        health = ok(dealer, {"type": "achievement.health", "id": unique("sh"), "adminKey": admin_key})
        position = health["streams"]["events"]["position"]
        if position >= acks[1]["sequence"]:
            break
        time.sleep(0.2)
    assert position >= acks[1]["sequence"], f"the achievement service stopped at {position}"


def test_event_may_name_its_own_player_and_version_1(new_player, dealer):
    grant = new_player()
    ack = ok(
        dealer,
        {
            "type": "event.publish",
            "id": unique("v1"),
            "version": 1,
            "gameId": "dash",
            "playerId": grant["playerId"],
            "token": grant["sessionToken"],
            "payload": {"name": "match.end", "value": 9223372036854775807},
        },
    )
    assert ack["topic"] == "event/dash/match.end"


def test_event_needs_a_credential(ready_stack, dealer):
    error(
        dealer,
        {"type": "event.publish", "gameId": "dash", "playerId": "p-1", "payload": {"name": "cactus.hit"}},
        "unauthenticated",
        "token",
    )


def test_event_for_another_player_is_forbidden(new_player, dealer):
    mine, theirs = new_player(), new_player()
    error(
        dealer,
        {
            "type": "event.publish",
            "gameId": "dash",
            "playerId": theirs["playerId"],
            "token": mine["sessionToken"],
            "payload": {"name": "cactus.hit", "value": 1},
        },
        "forbidden",
        "playerId",
    )


# ---------------------------------------------------------------------------------------------
# Framing and pipelining


def test_pipelined_requests_are_matched_by_correlation_id(new_player, dealer, admin_key):
    grants = [new_player() for _ in range(3)]
    game_id = unique("pipe")
    requests = {}
    for i in range(200):
        request_id = f"pipe-{i}-{uuid.uuid4().hex[:6]}"
        grant = grants[i % len(grants)]
        kind = i % 5
        if kind == 0:
            request = {"type": "gateway.health", "id": request_id, "adminKey": admin_key}
        elif kind == 1:
            request = {
                "type": "event.publish",
                "id": request_id,
                "gameId": game_id,
                "token": grant["sessionToken"],
                "payload": {"name": f"step.n{i}", "value": i},
            }
        elif kind == 2:
            request = {"type": "notifications.subscribe", "id": request_id, "gameId": game_id, "token": grant["sessionToken"]}
        elif kind == 3:
            # Health details (with the admin key) say which service answered.
            request = {"type": f"{SERVICES[(i // 5) % 4]}.health", "id": request_id, "adminKey": admin_key}
        else:
            request = {"type": "health" if i % 50 == 4 else "leaderboard.health", "id": request_id,
                       "adminKey": admin_key}
        requests[request_id] = (request, grant)
    for request, _ in requests.values():
        dealer.send(encode(request))

    replies = {}
    while len(replies) < len(requests):
        envelope = receive_envelope(dealer)
        check_envelope(envelope)
        correlation_id = envelope.get("correlationId")
        assert correlation_id in requests, envelope
        assert correlation_id not in replies, f"two replies for {correlation_id}"
        replies[correlation_id] = envelope
    assert drain(dealer) == []

    for request_id, (request, grant) in requests.items():
        envelope = replies[request_id]
        assert envelope["type"] == "reply", envelope
        payload = envelope["payload"]
        kind = request["type"]
        if kind == "gateway.health":
            assert payload["ready"] is True and "connectedServices" in payload
        elif kind == "event.publish":
            assert payload["topic"] == f"event/{game_id}/{request['payload']['name']}"
        elif kind == "notifications.subscribe":
            assert payload["playerId"] == grant["playerId"]
            assert PLAYER_TOPIC.match(payload["topic"])
        elif kind == "health":
            assert set(SERVICES) <= set(payload["services"])
        else:
            assert payload["service"] == kind.split(".")[0]


def test_req_socket_framing(ready_stack, sockets, admin_key):
    req = sockets(zmq.REQ)
    for i in range(3):
        request_id = unique(f"req{i}")
        req.send(encode({"type": "gateway.health", "id": request_id}))
        envelope = receive_envelope(req)
        assert envelope["type"] == "reply"
        assert envelope["correlationId"] == request_id

    request_id = unique("req-forwarded")
    req.send(encode({"type": "auth.health", "id": request_id, "adminKey": admin_key}))
    envelope = receive_envelope(req)
    assert envelope["correlationId"] == request_id
    assert envelope["payload"]["service"] == "auth"

    # Errors mirror the delimiter too.
    req.send(b"not json at all")
    envelope = receive_envelope(req)
    assert envelope["type"] == "error"
    assert envelope["payload"]["code"] == "malformed_json"

    request_id = unique("req-after")
    req.send(encode({"type": "gateway.health", "id": request_id}))
    assert receive_envelope(req)["correlationId"] == request_id


def test_dealer_with_empty_delimiter_gets_it_back(ready_stack, dealer):
    request_id = unique("delim")
    dealer.send_multipart([b"", encode({"type": "gateway.health", "id": request_id})])
    frames = receive(dealer)
    assert len(frames) == 2 and frames[0] == b""
    envelope = json.loads(frames[1])
    assert envelope["type"] == "reply" and envelope["correlationId"] == request_id


# ---------------------------------------------------------------------------------------------
# Notifications


def test_subscribe_needs_the_players_own_token(new_player, dealer):
    mine, theirs = new_player(), new_player()
    game_id = unique("game")
    error(dealer, {"type": "notifications.subscribe", "gameId": game_id, "playerId": mine["playerId"]}, "unauthenticated")
    error(
        dealer,
        {"type": "notifications.subscribe", "gameId": game_id, "playerId": theirs["playerId"], "token": mine["sessionToken"]},
        "forbidden",
        "playerId",
    )
    error(dealer, {"type": "notifications.subscribe", "token": mine["sessionToken"]}, "missing_field", "gameId")
    topic = subscription_topic(dealer, game_id, mine)
    # Naming yourself is the same as leaving playerId out; the topic is stable.
    same = ok(
        dealer,
        {"type": "notifications.subscribe", "gameId": game_id, "playerId": mine["playerId"], "token": mine["sessionToken"]},
    )
    assert same["topic"] == topic
    assert subscription_topic(dealer, game_id, theirs) != topic
    assert subscription_topic(dealer, unique("other-game"), mine) != topic


def test_notification_reaches_only_its_player(new_player, sockets, dealer):
    right, other = new_player(), new_player()
    game_id = unique("game")
    right_topic = subscription_topic(dealer, game_id, right)
    other_topic = subscription_topic(dealer, game_id, other)
    assert right_topic != other_topic

    # The wrong subscribers connect first, so they are in place before anything is sent.
    other_sub = sockets(zmq.SUB, subscribe=other_topic)
    prefix_sub = sockets(zmq.SUB, subscribe="player/")
    operator_prefix_sub = sockets(zmq.SUB, subscribe="operator/")
    everything_sub = sockets(zmq.SUB, subscribe="")
    right_sub = sockets(zmq.SUB, subscribe=right_topic)

    # Positive control: the other player's subscriber works.
    warm_up(dealer, other_sub, other_topic, game_id, other)

    # The right subscriber receives its player's notification...
    first = warm_up(dealer, right_sub, right_topic, game_id, right)
    assert first["payload"]["kind"] == "diagnostic.test"
    assert first["payload"]["details"]["service"] == "challenge"

    # ...and a second one, which also flushes anything still in flight before the checks below.
    message = "second ✓ héllo"
    second_id = request_test_notification(dealer, "challenge", game_id, right, message)
    second, _ = wait_for_notification(right_sub, right_topic, {second_id}, game_id, right["playerId"])
    assert second["payload"]["message"] == message
    assert second["payload"]["kind"] == "diagnostic.test"

    for frames in drain(right_sub):
        envelope = json.loads(frames[1])
        assert frames[0].decode() == right_topic and envelope["playerId"] == right["playerId"]
    for frames in drain(other_sub):
        assert frames[0].decode() == other_topic
        envelope = json.loads(frames[1])
        assert envelope["playerId"] == other["playerId"]
        assert envelope.get("correlationId") != second_id
    assert drain(prefix_sub) == [], "a prefix subscription must receive nothing"
    assert drain(operator_prefix_sub) == [], "a prefix subscription must receive nothing"
    assert drain(everything_sub) == [], "an empty subscription must receive nothing"


def test_every_service_can_send_a_test_notification(new_player, sockets, dealer):
    grant = new_player()
    game_id = unique("game")
    topic = subscription_topic(dealer, game_id, grant)
    sub = sockets(zmq.SUB, subscribe=topic)
    warm_up(dealer, sub, topic, game_id, grant)
    for service in SERVICES:
        request_id = request_test_notification(dealer, service, game_id, grant, f"from {service}")
        envelope, _ = wait_for_notification(sub, topic, {request_id}, game_id, grant["playerId"])
        assert envelope["payload"]["details"]["service"] == service
        assert envelope["payload"]["message"] == f"from {service}"


def test_test_notification_rules(new_player, dealer):
    mine, theirs = new_player(), new_player()
    error(dealer, {"type": "challenge.test-notification", "gameId": "dash", "playerId": "p-1"}, "unauthenticated", "token")
    error(
        dealer,
        {"type": "challenge.test-notification", "gameId": "dash", "playerId": theirs["playerId"], "token": mine["sessionToken"]},
        "forbidden",
        "playerId",
    )
    error(dealer, {"type": "challenge.test-notification", "token": mine["sessionToken"]}, "missing_field", "gameId")
    error(
        dealer,
        {"type": "challenge.test-notification", "gameId": "dash", "token": mine["sessionToken"], "payload": {"message": "x" * 513}},
        "invalid_field",
        "payload.message",
    )


# ---------------------------------------------------------------------------------------------
# Malformed input: each case gets its documented error, then the gateway still answers health.


def oversized_request(_token):
    request = {"type": "gateway.health", "id": "too-big", "payload": {"padding": ""}}
    request["payload"]["padding"] = "x" * (MAX_MESSAGE_BYTES + 1 - len(encode(request)))
    body = encode(request)
    assert len(body) == MAX_MESSAGE_BYTES + 1
    return [body]


def raw(*frames):
    return lambda _token: list(frames)


def anonymous(request):
    return lambda _token: [encode(request)]


def with_token(request):
    return lambda token: [encode(dict(request, token=token))]


def event(**overrides):
    """An event.publish with the test player's token, changed by `overrides` (None removes a field)."""

    def build(token):
        request = {"type": "event.publish", "id": "ev-bad", "gameId": "dash", "token": token, "payload": {"name": "cactus.hit", "value": 1}}
        request.update(overrides)
        return [encode({key: value for key, value in request.items() if value is not None})]

    return build


MALFORMED = [
    # (case, frames(token) sent by the DEALER, code, field or None, correlationId or None)
    ("not JSON", raw(b"this is not json"), "malformed_json", None, None),
    ("empty frame", raw(b""), "malformed_json", None, None),
    ("trailing garbage", raw(b'{"type":"health","id":"tg"} x'), "malformed_json", None, None),
    ("invalid UTF-8", raw(b'{"type":"gateway.health","id":"u8","payload":{"text":"\xff\xfe"}}'), "malformed_json", None, None),
    ("JSON array", raw(b"[1, 2, 3]"), "invalid_shape", None, None),
    ("JSON number", raw(b"42"), "invalid_shape", None, None),
    ("JSON string", raw(b'"health"'), "invalid_shape", None, None),
    ("JSON null", raw(b"null"), "invalid_shape", None, None),
    ("missing id", anonymous({"type": "health"}), "missing_field", "id", None),
    ("null id", anonymous({"type": "health", "id": None}), "missing_field", "id", None),
    ("id not a string", anonymous({"type": "health", "id": 7}), "invalid_shape", "id", None),
    ("id with a space", anonymous({"type": "health", "id": "a b"}), "invalid_field", "id", None),
    ("id too long", anonymous({"type": "health", "id": "i" * 129}), "invalid_field", "id", None),
    ("missing type", anonymous({"id": "no-type"}), "missing_field", "type", "no-type"),
    ("type not a string", anonymous({"id": "type-num", "type": 5}), "invalid_shape", "type", "type-num"),
    ("empty type", anonymous({"id": "type-empty", "type": ""}), "invalid_field", "type", "type-empty"),
    ("unknown type without credential", anonymous({"id": "unknown", "type": "no.such.type"}), "unauthenticated", "token", "unknown"),
    ("unknown type", with_token({"id": "unknown", "type": "no.such.type"}), "unknown_type", "type", "unknown"),
    ("version not an integer", anonymous({"id": "v-str", "type": "gateway.health", "version": "1"}), "invalid_shape", "version", "v-str"),
    ("version 0", anonymous({"id": "v-0", "type": "gateway.health", "version": 0}), "invalid_field", "version", "v-0"),
    ("unsupported version", anonymous({"id": "v-2", "type": "gateway.health", "version": 2}), "unsupported_version", "version", "v-2"),
    ("gameId not a string", anonymous({"id": "g-num", "type": "gateway.health", "gameId": 1}), "invalid_shape", "gameId", "g-num"),
    ("bad gameId", anonymous({"id": "g-bad", "type": "gateway.health", "gameId": "a/b"}), "invalid_field", "gameId", "g-bad"),
    ("playerId not a string", anonymous({"id": "p-num", "type": "gateway.health", "playerId": ["p"]}), "invalid_shape", "playerId", "p-num"),
    ("token not a string", anonymous({"id": "t-num", "type": "gateway.health", "token": 5}), "invalid_shape", "token", "t-num"),
    ("empty token", anonymous({"id": "t-empty", "type": "gateway.health", "token": ""}), "invalid_field", "token", "t-empty"),
    ("token too long", anonymous({"id": "t-long", "type": "gateway.health", "token": "t" * 4097}), "invalid_field", "token", "t-long"),
    ("two credentials", with_token({"id": "two-cred", "type": "gateway.health", "adminKey": "k" * 40}), "invalid_field", "token", "two-cred"),
    ("garbage token", anonymous({"id": "t-bad", "type": "auth.profile", "token": "not-a-token"}), "invalid_token", "token", "t-bad"),
    ("payload not an object", anonymous({"id": "pl-arr", "type": "gateway.health", "payload": [1]}), "invalid_shape", "payload", "pl-arr"),
    ("event without credential", event(token=None), "unauthenticated", "token", "ev-bad"),
    ("event without gameId", event(gameId=None), "missing_field", "gameId", "ev-bad"),
    ("event without payload", event(payload=None), "missing_field", "payload.name", "ev-bad"),
    ("event without name", event(payload={"value": 3}), "missing_field", "payload.name", "ev-bad"),
    ("event name not a string", event(payload={"name": 3}), "invalid_shape", "payload.name", "ev-bad"),
    ("event name with capitals", event(payload={"name": "Cactus.Hit"}), "invalid_field", "payload.name", "ev-bad"),
    ("event name starting with a digit", event(payload={"name": "1up"}), "invalid_field", "payload.name", "ev-bad"),
    ("event name with a space", event(payload={"name": "cactus hit"}), "invalid_field", "payload.name", "ev-bad"),
    ("event name too long", event(payload={"name": "a" * 65}), "invalid_field", "payload.name", "ev-bad"),
    ("event value not an integer", event(payload={"name": "a", "value": "12"}), "invalid_shape", "payload.value", "ev-bad"),
    ("event attributes not an object", event(payload={"name": "a", "attributes": [1]}), "invalid_shape", "payload.attributes", "ev-bad"),
    ("nested attribute", event(payload={"name": "a", "attributes": {"k": {"n": 1}}}), "invalid_field", "payload.attributes.k", "ev-bad"),
    ("too many attributes", event(payload={"name": "a", "attributes": {f"k{i}": i for i in range(33)}}), "invalid_field", "payload.attributes", "ev-bad"),
    ("attribute string too long", event(payload={"name": "a", "attributes": {"k": "s" * 257}}), "invalid_field", "payload.attributes.k", "ev-bad"),
    ("subscribe without gameId", with_token({"id": "sub-ng", "type": "notifications.subscribe"}), "missing_field", "gameId", "sub-ng"),
    ("oversized request", oversized_request, "message_too_large", None, None),
    ("three frames from a DEALER", raw(b"one", b"two", b"three"), "wrong_frame_count", None, None),
    ("two frames from a DEALER", raw(encode({"type": "health", "id": "two"}), b"extra"), "wrong_frame_count", None, None),
]


@pytest.fixture(scope="module")
def malformed_token(ready_stack, context, endpoints):
    """One player's session token, shared by the malformed cases that need a valid credential."""
    dealer = context.socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    dealer.connect(endpoints["requests"])
    try:
        return register(dealer)["sessionToken"]
    finally:
        dealer.close(linger=0)


@pytest.mark.parametrize(
    "frames, code, field, correlation_id", [case[1:] for case in MALFORMED], ids=[case[0] for case in MALFORMED]
)
def test_malformed_request_gets_documented_error(malformed_token, dealer, frames, code, field, correlation_id):
    dealer.send_multipart(frames(malformed_token))
    envelope = receive_envelope(dealer)
    check_envelope(envelope)
    assert envelope["type"] == "error", envelope
    assert envelope["payload"]["code"] == code, envelope
    if field is not None:
        assert envelope["payload"].get("field") == field, envelope
    assert envelope.get("correlationId") == correlation_id, envelope
    assert drain(dealer) == [], "exactly one reply per request"

    # The gateway still answers on the same connection.
    health = ok(dealer, {"type": "health", "id": unique("after")})
    assert health["ready"] is True


def test_request_at_the_size_limit_is_accepted(ready_stack, dealer):
    request = {"type": "gateway.health", "id": unique("at-limit"), "payload": {"padding": ""}}
    request["payload"]["padding"] = "x" * (MAX_MESSAGE_BYTES - len(encode(request)))
    body = encode(request)
    assert len(body) == MAX_MESSAGE_BYTES
    dealer.send(body)
    envelope = receive_envelope(dealer)
    assert envelope["type"] == "reply" and envelope["correlationId"] == request["id"]


def test_frame_above_hard_limit_is_dropped_without_reply(ready_stack, dealer):
    dealer.send(b"x" * ((1 << 20) + 1))
    # The connection is dropped and the DEALER reconnects; ask until the gateway answers again.
    sent = set()
    deadline = time.monotonic() + DELIVERY_WAIT_SECONDS
    answered = None
    while answered is None and time.monotonic() < deadline:
        request_id = unique("after-hard")
        sent.add(request_id)
        dealer.send(encode({"type": "gateway.health", "id": request_id}))
        if dealer.poll(1000):
            answered = json.loads(dealer.recv())
    assert answered is not None, "the gateway did not answer after the oversized frame"
    for envelope in [answered] + [json.loads(frames[0]) for frames in drain(dealer)]:
        # Only health replies: the oversized frame got no reply at all.
        assert envelope["type"] == "reply", envelope
        assert envelope["correlationId"] in sent
