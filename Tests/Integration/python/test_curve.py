"""CURVE on the public endpoints, against a gateway of its own.

`podium keygen` makes the key pair; a fixture starts a second podium-gateway (no services: the
gateway answers `gateway.health` itself) with PODIUM_CURVE_SECRET_KEY on free ports. pyzmq
clients connect as docs/PROTOCOL.md says: curve_serverkey, plus a key pair of their own.

Needs PODIUM_TEST_BIN (the directory with podium and podium-gateway; scripts/test sets it) and a
libzmq with CURVE. Every wait is bounded; none is asserted.
"""

import json
import os
import shlex
import socket
import subprocess
import time

import pytest
import zmq
import zmq.utils.monitor

from podium_client import encode, unique

WAIT_SECONDS = 20.0
# How long a refused client is given to get an answer it must not get (not an assertion of speed).
SILENCE_MS = 1500


def binary(name):
    directory = os.environ.get("PODIUM_TEST_BIN")
    if not directory:
        pytest.skip("PODIUM_TEST_BIN is not set (scripts/test sets it to the debug build)")
    path = os.path.join(directory, name)
    if not os.access(path, os.X_OK):
        pytest.skip(f"no {path}")
    return path


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def keygen():
    """Runs `podium keygen` and reads its lines as a shell would."""
    out = subprocess.run([binary("podium"), "keygen"], capture_output=True, text=True, timeout=30, check=True).stdout
    values = {}
    for line in out.splitlines():
        if not line or line.startswith("#"):
            continue
        name, _, quoted = line.partition("=")
        words = shlex.split(quoted)
        assert len(words) == 1, f"not one shell word: {line!r}"
        values[name] = words[0]
    return values


def gateway_env(tmp_path, requests, notifications, secret):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PODIUM_")}
    env.update(
        PODIUM_DEVELOPMENT="true",
        PODIUM_DATA=str(tmp_path),
        PODIUM_GATEWAY_REQUESTS=requests,
        PODIUM_GATEWAY_NOTIFICATIONS=notifications,
        PODIUM_HTTP="127.0.0.1:0",
        PODIUM_METRICS="127.0.0.1:0",
        PODIUM_BUS_PUBLISH="tcp://127.0.0.1:*",
        PODIUM_BUS_SUBSCRIBE="tcp://127.0.0.1:*",
        PODIUM_BUS_SERVICES="tcp://127.0.0.1:*",
        PODIUM_CURVE_SECRET_KEY=secret,
    )
    return env


@pytest.fixture(scope="module")
def curve_gateway(tmp_path_factory):
    if not zmq.has("curve"):
        pytest.skip("this libzmq has no CURVE")
    keys = keygen()
    requests = f"tcp://127.0.0.1:{free_port()}"
    notifications = f"tcp://127.0.0.1:{free_port()}"
    data = tmp_path_factory.mktemp("curve-gateway")
    log = open(data / "gateway.log", "w")
    process = subprocess.Popen(
        [binary("podium-gateway")],
        env=gateway_env(data, requests, notifications, keys["PODIUM_CURVE_SECRET_KEY"]),
        stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    try:
        yield {"requests": requests, "notifications": notifications, "public": keys["PODIUM_SERVER_PUBLIC_KEY"],
               "secret": keys["PODIUM_CURVE_SECRET_KEY"], "log": data / "gateway.log", "process": process}
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)
        log.close()


def curve_dealer(context, gateway, server_key):
    """A DEALER that is a CURVE client of `server_key` (text Z85), with a fresh key pair of its own."""
    public, secret = zmq.curve_keypair()
    dealer = context.socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    # Before connect: the mechanism is fixed when the connection starts.
    dealer.curve_serverkey = server_key.encode("ascii")
    dealer.curve_publickey = public
    dealer.curve_secretkey = secret
    dealer.connect(gateway["requests"])
    return dealer


def health(dealer, wait_ms):
    """Sends gateway.health; the reply envelope, or None if nothing came within wait_ms."""
    request_id = unique("curve-health")
    try:
        # Not blocking: a DEALER whose handshake the server refused may have no connection to
        # queue on at this moment, and a blocking send would then wait for ever.
        dealer.send(encode({"type": "gateway.health", "id": request_id}), flags=zmq.NOBLOCK)
    except zmq.Again:
        return None
    deadline = time.monotonic() + wait_ms / 1000
    while time.monotonic() < deadline:
        if not dealer.poll(max(1, int((deadline - time.monotonic()) * 1000))):
            return None
        envelope = json.loads(dealer.recv())
        if envelope.get("correlationId") == request_id:
            return envelope
    return None


def answered(dealer):
    """Retries gateway.health until the gateway (still starting, maybe) answers; bounded."""
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        envelope = health(dealer, 1000)
        if envelope is not None:
            return envelope
        time.sleep(0.05)
    pytest.fail(f"no answer over CURVE within {WAIT_SECONDS} s")


def test_keygen_prints_shell_safe_z85_pairs():
    keys = keygen()
    assert set(keys) == {"PODIUM_CURVE_SECRET_KEY", "PODIUM_SERVER_PUBLIC_KEY"}
    for value in keys.values():
        assert len(value) == 40
    assert zmq.curve_public(keys["PODIUM_CURVE_SECRET_KEY"].encode()) == keys["PODIUM_SERVER_PUBLIC_KEY"].encode()
    assert keygen() != keys, "every run makes a new pair"


def test_curve_client_is_answered_and_the_public_key_is_logged(context, curve_gateway):
    dealer = curve_dealer(context, curve_gateway, curve_gateway["public"])
    try:
        envelope = answered(dealer)
        assert envelope["type"] == "reply"
    finally:
        dealer.close(linger=0)
    log = curve_gateway["log"].read_text()
    assert curve_gateway["public"] in log
    assert curve_gateway["secret"] not in log, "the secret key must never be logged"


def test_plain_and_wrong_key_clients_get_nothing(context, curve_gateway):
    good = curve_dealer(context, curve_gateway, curve_gateway["public"])
    plain = context.socket(zmq.DEALER)
    plain.setsockopt(zmq.LINGER, 0)
    plain.connect(curve_gateway["requests"])
    wrong_public, _ = zmq.curve_keypair()
    impostor = curve_dealer(context, curve_gateway, wrong_public.decode("ascii"))
    try:
        answered(good)  # the gateway is up
        assert health(plain, SILENCE_MS) is None
        assert health(impostor, SILENCE_MS) is None
        assert answered(good)["type"] == "reply"
    finally:
        for sock in (good, plain, impostor):
            sock.close(linger=0)


def test_curve_subscriber_connects_to_notifications(context, curve_gateway):
    """A SUB with the right key completes the handshake (the XPUB sees its subscription request)."""
    public, secret = zmq.curve_keypair()
    sub = context.socket(zmq.SUB)
    sub.setsockopt(zmq.LINGER, 0)
    sub.curve_serverkey = curve_gateway["public"].encode("ascii")
    sub.curve_publickey = public
    sub.curve_secretkey = secret
    monitor = sub.get_monitor_socket(zmq.EVENT_HANDSHAKE_SUCCEEDED | zmq.EVENT_HANDSHAKE_FAILED_AUTH
                                     | zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL | zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL)
    try:
        sub.setsockopt(zmq.SUBSCRIBE, b"player/" + b"0" * 64)
        sub.connect(curve_gateway["notifications"])
        assert monitor.poll(int(WAIT_SECONDS * 1000)), "no handshake event"
        event = zmq.utils.monitor.recv_monitor_message(monitor)
        assert event["event"] == zmq.EVENT_HANDSHAKE_SUCCEEDED
    finally:
        sub.disable_monitor()
        monitor.close(linger=0)
        sub.close(linger=0)


def test_cli_uses_curve_with_the_server_public_key(curve_gateway):
    podium = binary("podium")
    base = [podium, "request", "--type", "gateway.health", "--endpoint", curve_gateway["requests"], "--timeout", "3"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PODIUM_")}
    # No stored session: the caller's own login must not be read or sent.
    env["PODIUM_SESSION_FILE"] = str(curve_gateway["log"].parent / "no-session.json")
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        # The "=" form: a Z85 key may start with "-", which would read as an option.
        done = subprocess.run(base + ["--server-public-key=" + curve_gateway["public"]], env=env,
                              capture_output=True, text=True, timeout=30)
        if done.returncode == 0 or time.monotonic() > deadline:
            break
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["type"] == "reply"
    # The same through the environment variable.
    done = subprocess.run(base, env=dict(env, PODIUM_SERVER_PUBLIC_KEY=curve_gateway["public"]),
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    # Without the key the CLI gives up after its timeout instead of hanging.
    done = subprocess.run(base, env=env, capture_output=True, text=True, timeout=30)
    assert done.returncode != 0
    done = subprocess.run(base + ["--server-public-key", "not-a-key"], env=env, capture_output=True, text=True, timeout=30)
    assert done.returncode != 0 and "Z85" in done.stderr


def test_gateway_refuses_a_bad_secret_key(tmp_path):
    env = gateway_env(tmp_path, f"tcp://127.0.0.1:{free_port()}", f"tcp://127.0.0.1:{free_port()}", "not-a-z85-key")
    done = subprocess.run([binary("podium-gateway")], env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 78
    assert "PODIUM_CURVE_SECRET_KEY" in done.stdout + done.stderr
