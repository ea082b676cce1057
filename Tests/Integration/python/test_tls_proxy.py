"""The nginx configuration of docs/examples/nginx/podium.conf, for real: TLS in front of the HTTP
front, the WebSocket upgrade through it, problems passed on unchanged.

Starts its own nginx (Debian's, installed by scripts/install-deps --test) with that file, only the
ports and the certificate filled in, in front of the stack of PODIUM_TEST_HTTP. Skipped without
nginx, openssl or PODIUM_TEST_HTTP.
"""

import asyncio
import json
import os
import shutil
import socket
import ssl
import subprocess
import time
import uuid
from pathlib import Path
from urllib.parse import urlparse

import httpx
import pytest
import websockets

HTTP = os.environ.get("PODIUM_TEST_HTTP")
CONF = Path(__file__).resolve().parents[3] / "docs" / "examples" / "nginx" / "podium.conf"
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)

pytestmark = pytest.mark.skipif(
    not HTTP or not NGINX or not shutil.which("openssl"), reason="needs PODIUM_TEST_HTTP, nginx and openssl"
)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def proxy(tmp_path_factory):
    """nginx with the documented server block; yields (https base URL, CA file)."""
    root = tmp_path_factory.mktemp("nginx")
    cert, key = root / "cert.pem", root / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True)
    upstream = urlparse(HTTP)
    port = free_port()
    documented = CONF.read_text()
    for old, new in [
        ("server 127.0.0.1:8080;", f"server {upstream.hostname}:{upstream.port};"),
        ("listen 443 ssl;", f"listen 127.0.0.1:{port} ssl;"),
        ("/etc/ssl/podium/fullchain.pem", str(cert)),
        ("/etc/ssl/podium/privkey.pem", str(key)),
    ]:
        assert old in documented, f"docs/examples/nginx/podium.conf no longer has {old!r}"
        documented = documented.replace(old, new)
    (root / "podium.conf").write_text(documented)
    for name in ["body", "proxy", "fastcgi", "uwsgi", "scgi"]:
        (root / name).mkdir()
        os.chmod(root / name, 0o777)
    (root / "nginx.conf").write_text(f"""
pid {root}/nginx.pid;
error_log {root}/error.log warn;
worker_processes 1;
events {{ worker_connections 256; }}
http {{
    access_log off;
    client_body_temp_path {root}/body;
    proxy_temp_path {root}/proxy;
    fastcgi_temp_path {root}/fastcgi;
    uwsgi_temp_path {root}/uwsgi;
    scgi_temp_path {root}/scgi;
    include {root}/podium.conf;
}}
""")
    check = subprocess.run([NGINX, "-t", "-p", str(root), "-c", str(root / "nginx.conf")], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    process = subprocess.Popen([NGINX, "-p", str(root), "-c", str(root / "nginx.conf"), "-g", "daemon off;"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            assert process.poll() is None, process.stderr.read().decode()
            assert time.monotonic() < deadline, "nginx did not listen within 10 s"
            time.sleep(0.1)
    yield f"https://127.0.0.1:{port}", str(cert)
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()


def test_requests_and_problems_pass_through_tls(proxy):
    base, ca = proxy
    with httpx.Client(base_url=base, verify=ssl.create_default_context(cafile=ca), timeout=10) as client:
        health = client.get("/v1/health")
        assert health.status_code == 200 and health.json()["ready"] is True
        grant = client.post("/v1/sessions/device", json={"deviceId": str(uuid.uuid4())}).json()
        key = "tls-" + uuid.uuid4().hex
        headers = {"Authorization": f"Bearer {grant['sessionToken']}", "Idempotency-Key": key}
        submitted = client.post("/v1/games/dash/leaderboards/com.example.dash.highscore/scores", json={"value": 42}, headers=headers)
        assert submitted.status_code == 200 and submitted.json()["entry"]["value"] == 42
        assert submitted.headers["podium-request-id"] == key
        refused = client.get("/v1/me")
        assert refused.status_code == 401
        assert refused.headers["content-type"] == "application/problem+json"
        assert refused.json()["code"] == "unauthenticated"
        assert refused.headers["www-authenticate"].startswith("Bearer")
    # Plain HTTP to the TLS port is not passed on to Podium (nginx answers 400 itself).
    plain = httpx.get(base.replace("https", "http") + "/v1/health", timeout=5)
    assert plain.status_code == 400 and "ready" not in plain.text


def test_websocket_upgrade_through_tls(proxy):
    base, ca = proxy
    context = ssl.create_default_context(cafile=ca)
    grant = httpx.post(base + "/v1/sessions/device", json={"deviceId": str(uuid.uuid4())}, verify=context, timeout=10).json()

    async def run():
        async with websockets.connect(base.replace("https", "wss") + "/v1/socket", ssl=context) as ws:
            await ws.send(json.dumps({"type": "socket.hello", "id": "h1", "token": grant["sessionToken"],
                                      "payload": {"games": ["dash"]}}))
            hello = json.loads(await asyncio.wait_for(ws.recv(), 10))
            assert hello["type"] == "reply" and hello["correlationId"] == "h1", hello
            await ws.send(json.dumps({"type": "challenge.test-notification", "id": "n1", "gameId": "dash",
                                      "payload": {"message": "through nginx"}}))
            kinds = set()
            deadline = time.monotonic() + 10
            while kinds != {"reply", "notification"} and time.monotonic() < deadline:
                message = json.loads(await asyncio.wait_for(ws.recv(), 10))
                kinds.add(message["type"])
                if message["type"] == "notification":
                    assert message["payload"]["message"] == "through nginx"
                    assert message["playerId"] == grant["playerId"]
            assert kinds == {"reply", "notification"}

    asyncio.run(run())
