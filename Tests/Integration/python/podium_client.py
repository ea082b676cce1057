"""Helpers for the black-box protocol tests: framing, requests and replies, accounts, notifications.

Written from docs/PROTOCOL.md alone, with pyzmq and the standard library. Every wait is bounded,
so a broken stack fails a test instead of hanging it; nothing here asserts how long anything takes.
"""

import base64
import json
import re
import time
import uuid

import pytest
import zmq

SERVICES = ("auth", "leaderboard", "achievement", "challenge")
PLAYER_TOPIC = re.compile(r"^player/[0-9a-f]{64}$")
OPERATOR_TOPIC = re.compile(r"^operator/[0-9a-f]{64}$")
MAX_MESSAGE_BYTES = 65536

# Upper bounds on waiting, so that a failure is reported instead of a hang. Not assertions.
READY_WAIT_SECONDS = 20.0
REPLY_WAIT_SECONDS = 15.0  # above the default 5 s service timeout: every request is answered by then
DELIVERY_WAIT_SECONDS = 15.0
REVOCATION_WAIT_SECONDS = 10.0


def unique(prefix):
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def encode(obj):
    return json.dumps(obj, ensure_ascii=False).encode("utf-8")


# ---------------------------------------------------------------------------------------------
# Requests and replies


def receive(sock, wait=REPLY_WAIT_SECONDS):
    """The next message's frames, or a test failure if none comes within the bound."""
    if not sock.poll(int(wait * 1000)):
        pytest.fail("no message arrived")
    return sock.recv_multipart()


def receive_envelope(sock, wait=REPLY_WAIT_SECONDS):
    frames = receive(sock, wait)
    assert len(frames) == 1, f"a reply is one frame, got {len(frames)}"
    return json.loads(frames[0].decode("utf-8"))


def check_envelope(envelope):
    assert envelope["type"] in ("reply", "error")
    assert envelope["version"] == 1
    assert isinstance(envelope["id"], str) and envelope["id"]
    assert isinstance(envelope["timestamp"], int) and envelope["timestamp"] > 0
    assert isinstance(envelope["payload"], (dict, type(None)))
    assert "actor" not in envelope, "replies to clients never carry the actor"
    if envelope["type"] == "error":
        assert isinstance(envelope["payload"]["code"], str)
        assert isinstance(envelope["payload"]["message"], str)


def call(dealer, request, wait=REPLY_WAIT_SECONDS):
    """Sends one request object on a DEALER and returns the envelope whose correlationId is its id."""
    request.setdefault("id", unique(request["type"]))
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
    """The payload of a successful reply; fails the test on an error reply."""
    envelope = call(dealer, request)
    assert envelope["type"] == "reply", envelope
    return envelope["payload"]


def error(dealer, request, code, field=None):
    """The payload of an error reply with `code` (and `field`, when given)."""
    envelope = call(dealer, request)
    assert envelope["type"] == "error", envelope
    assert envelope["payload"]["code"] == code, envelope
    if field is not None:
        assert envelope["payload"].get("field") == field, envelope
    return envelope["payload"]


def drain(sock):
    """Everything already queued on a socket, without waiting."""
    messages = []
    while sock.poll(0):
        messages.append(sock.recv_multipart(zmq.NOBLOCK))
    return messages


# ---------------------------------------------------------------------------------------------
# Accounts and tokens


def new_password():
    return f"pw {uuid.uuid4().hex}"


def register(dealer, username=None, password=None, display_name=None):
    """Registers a fresh account and returns its session grant, with `password` added."""
    username = username or unique("u").replace("-", "_")
    password = password or new_password()
    payload = {"username": username, "password": password}
    if display_name is not None:
        payload["displayName"] = display_name
    grant = ok(dealer, {"type": "auth.register", "payload": payload})
    check_grant(grant)
    assert grant["created"] is True
    grant["password"] = password
    return grant


def check_grant(grant):
    for field in ("playerId", "displayName", "sessionId", "sessionToken", "refreshToken"):
        assert isinstance(grant[field], str) and grant[field], (field, grant)
    assert grant["sessionToken"] != grant["refreshToken"]
    assert grant["sessionToken"].count(".") == 2 and grant["refreshToken"].count(".") == 2
    assert isinstance(grant["sessionExpiresAt"], int) and isinstance(grant["refreshExpiresAt"], int)
    assert grant["refreshExpiresAt"] >= grant["sessionExpiresAt"]
    assert isinstance(grant["created"], bool)


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64url_encode(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def token_parts(token):
    """A JWT's header and claims as dicts, and its signature text."""
    header, claims, signature = token.split(".")
    return json.loads(b64url_decode(header)), json.loads(b64url_decode(claims)), signature


def make_token(header, claims, signature):
    return ".".join(
        [b64url_encode(encode(header)), b64url_encode(encode(claims)), signature]
    )


def wait_for_rejection(dealer, request, code):
    """Repeats `request` until it gets the error `code` (revocation reaches the gateway over its
    bus, so a request racing the revocation may still pass); fails if it never does."""
    deadline = time.monotonic() + REVOCATION_WAIT_SECONDS
    while True:
        envelope = call(dealer, dict(request, id=unique("after")))
        if envelope["type"] == "error":
            assert envelope["payload"]["code"] == code, envelope
            return envelope["payload"]
        if time.monotonic() > deadline:
            pytest.fail(f"{request['type']} still succeeds after the session was revoked: {envelope}")
        time.sleep(0.05)


# ---------------------------------------------------------------------------------------------
# Notifications


def subscription_topic(dealer, game_id, grant):
    payload = ok(dealer, {"type": "notifications.subscribe", "gameId": game_id, "token": grant["sessionToken"]})
    assert payload["gameId"] == game_id and payload["playerId"] == grant["playerId"]
    assert PLAYER_TOPIC.match(payload["topic"]), payload["topic"]
    return payload["topic"]


def request_test_notification(dealer, service, game_id, grant, message):
    """Asks `service` for a test notification for the token's player; returns the request id
    (the notification's correlationId)."""
    request_id = unique(f"tn-{service}")
    envelope = call(
        dealer,
        {
            "type": f"{service}.test-notification",
            "id": request_id,
            "gameId": game_id,
            "token": grant["sessionToken"],
            "payload": {"message": message},
        },
    )
    assert envelope["type"] == "reply", envelope
    # The gateway stamped the token's player on the forwarded request; the reply repeats it.
    assert envelope["playerId"] == grant["playerId"]
    receipt = envelope["payload"]
    assert receipt["topic"] == f"notify/{game_id}/{grant['playerId']}"
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
        assert isinstance(envelope["sequence"], int) and envelope["sequence"] >= 1
        assert envelope["gameId"] == game_id and envelope["playerId"] == player_id, envelope
        seen.append(envelope)
        if envelope.get("correlationId") in correlation_ids:
            return envelope, seen
    pytest.fail(f"no notification for {correlation_ids} arrived on {topic}")


def warm_up(dealer, sub, topic, game_id, grant, service="challenge"):
    """Subscriptions are not confirmed: sends test notifications until one reaches `sub`."""
    sent = {}
    deadline = time.monotonic() + DELIVERY_WAIT_SECONDS
    while time.monotonic() < deadline:
        message = unique("warm-up")
        sent[request_test_notification(dealer, service, game_id, grant, message)] = message
        if sub.poll(500):
            envelope, _ = wait_for_notification(sub, topic, set(sent), game_id, grant["playerId"])
            assert envelope["payload"]["message"] == sent[envelope["correlationId"]]
            return envelope
    pytest.fail(f"no notification reached the subscriber of {topic}")
