"""Black-box tests of the gateway's WebSocket front (`/v1/socket` on the HTTP listener).

A text message on the socket is one request object of docs/PROTOCOL.md section 4 and goes
through the same pipeline as a ZeroMQ request; its reply or error (section 6) comes back on the
socket, matched by `correlationId == id`, and requests may be pipelined. The socket's own
message, `socket.hello`, checks a session token for each game it names (as
`notifications.subscribe`, section 7.2) and answers with the subscriptions; from then on the
player's notifications in those games (section 14) are pushed on the socket as they happen, and a
request without a credential is sent with the hello's token. A binary message gets
`invalid_shape`; a message larger than PODIUM_MAX_MESSAGE_BYTES closes the socket; a client that
lets more than 1000 outgoing messages pile up is closed with 1008; a handshake whose `Origin` is
not in PODIUM_HTTP_ALLOWED_ORIGINS is refused (one without an `Origin` is accepted).
Source: Services/Gateway/Library/HTTP/WebSocketSession.swift and GatewayHTTPFront.swift.

The tests start nothing. They read:

    PODIUM_TEST_HTTP           the HTTP front's base URL (http://127.0.0.1:8080); the socket is
                               ws://<same host and port>/v1/socket. Without it this module is
                               skipped.
    PODIUM_TEST_NOTIFICATIONS  (conftest.py) the same stack's ZeroMQ notification endpoint

The stack must run with the default PODIUM_MAX_MESSAGE_BYTES (65536) and without
PODIUM_HTTP_ALLOWED_ORIGINS (the origin test uses http://evil.example). Every test makes its own
players with `POST /v1/sessions/device` (no scrypt cost). Waits are bounded; where the absence of
a message is checked, a message that must come after it on the same socket is the barrier, never
a pause; no test asserts how long anything takes.
"""

import contextlib
import json
import os
import socket
import time
import uuid
from urllib.parse import urlsplit

import httpx
import pytest
import zmq
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from podium_client import PLAYER_TOPIC, unique

BASE_URL = os.environ.get("PODIUM_TEST_HTTP")
if not BASE_URL:
    pytest.skip("PODIUM_TEST_HTTP is not set (the HTTP front's base URL)", allow_module_level=True)

_parts = urlsplit(BASE_URL)
SOCKET_URL = f"{'wss' if _parts.scheme == 'https' else 'ws'}://{_parts.netloc}/v1/socket"
HTTP_HOST, HTTP_PORT = _parts.hostname, _parts.port or (443 if _parts.scheme == "https" else 80)

MAX_MESSAGE_BYTES = 65536  # PODIUM_MAX_MESSAGE_BYTES, the default
MAX_QUEUED = 1000  # WebSocketSession.maxQueued
REPLY_WAIT_SECONDS = 15.0  # above the default 5 s service timeout: every request is answered by then
DELIVERY_WAIT_SECONDS = 15.0

DASH = "dash"
OTHER_GAME = "whackacac"
HIGHSCORE = "com.example.dash.highscore"

# RFC 6455 close codes
INVALID_PAYLOAD = 1007
POLICY_VIOLATION = 1008
MESSAGE_TOO_BIG = 1009
# Podium's own close codes (docs/PROTOCOL.md section 21)
SESSION_EXPIRED = 4001
SESSION_REVOKED = 4003
PLAYER_BANNED = 4004
ACCOUNT_DELETED = 4005


# ---------------------------------------------------------------------------------------------
# Fixtures and helpers


def device_player(http):
    """A new player (device login over HTTP): its session grant."""
    response = http.post("/v1/sessions/device", json={"deviceId": f"device-{uuid.uuid4()}"})
    assert response.status_code == 200, response.text
    grant = response.json()
    assert grant["created"] is True and grant["sessionToken"] and grant["playerId"], grant
    return grant


class Socket:
    """A client socket: sends request objects, reads envelopes. Messages read while waiting for
    another are kept in `inbox` (in arrival order) for later checks."""

    def __init__(self, ws):
        self.ws = ws
        self.inbox = []
        self.seen = []  # every envelope ever read, in order
        self.texts = {}  # envelope id -> the message as it came

    def send(self, request):
        self.ws.send(json.dumps(request, separators=(",", ":")))

    def read(self, timeout):
        text = self.ws.recv(timeout=timeout)
        assert isinstance(text, str), f"the server sent a binary message: {text[:200]!r}"
        envelope = json.loads(text)
        assert envelope.get("version") == 1 and isinstance(envelope.get("id"), str), envelope
        self.seen.append(envelope)
        self.texts[envelope["id"]] = text
        return envelope, text

    def wait_for(self, predicate, what, wait=REPLY_WAIT_SECONDS):
        """The first envelope (from the inbox, then from the socket) that satisfies `predicate`."""
        for index, envelope in enumerate(self.inbox):
            if predicate(envelope):
                return self.inbox.pop(index)
        deadline = time.monotonic() + wait
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                pytest.fail(f"{what}: nothing within {wait} s; read meanwhile: {self.inbox[-5:]}")
            try:
                envelope, _ = self.read(remaining)
            except TimeoutError:
                continue
            if predicate(envelope):
                return envelope
            self.inbox.append(envelope)

    def answer(self, request_id, wait=REPLY_WAIT_SECONDS):
        """The reply or error whose correlationId is `request_id`."""
        return self.wait_for(
            lambda e: e.get("correlationId") == request_id and e["type"] in ("reply", "error"),
            f"the answer to {request_id!r}",
            wait,
        )

    def call(self, request):
        self.send(request)
        return self.answer(request["id"])

    def hello(self, token, games, request_id=None):
        request_id = request_id or unique("hello")
        return self.call({"type": "socket.hello", "id": request_id, "token": token, "payload": {"games": games}})


@pytest.fixture
def sockets(http):
    """Opens sockets on /v1/socket; every one is closed when the test ends."""
    with contextlib.ExitStack() as stack:

        def open_socket(**options):
            options.setdefault("open_timeout", 10)
            options.setdefault("close_timeout", 2)
            return Socket(stack.enter_context(connect(SOCKET_URL, **options)))

        yield open_socket


@pytest.fixture
def zmq_context():
    ctx = zmq.Context()
    yield ctx
    ctx.destroy(linger=0)


def reply_payload(envelope):
    assert envelope["type"] == "reply", envelope
    return envelope["payload"]


def error_of(envelope, code, field=None, correlated=True):
    """The error payload of `envelope`, after checking its code, field and correlation."""
    assert envelope["type"] == "error", envelope
    payload = envelope["payload"]
    assert payload["code"] == code, envelope
    assert isinstance(payload["message"], str) and payload["message"], envelope
    if field is not None:
        assert payload.get("field") == field, envelope
    if not correlated:
        assert "correlationId" not in envelope, envelope
    return payload


def check_hello(envelope, grant, games):
    subscriptions = reply_payload(envelope)["subscriptions"]
    assert [s["gameId"] for s in subscriptions] == games, envelope
    for subscription in subscriptions:
        assert subscription["playerId"] == grant["playerId"], envelope
        assert PLAYER_TOPIC.match(subscription["topic"]), envelope
    return subscriptions


def is_notification(request_id):
    return lambda e: e["type"] == "notification" and e.get("correlationId") == request_id


def send_test_notification(sock, game=DASH, message=None):
    """Sends `challenge.test-notification` on the socket without a credential (the hello's
    token); returns its request id once its reply came."""
    request_id = unique("tn")
    request = {"type": "challenge.test-notification", "id": request_id, "gameId": game}
    if message is not None:
        request["payload"] = {"message": message}
    receipt = reply_payload(sock.call(request))
    assert isinstance(receipt["notificationId"], str) and receipt["topic"].startswith(f"notify/{game}/"), receipt
    return request_id


def closing_code(sock, wait=REPLY_WAIT_SECONDS):
    """Reads until the server closes the socket: (close code, envelopes read before the close).
    Fails if the socket is still open after `wait` seconds."""
    read = []
    deadline = time.monotonic() + wait
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            pytest.fail(f"the socket is still open after {wait} s; read: {read[-5:]}")
        try:
            read.append(sock.read(remaining)[0])
        except TimeoutError:
            continue
        except ConnectionClosed as closed:
            assert closed.rcvd is not None, f"the connection ended without a close frame from the server: {closed!r}"
            return closed.rcvd.code, read


def padded(request, size):
    """`request` as JSON text of exactly `size` bytes, padded in `payload.pad`."""
    request = {**request, "payload": {**request.get("payload", {}), "pad": ""}}
    bare = json.dumps(request, separators=(",", ":"))
    assert size >= len(bare)
    request["payload"]["pad"] = "x" * (size - len(bare))
    text = json.dumps(request, separators=(",", ":"))
    assert len(text.encode("utf-8")) == size
    return text


# ---------------------------------------------------------------------------------------------
# Requests and replies


def test_hello_then_a_pipelined_batch_acts_for_the_hello_player(http, sockets):
    player, other = device_player(http), device_player(http)
    sock = sockets()
    hello_id = unique("h")
    hello = sock.hello(player["sessionToken"], [DASH], request_id=hello_id)
    assert hello["correlationId"] == hello_id
    check_hello(hello, player, [DASH])

    # 20 requests sent before any reply is read; none carries a credential.
    sent = {}
    for index in range(20):
        request_id = unique(f"b{index}")
        if index % 2 == 0:
            request = {"type": "leaderboard.submit", "payload": {"boardId": HIGHSCORE, "value": 1000 + index}}
        else:
            request = {"type": "leaderboard.top", "payload": {"boardId": HIGHSCORE, "limit": 5}}
        request.update(id=request_id, gameId=DASH)
        sent[request_id] = request
        sock.send(request)
    # And one with its own credential: it keeps it (another player's token).
    own_id = unique("own")
    sock.send({"type": "leaderboard.submit", "id": own_id, "gameId": DASH, "token": other["sessionToken"],
               "payload": {"boardId": HIGHSCORE, "value": 7}})

    answers = {}
    deadline = time.monotonic() + REPLY_WAIT_SECONDS
    while len(answers) < len(sent) + 1:
        try:
            envelope, _ = sock.read(max(0.01, deadline - time.monotonic()))
        except TimeoutError:
            pytest.fail(f"no answers within {REPLY_WAIT_SECONDS} s for {set(sent) - set(answers)}")
        if envelope["type"] == "notification":
            continue  # a leaderboard.left-top of this player, caused by someone else: not an answer
        request_id = envelope.get("correlationId")
        assert request_id in sent or request_id == own_id, f"an answer to nothing that was sent: {envelope}"
        assert request_id not in answers, f"two answers to {request_id}: {answers[request_id]} and {envelope}"
        answers[request_id] = envelope

    for request_id, request in sent.items():
        payload = reply_payload(answers[request_id])
        if request["type"] == "leaderboard.submit":
            assert answers[request_id]["playerId"] == player["playerId"], answers[request_id]
            assert payload["playerId"] == player["playerId"], payload
            assert payload["entry"]["playerId"] == player["playerId"], payload
            assert payload["submittedValue"] == request["payload"]["value"], payload
        else:
            assert payload["boardId"] == HIGHSCORE and isinstance(payload["entries"], list), payload
            assert len(payload["entries"]) <= 5, payload
    own = reply_payload(answers[own_id])
    assert own["playerId"] == other["playerId"] and own["entry"]["playerId"] == other["playerId"], own

    # The board agrees: the hello player's best is the batch's best.
    entry = reply_payload(sock.call({"type": "leaderboard.entry", "id": unique("e"), "gameId": DASH,
                                     "payload": {"boardId": HIGHSCORE}}))["entry"]
    assert entry["playerId"] == player["playerId"] and entry["value"] == 1018, entry


def test_before_hello(http, sockets):
    sock = sockets()
    # A request that needs a credential, without one.
    request_id = unique("anon")
    error_of(
        sock.call({"type": "leaderboard.top", "id": request_id, "gameId": DASH, "payload": {"boardId": HIGHSCORE}}),
        "unauthenticated",
        "token",
    )
    # A public request.
    device_id = f"device-{uuid.uuid4()}"
    grant = reply_payload(sock.call({"type": "auth.device-login", "id": unique("dl"), "payload": {"deviceId": device_id}}))
    assert grant["created"] is True and grant["sessionToken"] and grant["playerId"], grant
    # A request with its own token.
    submitted = sock.call({"type": "leaderboard.submit", "id": unique("s"), "gameId": DASH, "token": grant["sessionToken"],
                           "payload": {"boardId": HIGHSCORE, "value": 42}})
    receipt = reply_payload(submitted)
    assert submitted["playerId"] == grant["playerId"] and receipt["entry"]["playerId"] == grant["playerId"], submitted
    assert receipt["submittedValue"] == 42, receipt
    # Without a hello, the token of a request is not kept for the next one.
    error_of(sock.call({"type": "leaderboard.entry", "id": unique("e"), "gameId": DASH, "payload": {"boardId": HIGHSCORE}}),
             "unauthenticated", "token")
    # Nothing was pushed.
    assert [e for e in sock.seen if e["type"] == "notification"] == []


# ---------------------------------------------------------------------------------------------
# Notifications


def test_notifications_are_pushed_live_and_only_to_their_player(http, sockets, zmq_context):
    alice, bob = device_player(http), device_player(http)
    a, b = sockets(), sockets()
    [a_sub] = check_hello(a.hello(alice["sessionToken"], [DASH]), alice, [DASH])
    [b_sub] = check_hello(b.hello(bob["sessionToken"], [DASH]), bob, [DASH])
    assert a_sub["topic"] != b_sub["topic"]

    # A ZeroMQ subscriber of Alice's topic, as the hello gave it. Subscriptions are not
    # confirmed: warm up with test notifications until one reaches it.
    sub = zmq_context.socket(zmq.SUB)
    sub.setsockopt(zmq.LINGER, 0)
    sub.connect(os.environ.get("PODIUM_TEST_NOTIFICATIONS", "tcp://127.0.0.1:5556"))
    sub.setsockopt(zmq.SUBSCRIBE, a_sub["topic"].encode("utf-8"))
    warm_ups = set()
    deadline = time.monotonic() + DELIVERY_WAIT_SECONDS
    while True:
        assert time.monotonic() < deadline, f"no notification reached the ZeroMQ subscriber of {a_sub['topic']}"
        warm_ups.add(send_test_notification(a))
        if sub.poll(300):
            frames = sub.recv_multipart()
            if json.loads(frames[1]).get("correlationId") in warm_ups:
                break
    while sub.poll(100):  # the other warm-ups, if several were on their way
        sub.recv_multipart()

    # The notification itself: pushed on Alice's socket, with the test-notification's id.
    message = unique("for-alice")
    request_id = send_test_notification(a, message=message)
    pushed = a.wait_for(is_notification(request_id), "Alice's notification on her socket", DELIVERY_WAIT_SECONDS)
    assert pushed["gameId"] == DASH and pushed["playerId"] == alice["playerId"], pushed
    assert pushed["payload"]["kind"] == "diagnostic.test" and pushed["payload"]["message"] == message, pushed
    assert pushed["payload"]["details"] == {"service": "challenge"}, pushed

    # The same notification on the ZeroMQ topic: the same envelope, byte for byte.
    got = None
    deadline = time.monotonic() + DELIVERY_WAIT_SECONDS
    while got is None and time.monotonic() < deadline:
        if sub.poll(100):
            topic, body = sub.recv_multipart()
            assert topic.decode("utf-8") == a_sub["topic"]
            if json.loads(body).get("correlationId") == request_id:
                got = body
    assert got is not None, f"the ZeroMQ subscriber did not get {a.texts[pushed['id']]}"
    assert got == a.texts[pushed["id"]].encode("utf-8"), (got, a.texts[pushed["id"]])

    # Bob's own notification, sent after Alice's, is the barrier: once it is on Bob's socket,
    # Alice's would be there before it if it were pushed to him.
    bob_request = send_test_notification(b, message=unique("for-bob"))
    mine = b.wait_for(is_notification(bob_request), "Bob's own notification", DELIVERY_WAIT_SECONDS)
    assert mine["playerId"] == bob["playerId"], mine
    notifications = [e for e in b.seen if e["type"] == "notification"]
    assert all(e["playerId"] == bob["playerId"] for e in notifications), notifications
    assert not any(e.get("correlationId") in warm_ups | {request_id} for e in b.seen), b.seen
    # And Alice's socket did not get Bob's.
    send_test_notification(a)  # its reply comes after anything pushed to Alice before it was sent
    assert not any(e.get("correlationId") == bob_request for e in a.seen if e["type"] == "notification"), a.seen


def test_logging_out_closes_that_sessions_socket_with_4003_and_only_it(http, sockets):
    device = f"device-{uuid.uuid4()}"
    first = http.post("/v1/sessions/device", json={"deviceId": device}).json()
    second = http.post("/v1/sessions/device", json={"deviceId": device}).json()
    assert first["playerId"] == second["playerId"], (first, second)
    assert first["sessionId"] != second["sessionId"], (first, second)
    a, b = sockets(), sockets()
    check_hello(a.hello(first["sessionToken"], [DASH]), first, [DASH])
    check_hello(b.hello(second["sessionToken"], [DASH]), second, [DASH])

    response = http.delete("/v1/sessions/current", headers={"Authorization": f"Bearer {first['sessionToken']}"})
    assert response.status_code == 200, response.text
    code, _ = closing_code(a)
    assert code == SESSION_REVOKED

    # The same player's other session keeps its socket, and its notifications.
    request_id = send_test_notification(b)
    pushed = b.wait_for(is_notification(request_id), "the other session's notification", DELIVERY_WAIT_SECONDS)
    assert pushed["playerId"] == second["playerId"], pushed
    # A new socket of the logged-out session is refused at hello.
    c = sockets()
    error_of(c.hello(first["sessionToken"], [DASH]), "session_revoked")


def test_a_ban_closes_every_socket_of_the_player_with_4004(http, sockets, admin_key):
    device = f"device-{uuid.uuid4()}"
    first = http.post("/v1/sessions/device", json={"deviceId": device}).json()
    second = http.post("/v1/sessions/device", json={"deviceId": device}).json()
    bystander = device_player(http)
    a, b, c = sockets(), sockets(), sockets()
    check_hello(a.hello(first["sessionToken"], [DASH]), first, [DASH])
    check_hello(b.hello(second["sessionToken"], [DASH]), second, [DASH])
    check_hello(c.hello(bystander["sessionToken"], [DASH]), bystander, [DASH])
    response = http.post(f"/v1/admin/players/{first['playerId']}/ban", json={"reason": "cheating"},
                         headers={"X-Podium-Admin-Key": admin_key})
    assert response.status_code == 200, response.text
    try:
        assert closing_code(a)[0] == PLAYER_BANNED
        assert closing_code(b)[0] == PLAYER_BANNED
        # Another player's socket goes on.
        request_id = send_test_notification(c)
        c.wait_for(is_notification(request_id), "the bystander's notification", DELIVERY_WAIT_SECONDS)
        # A new socket of the banned player is refused at hello.
        d = sockets()
        error_of(d.hello(second["sessionToken"], [DASH]), "player_banned")
    finally:
        http.post(f"/v1/admin/players/{first['playerId']}/unban", json={}, headers={"X-Podium-Admin-Key": admin_key})


def test_deleting_the_account_closes_every_socket_of_the_player_with_4005(http, sockets, admin_key):
    device = f"device-{uuid.uuid4()}"
    first = http.post("/v1/sessions/device", json={"deviceId": device}).json()
    second = http.post("/v1/sessions/device", json={"deviceId": device}).json()
    bystander = device_player(http)
    a, b, c = sockets(), sockets(), sockets()
    check_hello(a.hello(first["sessionToken"], [DASH]), first, [DASH])
    check_hello(b.hello(second["sessionToken"], [DASH]), second, [DASH])
    check_hello(c.hello(bystander["sessionToken"], [DASH]), bystander, [DASH])
    # A device account is deleted with its session alone (no password to give).
    response = http.post("/v1/me/delete", json={"confirm": True},
                         headers={"Authorization": f"Bearer {first['sessionToken']}"})
    assert response.status_code == 200, response.text
    assert response.json()["revokedSessions"] == 2, response.text
    assert closing_code(a)[0] == ACCOUNT_DELETED
    assert closing_code(b)[0] == ACCOUNT_DELETED
    request_id = send_test_notification(c)
    c.wait_for(is_notification(request_id), "the bystander's notification", DELIVERY_WAIT_SECONDS)
    d = sockets()
    error_of(d.hello(second["sessionToken"], [DASH]), "session_revoked")


def test_only_the_hello_games_are_pushed_and_a_new_hello_replaces_them(http, sockets):
    player = device_player(http)
    sock = sockets()
    check_hello(sock.hello(player["sessionToken"], [DASH]), player, [DASH])
    # A notification in a game the hello did not name is not pushed: the one after it, in the
    # hello's game (same service, so the same order on the bus), is the barrier.
    other = send_test_notification(sock, game=OTHER_GAME)
    barrier = send_test_notification(sock, game=DASH)
    sock.wait_for(is_notification(barrier), "the notification in the hello's game", DELIVERY_WAIT_SECONDS)
    assert not any(e.get("correlationId") == other for e in sock.seen if e["type"] == "notification"), sock.seen

    # A second hello replaces the first: now only the other game is pushed.
    check_hello(sock.hello(player["sessionToken"], [OTHER_GAME]), player, [OTHER_GAME])
    dash = send_test_notification(sock, game=DASH)
    barrier = send_test_notification(sock, game=OTHER_GAME)
    sock.wait_for(is_notification(barrier), "the notification in the new hello's game", DELIVERY_WAIT_SECONDS)
    assert not any(e.get("correlationId") == dash for e in sock.seen if e["type"] == "notification"), sock.seen


def bad_hellos():
    def case(name, hello, code, field, correlated=True):
        return pytest.param(hello, code, field, correlated, id=name)

    token = "VALID"  # replaced by the player's token
    return [
        case("invalid token", {"token": "x.y.z", "payload": {"games": [DASH]}}, "invalid_token", "token"),
        case("no credential", {"payload": {"games": [DASH]}}, "unauthenticated", "token"),
        case("no games", {"token": token, "payload": {}}, "missing_field", "payload.games"),
        case("no payload", {"token": token}, "missing_field", "payload.games"),
        case("empty games", {"token": token, "payload": {"games": []}}, "missing_field", "payload.games"),
        case("games not an array", {"token": token, "payload": {"games": DASH}}, "missing_field", "payload.games"),
        case("21 games", {"token": token, "payload": {"games": [f"g{i}" for i in range(21)]}}, "missing_field", "payload.games"),
        case("invalid game id", {"token": token, "payload": {"games": ["bad game!"]}}, "invalid_field", "payload.games.0"),
        # The first game is fine, the second is not: no subscription at all.
        case("second game invalid", {"token": token, "payload": {"games": [DASH, "x" * 65]}}, "invalid_field", "payload.games.1"),
        case("game id not a string", {"token": token, "payload": {"games": [DASH, 5]}}, "invalid_shape", "payload.games.1"),
        case("no id", {"id": None, "token": token, "payload": {"games": [DASH]}}, "invalid_field", "id", False),
    ]


@pytest.mark.parametrize("hello, code, field, correlated", bad_hellos())
def test_bad_hello(http, sockets, hello, code, field, correlated):
    player = device_player(http)
    sock = sockets()
    request_id = unique("bad-hello")
    request = {"type": "socket.hello", "id": request_id, **hello}
    if request.get("token") == "VALID":
        request["token"] = player["sessionToken"]
    if request["id"] is None:
        del request["id"]
    sock.send(request)
    if correlated:
        envelope = sock.answer(request_id)
        assert envelope["correlationId"] == request_id
    else:
        envelope = sock.wait_for(lambda e: e["type"] == "error", "the error of the hello without an id")
    error_of(envelope, code, field, correlated)

    # Nothing is pushed after a failed hello: a successful hello of the same player on another
    # socket is the barrier (both sockets' listeners are served in one step), and a reply on the
    # failed socket comes after anything pushed to it before.
    witness = sockets()
    check_hello(witness.hello(player["sessionToken"], [DASH]), player, [DASH])
    request_id = send_test_notification(witness)
    witness.wait_for(is_notification(request_id), "the notification on the witness socket", DELIVERY_WAIT_SECONDS)
    reply_payload(sock.call({"type": "gateway.health", "id": unique("g")}))
    assert [e for e in sock.seen if e["type"] == "notification"] == [], sock.seen
    # And the failed hello left no credential behind.
    error_of(sock.call({"type": "leaderboard.entry", "id": unique("e"), "gameId": DASH, "payload": {"boardId": HIGHSCORE}}),
             "unauthenticated", "token")


# ---------------------------------------------------------------------------------------------
# Unreadable messages


def test_binary_message_and_malformed_json(http, sockets):
    sock = sockets()
    sock.ws.send(b'{"type":"gateway.health","id":"bin"}')  # JSON, but in a binary message
    error_of(sock.wait_for(lambda e: e["type"] == "error", "the error of the binary message"),
             "invalid_shape", correlated=False)
    # The socket is still open and answers the next request.
    reply = reply_payload(sock.call({"type": "gateway.health", "id": unique("g")}))
    assert reply["ready"] is True, reply

    sock.ws.send('{"type":"gateway.health","id":"broken"')
    error_of(sock.wait_for(lambda e: e["type"] == "error", "the error of the malformed JSON"),
             "malformed_json", correlated=False)
    sock.ws.send("[1,2]")
    error_of(sock.wait_for(lambda e: e["type"] == "error", "the error of a JSON array"), "invalid_shape", correlated=False)
    reply_payload(sock.call({"type": "gateway.health", "id": unique("g")}))


def test_invalid_utf8_text_closes_the_socket(http, sockets):
    sock = sockets()
    sock.ws.send(b'{"type":"gateway.health","id":"u\xff"}', text=True)  # a text frame that is not UTF-8
    code, read = closing_code(sock)
    assert read == [], f"an invalid text message was answered: {read}"


def test_invalid_utf8_text_closes_with_1007(http, sockets):
    sock = sockets()
    sock.ws.send(b'{"type":"gateway.health","id":"u\xff"}', text=True)
    code, _ = closing_code(sock)
    assert code == INVALID_PAYLOAD


# ---------------------------------------------------------------------------------------------
# Message size


def test_message_of_the_limit_is_answered_and_one_byte_more_closes_with_1009(http, sockets):
    player = device_player(http)
    sock = sockets()
    # Exactly the limit is accepted, before and after a hello (the hello's token added to a
    # request does not count against the limit).
    text = padded({"type": "gateway.health", "id": "at-limit"}, MAX_MESSAGE_BYTES)
    sock.ws.send(text)
    reply_payload(sock.answer("at-limit"))
    check_hello(sock.hello(player["sessionToken"], [DASH]), player, [DASH])
    sock.ws.send(padded({"type": "gateway.health", "id": "at-limit-2"}, MAX_MESSAGE_BYTES))
    reply_payload(sock.answer("at-limit-2"))

    # One byte more, in one frame: closed with 1009 (message too big), never answered.
    sock.ws.send(padded({"type": "gateway.health", "id": "over"}, MAX_MESSAGE_BYTES + 1))
    code, read = closing_code(sock)
    assert code == MESSAGE_TOO_BIG, code
    assert not any(e.get("correlationId") == "over" for e in read), read


def fragments(text, size=30000):
    return [text[i : i + size] for i in range(0, len(text), size)]


def test_fragmented_message_over_the_limit_closes_the_socket(http, sockets):
    sock = sockets()
    # A message of fragments is one message: 70000 bytes in frames of 30000 is too large.
    sock.ws.send(fragments(padded({"type": "gateway.health", "id": "over"}, 70000)))
    code, read = closing_code(sock)
    assert not any(e.get("correlationId") == "over" for e in read), read
    # Fragments that add up to the limit are one message, and answered.
    sock = sockets()
    sock.ws.send(fragments(padded({"type": "gateway.health", "id": "at-limit"}, MAX_MESSAGE_BYTES)))
    reply_payload(sock.answer("at-limit"))


def test_fragmented_message_over_the_limit_closes_with_1009(http, sockets):
    sock = sockets()
    sock.ws.send(fragments(padded({"type": "gateway.health", "id": "over"}, 70000)))
    code, _ = closing_code(sock)
    assert code == MESSAGE_TOO_BIG


# ---------------------------------------------------------------------------------------------
# Origin


def test_socket_without_origin_is_accepted(http, sockets):
    sock = sockets()
    reply_payload(sock.call({"type": "gateway.health", "id": unique("g")}))


def test_socket_from_a_foreign_origin_is_refused(http):
    with pytest.raises(InvalidStatus) as refused:
        with connect(SOCKET_URL, origin="http://evil.example", open_timeout=10, close_timeout=2) as ws:
            ws.send(json.dumps({"type": "gateway.health", "id": "evil"}))
            pytest.fail(f"a socket from http://evil.example was opened: {ws.recv(timeout=5)}")
    status = refused.value.response.status_code
    assert 400 <= status < 500, status


def test_socket_from_a_foreign_origin_is_refused(http):
    # PROTOCOL 21: the upgrade is refused; the WebSocket upgrader answers 400 itself.
    with pytest.raises(InvalidStatus) as refused:
        with connect(SOCKET_URL, origin="http://evil.example", open_timeout=10, close_timeout=2):
            pass
    response = refused.value.response
    assert response.status_code == 400, (response.status_code, response.headers, response.body)


# ---------------------------------------------------------------------------------------------
# A client that does not read


def tcp_send_buffer_max():
    """The most the kernel lets a TCP socket hold unsent (Linux's tcp_wmem maximum); the server
    is assumed to run on the same kind of host."""
    try:
        with open("/proc/sys/net/ipv4/tcp_wmem") as limits:
            return int(limits.read().split()[2])
    except (OSError, ValueError, IndexError):
        return 4 * 1024 * 1024


def test_a_client_that_does_not_read_is_closed_with_1008(http, sockets):
    player, marker_player = device_player(http), device_player(http)
    # A small receive buffer; the client library stops reading after 16 messages (max_queue).
    # The buffer is set before connecting: shrinking it on an open connection makes the kernel
    # drop segments the peer was already allowed to send, and both ends stall in retransmission.
    family, kind, proto, _, address = socket.getaddrinfo(HTTP_HOST, HTTP_PORT, type=socket.SOCK_STREAM)[0]
    raw = socket.socket(family, kind, proto)
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    raw.settimeout(10)
    raw.connect(address)
    raw.settimeout(None)
    sock = sockets(sock=raw, max_queue=16)
    check_hello(sock.hello(player["sessionToken"], [DASH]), player, [DASH])
    reply_size = len(json.dumps(sock.call({"type": "gateway.health", "id": "g0000000"}), separators=(",", ":")))

    # Enough replies to fill the server's socket buffer and then more than 1000 queued messages.
    count = tcp_send_buffer_max() // reply_size + 2 * MAX_QUEUED + 2000
    for index in range(count):
        sock.ws.send(f'{{"type":"gateway.health","id":"g{index:07d}"}}')
    # The last request, with another player's token, is the marker: once its score is on the
    # board, the server has taken every request before it and queued (or dropped) their replies.
    marker_value = 424242
    sock.send({"type": "leaderboard.submit", "id": unique("marker"), "gameId": DASH, "token": marker_player["sessionToken"],
               "payload": {"boardId": HIGHSCORE, "value": marker_value}})
    headers = {"Authorization": f"Bearer {marker_player['sessionToken']}"}
    # A bound for liveness, not a timing claim: about 6-11 s on 2 busy cores, once 20 s while
    # CI ran schemathesis and the PostgreSQL suites beside it.
    deadline = time.monotonic() + 60
    while True:
        response = http.get(f"/v1/games/{DASH}/leaderboards/{HIGHSCORE}/entry", headers=headers)
        assert response.status_code == 200, response.text
        entry = response.json().get("entry")
        if entry and entry["value"] == marker_value:
            break
        assert time.monotonic() < deadline, f"the socket's {count + 1} requests were not all taken within 60 s"
        time.sleep(0.1)

    # Only now read: what was queued, then the close.
    code, read = closing_code(sock, wait=30)
    assert code == POLICY_VIOLATION, (code, len(read))
    # Replies to gateway.health (or rate_limited, should the player's bucket run dry).
    unexpected = [e for e in read if e["type"] != "reply" and e["payload"].get("code") != "rate_limited"]
    assert unexpected == [], unexpected[:3]
    assert MAX_QUEUED <= len(read) < count, (len(read), count)
