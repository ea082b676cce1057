"""docs/clients/running-by-hand.md's block, run as it is written, and what it gave each process.

The block (after `<!-- sample: by-hand -->`) runs in bash in a scratch directory where `docs/` is
this repository's, with the debug build as PODIUM_BIN and free ports for every endpoint (the
block keeps the defaults; the environment chooses others, as it may for any reader). Then:

* its last command, `podium health --wait 60`, said every service was ready;
* each process got exactly the secrets the page's table says: the token key the gateway and auth
  share (the same value), the notification secret and the admin key the gateway alone, nothing
  for the three other services;
* the stack works as one: a registration over HTTP gives a session that the gateway accepts
  (so both sides hold the same token key), and the admin key from podium.env is accepted.

Needs the debug build (PODIUM_TEST_BIN, else `.build/debug`); skipped without it. Starts and
always stops its own five processes (their own session, ended as a group).
"""

import json
import os
import re
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
PAGE = REPO / "docs" / "clients" / "running-by-hand.md"
BIN = Path(os.environ.get("PODIUM_TEST_BIN") or REPO / ".build" / "debug")
SERVICES = ("gateway", "auth", "leaderboard", "achievement", "challenge")
SECRETS = ("PODIUM_NOTIFICATION_SECRET", "PODIUM_AUTH_TOKEN_KEY", "PODIUM_ADMIN_KEY")
# Which process the page gives each secret to.
GIVEN = {
    "gateway": {"PODIUM_NOTIFICATION_SECRET", "PODIUM_AUTH_TOKEN_KEY", "PODIUM_ADMIN_KEY"},
    "auth": {"PODIUM_AUTH_TOKEN_KEY"},
    "leaderboard": set(),
    "achievement": set(),
    "challenge": set(),
}

pytestmark = pytest.mark.skipif(
    not (BIN / "podium-gateway").is_file(), reason=f"no debug build in {BIN} (swift build --build-tests)"
)


def the_block():
    text = PAGE.read_text(encoding="utf-8")
    match = re.search(r"^<!-- sample: by-hand -->\n```sh\n(.*?)^```$", text, re.S | re.M)
    assert match, "running-by-hand.md has no <!-- sample: by-hand --> block"
    return match.group(1)


def free_ports(count):
    held = []
    for _ in range(count):
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        held.append(sock)
    ports = [sock.getsockname()[1] for sock in held]
    for sock in held:
        sock.close()
    return ports


def processes_of_session(session_id):
    """{service name: pid} of the podium processes in a session."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            executable = os.readlink(entry / "exe")
        except OSError:
            continue
        # Fields after the command (which may hold spaces): state, ppid, pgrp, session, …
        fields = stat[stat.rindex(")") + 2 :].split()
        name = os.path.basename(executable)
        if int(fields[3]) == session_id and name.startswith("podium-"):
            found[name[len("podium-") :]] = int(entry.name)
    return found


def environment_of(pid):
    raw = Path(f"/proc/{pid}/environ").read_bytes()
    return dict(item.split("=", 1) for item in raw.decode("utf-8", "replace").split("\0") if "=" in item)


def http(base, method, path, body=None, headers=None):
    data = None if body is None else json.dumps(body).encode("utf-8")
    request = urllib.request.Request(base + path, data=data, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=15) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def test_the_page_starts_a_stack_with_each_secret_where_it_says(tmp_path):
    (tmp_path / "docs").symlink_to(REPO / "docs", target_is_directory=True)
    ports = free_ports(6)
    environment = {name: value for name, value in os.environ.items() if not name.startswith("PODIUM_")}
    environment.update(
        PODIUM_BIN=str(BIN),
        PODIUM_GATEWAY_REQUESTS=f"tcp://127.0.0.1:{ports[0]}",
        PODIUM_GATEWAY_NOTIFICATIONS=f"tcp://127.0.0.1:{ports[1]}",
        PODIUM_BUS_PUBLISH=f"tcp://127.0.0.1:{ports[2]}",
        PODIUM_BUS_SUBSCRIBE=f"tcp://127.0.0.1:{ports[3]}",
        PODIUM_BUS_SERVICES=f"tcp://127.0.0.1:{ports[4]}",
        PODIUM_HTTP=f"127.0.0.1:{ports[5]}",
        PODIUM_METRICS="127.0.0.1:0",
        PODIUM_ENDPOINT=f"tcp://127.0.0.1:{ports[0]}",  # the `podium health` of the block
    )
    base = f"http://127.0.0.1:{ports[5]}"
    # Into a file, not a pipe: the processes the block leaves running inherit its output.
    transcript = tmp_path / "block.out"
    with open(transcript, "wb") as out:
        shell = subprocess.Popen(
            ["bash", "-c", the_block()], cwd=tmp_path, env=environment, start_new_session=True,
            stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
        )
    try:
        shell.wait(timeout=90)
        output = transcript.read_text(errors="replace")
        logs = "".join(
            f"\n--- {name}.log\n" + (tmp_path / f"{name}.log").read_text(errors="replace")[-2000:]
            for name in SERVICES
            if (tmp_path / f"{name}.log").exists()
        )
        assert shell.returncode == 0 and "all services ready" in output, output + logs

        running = processes_of_session(shell.pid)
        assert set(running) == set(SERVICES), (running, logs)
        stored = dict(line.split("=", 1) for line in (tmp_path / "podium.env").read_text().splitlines())
        assert set(stored) == set(SECRETS) and all(len(value) == 64 for value in stored.values()), stored
        assert (tmp_path / "podium.env").stat().st_mode & 0o077 == 0, "podium.env is readable by others"
        for name, pid in running.items():
            given = environment_of(pid)
            for secret in SECRETS:
                if secret in GIVEN[name]:
                    assert given.get(secret) == stored[secret], f"podium-{name} lacks {secret}"
                else:
                    assert secret not in given, f"podium-{name} was given {secret}"

        # One stack: auth's tokens pass the gateway's check, and the admin key is the gateway's.
        status, grant = http(
            base, "POST", "/v1/accounts", {"username": "h" + uuid.uuid4().hex[:12], "password": "correct horse battery"}
        )
        assert status == 200 and grant.get("sessionToken"), (status, grant)
        status, profile = http(base, "GET", "/v1/me", headers={"Authorization": "Bearer " + grant["sessionToken"]})
        assert status == 200 and profile["playerId"] == grant["playerId"], (status, profile)
        status, health = http(base, "GET", "/v1/health", headers={"X-Podium-Admin-Key": stored["PODIUM_ADMIN_KEY"]})
        assert status == 200 and health["ready"] is True and "services" in health, (status, health)
        assert (tmp_path / ".podium-by-hand" / "auth-accounts.sqlite").is_file()
    finally:
        try:
            os.killpg(shell.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        deadline = time.monotonic() + 15
        while processes_of_session(shell.pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        if processes_of_session(shell.pid):
            os.killpg(shell.pid, signal.SIGKILL)
        if shell.poll() is None:
            shell.kill()
        shell.wait()
