"""Black-box tests of the Podium wire protocol, written from docs/PROTOCOL.md alone.

They use only pyzmq and the standard library, and start nothing: the stack (gateway and the
four services) must already be running. Endpoints come from the environment:

    PODIUM_TEST_REQUESTS       default tcp://127.0.0.1:5555  (gateway ROUTER; DEALER or REQ)
    PODIUM_TEST_NOTIFICATIONS  default tcp://127.0.0.1:5556  (gateway XPUB; SUB)

Waits are bounded so that a broken stack fails instead of hanging; no test asserts how long
anything takes.
"""

import json
import os
import re
import time
import uuid

import pytest
import zmq

SERVICES = ("auth", "leaderboard", "achievement", "challenge")
PLAYER_TOPIC = re.compile(r"^player/[0-9a-f]{64}$")
MAX_MESSAGE_BYTES = 65536

# Upper bounds on waiting, so that a failure is reported instead of a hang. Not assertions.
READY_WAIT_SECONDS = 20.0
REPLY_WAIT_SECONDS = 15.0  # above the default 5 s service timeout: every request is answered by then
DELIVERY_WAIT_SECONDS = 15.0


def unique(prefix):
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


# ---------------------------------------------------------------------------------------------
# Fixtures


@pytest.fixture(scope="session")
def endpoints():
    return {
        "requests": os.environ.get("PODIUM_TEST_REQUESTS", "tcp://127.0.0.1:5555"),
        "notifications": os.environ.get("PODIUM_TEST_NOTIFICATIONS", "tcp://127.0.0.1:5556"),
    }


@pytest.fixture(scope="session")
def context():
    ctx = zmq.Context()
    yield ctx
    ctx.destroy(linger=0)


@pytest.fixture
def sockets(context, endpoints):
    """Makes connected sockets; every one is closed with linger 0 when the test ends."""
    made = []

    def make(kind, subscribe=None):
        sock = context.socket(kind)
        sock.setsockopt(zmq.LINGER, 0)
        made.append(sock)
        if kind == zmq.SUB:
            sock.connect(endpoints["notifications"])
            sock.setsockopt(zmq.SUBSCRIBE, subscribe.encode("utf-8"))
        else:
            sock.connect(endpoints["requests"])
        return sock

    yield make
    for sock in made:
        sock.close(linger=0)


@pytest.fixture(scope="session")
def ready_stack(context, endpoints):
    """Polls `health` until the gateway and every service are ready; returns that reply."""
    dealer = context.socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    dealer.connect(endpoints["requests"])
    last = None
    try:
        deadline = time.monotonic() + READY_WAIT_SECONDS
        while time.monotonic() < deadline:
            request_id = unique("ready")
            dealer.send(encode({"type": "health", "id": request_id}))
            answer_deadline = min(deadline, time.monotonic() + 3.0)
            while time.monotonic() < answer_deadline:
                if not dealer.poll(100):
                    continue
                envelope = json.loads(dealer.recv())
                if envelope.get("correlationId") != request_id:
                    continue  # an answer to an earlier attempt
                last = envelope
                if envelope["type"] == "reply" and envelope["payload"]["ready"]:
                    return envelope
                break
            time.sleep(0.5)
    finally:
        dealer.close(linger=0)
    pytest.fail(f"the stack did not report ready within {READY_WAIT_SECONDS} s; last health answer: {last}")


# ---------------------------------------------------------------------------------------------
# Helpers


def encode(obj):
    return json.dumps(obj, ensure_ascii=False).encode("utf-8")


def receive(sock, wait=REPLY_WAIT_SECONDS):
    """The next message's frames, or a test failure if none comes within the bound."""
    if not sock.poll(int(wait * 1000)):
        pytest.fail("no message arrived")
    return sock.recv_multipart()


def receive_envelope(sock, wait=REPLY_WAIT_SECONDS):
    frames = receive(sock, wait)
    assert len(frames) == 1, f"a reply is one frame, got {len(frames)}"
    return json.loads(frames[0].decode("utf-8"))


def call(dealer, request, wait=REPLY_WAIT_SECONDS):
    """Sends one request object on a DEALER and returns the envelope whose correlationId is its id."""
    dealer.send(encode(request))
    deadline = time.monotonic() + wait
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            pytest.fail(f"no reply to {request['type']} {request['id']}")
        envelope = receive_envelope(dealer, remaining)
        if envelope.get("correlationId") == request["id"]:
            check_envelope(envelope)
            return envelope


def ok(dealer, request):
    envelope = call(dealer, request)
    assert envelope["type"] == "reply", envelope
    return envelope["payload"]


def check_envelope(envelope):
    assert envelope["type"] in ("reply", "error")
    assert envelope["version"] == 1
    assert isinstance(envelope["id"], str) and envelope["id"]
    assert isinstance(envelope["timestamp"], int) and envelope["timestamp"] > 0
    assert isinstance(envelope["payload"], (dict, type(None)))
    if envelope["type"] == "error":
        assert isinstance(envelope["payload"]["code"], str)
        assert isinstance(envelope["payload"]["message"], str)


def subscription_topic(dealer, game_id, player_id):
    payload = ok(
        dealer,
        {"type": "notifications.subscribe", "id": unique("sub"), "gameId": game_id, "playerId": player_id},
    )
    assert payload["gameId"] == game_id and payload["playerId"] == player_id
    assert PLAYER_TOPIC.match(payload["topic"]), payload["topic"]
    return payload["topic"]


def request_test_notification(dealer, service, game_id, player_id, message):
    """Asks `service` for a test notification; returns the request id (the notification's correlationId)."""
    request_id = unique(f"tn-{service}")
    receipt = ok(
        dealer,
        {
            "type": f"{service}.test-notification",
            "id": request_id,
            "gameId": game_id,
            "playerId": player_id,
            "payload": {"message": message},
        },
    )
    assert receipt["topic"] == f"notify/{game_id}/{player_id}"
    assert isinstance(receipt["notificationId"], str) and receipt["notificationId"]
    return request_id




def read_notification(sub, topic):
    """Receives one notification message and checks its framing and envelope."""
    frames = receive(sub, DELIVERY_WAIT_SECONDS)
    assert len(frames) == 2, f"a notification is [topic, envelope], got {len(frames)} frames"
    assert frames[0].decode("utf-8") == topic
    envelope = json.loads(frames[1].decode("utf-8"))
    assert envelope["type"] == "notification"
    assert envelope["version"] == 1
    assert isinstance(envelope["publisher"], str) and envelope["publisher"]
    assert isinstance(envelope["sequence"], int) and envelope["sequence"] >= 1
    assert set(envelope["payload"]) >= {"kind", "message", "details"}
    return envelope


def wait_for_notification(sub, topic, correlation_ids, game_id, player_id):
    """Reads notifications until one answers a request in `correlation_ids`; checks all it reads."""
    deadline = time.monotonic() + DELIVERY_WAIT_SECONDS
    seen = []
    while time.monotonic() < deadline:
        if not sub.poll(100):
            continue
        envelope = read_notification(sub, topic)
        assert envelope["gameId"] == game_id and envelope["playerId"] == player_id, envelope
        seen.append(envelope)
        if envelope.get("correlationId") in correlation_ids:
            return envelope, seen
    pytest.fail(f"no notification for {correlation_ids} arrived on {topic}")


def warm_up(dealer, sub, topic, game_id, player_id, service="challenge"):
    """Subscriptions are not confirmed: sends test notifications until one reaches `sub`."""
    sent = {}
    deadline = time.monotonic() + DELIVERY_WAIT_SECONDS
    while time.monotonic() < deadline:
        message = unique("warm-up")
        sent[request_test_notification(dealer, service, game_id, player_id, message)] = message
        if sub.poll(500):
            envelope, _ = wait_for_notification(sub, topic, set(sent), game_id, player_id)
            assert envelope["payload"]["message"] == sent[envelope["correlationId"]]
            return envelope
    pytest.fail(f"no notification reached the subscriber of {topic}")


def drain(sub):
    """Everything already queued on a socket, without waiting."""
    messages = []
    while sub.poll(0):
        messages.append(sub.recv_multipart(zmq.NOBLOCK))
    return messages


# ---------------------------------------------------------------------------------------------
# Health


def test_health_reports_every_service_ready(ready_stack):
    payload = ready_stack["payload"]
    assert ready_stack["type"] == "reply"
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


def test_gateway_health(ready_stack, sockets):
    dealer = sockets(zmq.DEALER)
    payload = ok(dealer, {"type": "gateway.health", "id": unique("gw")})
    assert payload["ready"] is True
    assert payload["instance"] == ready_stack["payload"]["gateway"]["instance"]
    assert set(SERVICES) <= set(payload["connectedServices"])


@pytest.mark.parametrize("service", SERVICES)
def test_service_health(ready_stack, sockets, service):
    dealer = sockets(zmq.DEALER)
    request = {"type": f"{service}.health", "id": unique("sh"), "gameId": "dash", "playerId": "p-1"}
    envelope = call(dealer, request)
    assert envelope["type"] == "reply"
    # Replies that come from a service echo the request's gameId and playerId.
    assert envelope["gameId"] == "dash" and envelope["playerId"] == "p-1"
    health = envelope["payload"]
    assert health["service"] == service
    assert health["ready"] is True
    assert isinstance(health["instance"], str) and health["instance"]
    assert isinstance(health["recentEventIds"], list)
    assert isinstance(health["eventsReceived"], int)
    assert isinstance(health["gapsDetected"], int)
    assert "event/" in health["subscriptions"]


# ---------------------------------------------------------------------------------------------
# Events


def test_event_is_acknowledged_and_reaches_every_service(ready_stack, sockets):
    dealer = sockets(zmq.DEALER)
    game_id = unique("game")
    gateway_instance = ready_stack["payload"]["gateway"]["instance"]
    acks = []
    for value in (1, 2):
        acks.append(
            ok(
                dealer,
                {
                    "type": "event.publish",
                    "id": unique("ev"),
                    "gameId": game_id,
                    "playerId": "player-1",
                    "payload": {"name": "cactus.hit", "value": value, "attributes": {"lane": "left", "combo": 3}},
                },
            )
        )
    for ack in acks:
        assert ack["topic"] == f"event/{game_id}/cactus.hit"
        assert ack["publisher"] == gateway_instance
        assert isinstance(ack["sequence"], int) and ack["sequence"] >= 1
        assert isinstance(ack["eventId"], str) and ack["eventId"]
    assert acks[1]["sequence"] > acks[0]["sequence"]
    assert acks[0]["eventId"] != acks[1]["eventId"]

    event_id = acks[1]["eventId"]
    missing = set(SERVICES)
    deadline = time.monotonic() + DELIVERY_WAIT_SECONDS
    while missing and time.monotonic() < deadline:
        for service in sorted(missing):
            health = ok(dealer, {"type": f"{service}.health", "id": unique("sh")})
            if event_id in health["recentEventIds"]:
                missing.discard(service)
        if missing:
            time.sleep(0.2)
    assert not missing, f"event {event_id} never appeared in recentEventIds of {sorted(missing)}"


def test_explicit_version_1_is_accepted(ready_stack, sockets):
    dealer = sockets(zmq.DEALER)
    ack = ok(
        dealer,
        {
            "type": "event.publish",
            "id": unique("v1"),
            "version": 1,
            "gameId": "dash",
            "playerId": "p-1",
            "payload": {"name": "match.end", "value": 9223372036854775807},
        },
    )
    assert ack["topic"] == "event/dash/match.end"


# ---------------------------------------------------------------------------------------------
# Framing and pipelining


def test_pipelined_requests_are_matched_by_correlation_id(ready_stack, sockets):
    dealer = sockets(zmq.DEALER)
    game_id = unique("pipe")
    requests = {}
    for i in range(200):
        request_id = f"pipe-{i}-{uuid.uuid4().hex[:6]}"
        kind = i % 5
        if kind == 0:
            request = {"type": "gateway.health", "id": request_id}
        elif kind == 1:
            request = {
                "type": "event.publish",
                "id": request_id,
                "gameId": game_id,
                "playerId": f"p{i}",
                "payload": {"name": f"step.n{i}", "value": i},
            }
        elif kind == 2:
            request = {"type": "notifications.subscribe", "id": request_id, "gameId": game_id, "playerId": f"p{i}"}
        elif kind == 3:
            request = {"type": f"{SERVICES[(i // 5) % 4]}.health", "id": request_id}
        else:
            request = {"type": "health" if i % 50 == 4 else "leaderboard.health", "id": request_id}
        requests[request_id] = request
    for request in requests.values():
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

    for request_id, request in requests.items():
        envelope = replies[request_id]
        assert envelope["type"] == "reply", envelope
        payload = envelope["payload"]
        kind = request["type"]
        if kind == "gateway.health":
            assert payload["ready"] is True and "connectedServices" in payload
        elif kind == "event.publish":
            assert payload["topic"] == f"event/{game_id}/{request['payload']['name']}"
        elif kind == "notifications.subscribe":
            assert payload["playerId"] == request["playerId"]
            assert PLAYER_TOPIC.match(payload["topic"])
        elif kind == "health":
            assert set(SERVICES) <= set(payload["services"])
        else:
            assert payload["service"] == kind.split(".")[0]


def test_req_socket_framing(ready_stack, sockets):
    req = sockets(zmq.REQ)
    for i in range(3):
        request_id = unique(f"req{i}")
        req.send(encode({"type": "gateway.health", "id": request_id}))
        envelope = receive_envelope(req)
        assert envelope["type"] == "reply"
        assert envelope["correlationId"] == request_id

    request_id = unique("req-forwarded")
    req.send(encode({"type": "auth.health", "id": request_id}))
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


def test_dealer_with_empty_delimiter_gets_it_back(ready_stack, sockets):
    dealer = sockets(zmq.DEALER)
    request_id = unique("delim")
    dealer.send_multipart([b"", encode({"type": "gateway.health", "id": request_id})])
    frames = receive(dealer)
    assert len(frames) == 2 and frames[0] == b""
    envelope = json.loads(frames[1])
    assert envelope["type"] == "reply" and envelope["correlationId"] == request_id


# ---------------------------------------------------------------------------------------------
# Notifications


def test_notification_reaches_only_its_player(ready_stack, sockets):
    dealer = sockets(zmq.DEALER)
    game_id = unique("game")
    right_player, other_player = unique("right"), unique("other")
    right_topic = subscription_topic(dealer, game_id, right_player)
    other_topic = subscription_topic(dealer, game_id, other_player)
    assert right_topic != other_topic
    assert subscription_topic(dealer, game_id, right_player) == right_topic  # stable

    # The wrong subscribers connect first, so they are in place before anything is sent.
    other_sub = sockets(zmq.SUB, subscribe=other_topic)
    prefix_sub = sockets(zmq.SUB, subscribe="player/")
    everything_sub = sockets(zmq.SUB, subscribe="")
    right_sub = sockets(zmq.SUB, subscribe=right_topic)

    # Positive control: the other player's subscriber works.
    warm_up(dealer, other_sub, other_topic, game_id, other_player)

    # The right subscriber receives its player's notification...
    first = warm_up(dealer, right_sub, right_topic, game_id, right_player)
    assert first["payload"]["kind"] == "diagnostic.test"
    assert first["payload"]["details"]["service"] == "challenge"

    # ...and a second one, which also flushes anything still in flight before the checks below.
    message = "second ✓ héllo"
    second_id = request_test_notification(dealer, "challenge", game_id, right_player, message)
    second, _ = wait_for_notification(right_sub, right_topic, {second_id}, game_id, right_player)
    assert second["payload"]["message"] == message
    assert second["payload"]["kind"] == "diagnostic.test"

    for frames in drain(right_sub):
        envelope = json.loads(frames[1])
        assert frames[0].decode() == right_topic and envelope["playerId"] == right_player
    for frames in drain(other_sub):
        assert frames[0].decode() == other_topic
        assert json.loads(frames[1])["playerId"] == other_player
    assert drain(prefix_sub) == [], "a prefix subscription must receive nothing"
    assert drain(everything_sub) == [], "an empty subscription must receive nothing"


def test_every_service_can_send_a_test_notification(ready_stack, sockets):
    dealer = sockets(zmq.DEALER)
    game_id, player_id = unique("game"), unique("player")
    topic = subscription_topic(dealer, game_id, player_id)
    sub = sockets(zmq.SUB, subscribe=topic)
    warm_up(dealer, sub, topic, game_id, player_id)
    for service in SERVICES:
        request_id = request_test_notification(dealer, service, game_id, player_id, f"from {service}")
        envelope, _ = wait_for_notification(sub, topic, {request_id}, game_id, player_id)
        assert envelope["payload"]["details"]["service"] == service
        assert envelope["payload"]["message"] == f"from {service}"


def test_test_notification_needs_game_and_player(ready_stack, sockets):
    dealer = sockets(zmq.DEALER)
    envelope = call(dealer, {"type": "challenge.test-notification", "id": unique("tn"), "playerId": "p-1"})
    assert envelope["type"] == "error"
    assert envelope["payload"]["code"] == "missing_field"
    assert envelope["payload"]["field"] == "gameId"

    envelope = call(
        dealer,
        {
            "type": "challenge.test-notification",
            "id": unique("tn"),
            "gameId": "dash",
            "playerId": "p-1",
            "payload": {"message": "x" * 513},
        },
    )
    assert envelope["type"] == "error"
    assert envelope["payload"]["code"] == "invalid_field"
    assert envelope["payload"]["field"] == "payload.message"


# ---------------------------------------------------------------------------------------------
# Malformed input: each case gets its documented error, then the gateway still answers health.


def oversized_request():
    request = {"type": "gateway.health", "id": "too-big", "payload": {"padding": ""}}
    request["payload"]["padding"] = "x" * (MAX_MESSAGE_BYTES + 1 - len(encode(request)))
    body = encode(request)
    assert len(body) == MAX_MESSAGE_BYTES + 1
    return [body]


def event(**overrides):
    request = {
        "type": "event.publish",
        "id": "ev-bad",
        "gameId": "dash",
        "playerId": "p-1",
        "payload": {"name": "cactus.hit", "value": 1},
    }
    request.update(overrides)
    return [encode(request)]


MALFORMED = [
    # (case, frames sent by the DEALER, code, field or None, correlationId or None)
    ("not JSON", [b"this is not json"], "malformed_json", None, None),
    ("empty frame", [b""], "malformed_json", None, None),
    ("trailing garbage", [b'{"type":"health","id":"tg"} x'], "malformed_json", None, None),
    ("invalid UTF-8", [b'{"type":"gateway.health","id":"u8","payload":{"text":"\xff\xfe"}}'], "malformed_json", None, None),
    ("JSON array", [b"[1, 2, 3]"], "invalid_shape", None, None),
    ("JSON number", [b"42"], "invalid_shape", None, None),
    ("JSON string", [b'"health"'], "invalid_shape", None, None),
    ("JSON null", [b"null"], "invalid_shape", None, None),
    ("missing id", [encode({"type": "health"})], "missing_field", "id", None),
    ("null id", [encode({"type": "health", "id": None})], "missing_field", "id", None),
    ("id not a string", [encode({"type": "health", "id": 7})], "invalid_shape", "id", None),
    ("id with a space", [encode({"type": "health", "id": "a b"})], "invalid_field", "id", None),
    ("id too long", [encode({"type": "health", "id": "i" * 129})], "invalid_field", "id", None),
    ("missing type", [encode({"id": "no-type"})], "missing_field", "type", "no-type"),
    ("type not a string", [encode({"id": "type-num", "type": 5})], "invalid_shape", "type", "type-num"),
    ("empty type", [encode({"id": "type-empty", "type": ""})], "invalid_field", "type", "type-empty"),
    ("unknown type", [encode({"id": "unknown", "type": "no.such.type"})], "unknown_type", "type", "unknown"),
    ("version not an integer", [encode({"id": "v-str", "type": "gateway.health", "version": "1"})], "invalid_shape", "version", "v-str"),
    ("version 0", [encode({"id": "v-0", "type": "gateway.health", "version": 0})], "invalid_field", "version", "v-0"),
    ("unsupported version", [encode({"id": "v-2", "type": "gateway.health", "version": 2})], "unsupported_version", "version", "v-2"),
    ("gameId not a string", [encode({"id": "g-num", "type": "gateway.health", "gameId": 1})], "invalid_shape", "gameId", "g-num"),
    ("bad gameId", [encode({"id": "g-bad", "type": "gateway.health", "gameId": "a/b"})], "invalid_field", "gameId", "g-bad"),
    ("playerId not a string", [encode({"id": "p-num", "type": "gateway.health", "playerId": ["p"]})], "invalid_shape", "playerId", "p-num"),
    ("payload not an object", [encode({"id": "pl-arr", "type": "gateway.health", "payload": [1]})], "invalid_shape", "payload", "pl-arr"),
    ("event without gameId", event(gameId=None), "missing_field", "gameId", "ev-bad"),
    ("event without playerId", event(playerId=None), "missing_field", "playerId", "ev-bad"),
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
    ("subscribe without playerId", [encode({"id": "sub-np", "type": "notifications.subscribe", "gameId": "dash"})], "missing_field", "playerId", "sub-np"),
    ("oversized request", oversized_request(), "message_too_large", None, None),
    ("three frames from a DEALER", [b"one", b"two", b"three"], "wrong_frame_count", None, None),
    ("two frames from a DEALER", [encode({"type": "health", "id": "two"}), b"extra"], "wrong_frame_count", None, None),
]


@pytest.mark.parametrize(
    "frames, code, field, correlation_id", [case[1:] for case in MALFORMED], ids=[case[0] for case in MALFORMED]
)
def test_malformed_request_gets_documented_error(ready_stack, sockets, frames, code, field, correlation_id):
    dealer = sockets(zmq.DEALER)
    dealer.send_multipart(frames)
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
    assert health["gateway"]["ready"] is True


def test_request_at_the_size_limit_is_accepted(ready_stack, sockets):
    dealer = sockets(zmq.DEALER)
    request = {"type": "gateway.health", "id": unique("at-limit"), "payload": {"padding": ""}}
    request["payload"]["padding"] = "x" * (MAX_MESSAGE_BYTES - len(encode(request)))
    body = encode(request)
    assert len(body) == MAX_MESSAGE_BYTES
    dealer.send(body)
    envelope = receive_envelope(dealer)
    assert envelope["type"] == "reply" and envelope["correlationId"] == request["id"]


def test_frame_above_hard_limit_is_dropped_without_reply(ready_stack, sockets):
    dealer = sockets(zmq.DEALER)
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
