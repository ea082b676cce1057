"""Fixtures for the black-box protocol tests.

The tests start nothing: the stack (gateway and the four services) must already be running,
with PODIUM_DEVELOPMENT=true or real keys. Endpoints come from the environment:

    PODIUM_TEST_REQUESTS       default tcp://127.0.0.1:5555  (gateway ROUTER; DEALER or REQ)
    PODIUM_TEST_NOTIFICATIONS  default tcp://127.0.0.1:5556  (gateway XPUB; SUB)
    PODIUM_TEST_ADMIN_KEY      optional: the stack's PODIUM_ADMIN_KEY; the operator tests are
                               skipped without it

Each test registers its own players with unique usernames, so the tests do not depend on each
other or on what an earlier run left in the stack's database.
"""

import json
import os
import time

import pytest
import zmq

from podium_client import READY_WAIT_SECONDS, encode, register, unique


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


@pytest.fixture
def dealer(sockets):
    return sockets(zmq.DEALER)


@pytest.fixture
def new_player(ready_stack, dealer):
    """Registers a fresh player and returns its session grant (plus `password`)."""
    return lambda **fields: register(dealer, **fields)


@pytest.fixture(scope="session")
def admin_key():
    key = os.environ.get("PODIUM_TEST_ADMIN_KEY")
    if not key:
        pytest.skip("PODIUM_TEST_ADMIN_KEY is not set (the stack's PODIUM_ADMIN_KEY)")
    return key


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


@pytest.fixture(scope="module")
def http():
    """An HTTP client of the front at PODIUM_TEST_HTTP (test_http.py, test_websocket.py), once
    `GET /v1/health` says the whole stack is ready."""
    import httpx

    base_url = os.environ["PODIUM_TEST_HTTP"]
    client = httpx.Client(base_url=base_url, timeout=15.0)  # above the 5 s service timeout
    last = None
    deadline = time.monotonic() + READY_WAIT_SECONDS
    while True:
        try:
            response = client.get("/v1/health")
            last = f"{response.status_code} {response.text[:300]}"
            if response.status_code == 200 and response.json().get("ready") is True:
                break
        except httpx.HTTPError as failure:
            last = repr(failure)
        if time.monotonic() > deadline:
            client.close()
            pytest.fail(f"the HTTP front at {base_url} did not report ready within {READY_WAIT_SECONDS} s: {last}")
        time.sleep(0.25)
    yield client
    client.close()
