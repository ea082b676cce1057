#!/usr/bin/env python3
"""Reproduction (found by scripts/chaos; root only: mounts a tmpfs): a gateway whose data
directory is read-only refuses to start ("SQLite error 14: unable to open database file") when
the event log was closed cleanly, but STARTS and reports itself healthy when the log's -wal and
-shm files are still there (the previous gateway was SIGKILLed): then every event.publish gets
storage_unavailable. Nothing is acknowledged wrongly, but the gateway looks ready while it can
accept no event.

Usage: python3 Tests/Faults/chaos/repro_readonly_start.py --bin .build/debug
Exit status 1 if the gateway starts on the read-only directory in either case.
"""
import argparse, json, os, signal, subprocess, sys, tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import podium_chaos as chaos  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--bin", required=True)
args = parser.parse_args()
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
games = os.path.join(root, "docs/examples/games")
tmp = tempfile.mkdtemp(prefix="podium-repro.")
started = []
for how in ("SIGTERM", "SIGKILL"):
    disk = os.path.join(tmp, f"disk-{how}")
    ok, err = chaos.mount_tmpfs(disk, 16)
    if not ok:
        sys.exit(f"cannot mount a tmpfs: {err}")
    try:
        seed = chaos.Stack("seed", args.bin, os.path.join(tmp, f"seed-{how}"), games, gateway_data=disk)
        seed.start("gateway")
        seed.wait_ready(30, "gateway")
        seed.call({"type": "event.publish", "gameId": "dash", "playerId": "p", "adminKey": seed.admin_key,
                   "payload": {"name": "x"}})
        seed.kill("gateway", getattr(signal, how))
        files = sorted(os.listdir(disk))
        subprocess.run(["mount", "-o", "remount,ro", disk], check=True)
        stack = chaos.Stack("ro", args.bin, os.path.join(tmp, f"ro-{how}"), games, gateway_data=disk)
        stack.start("gateway")
        try:
            code = stack.procs["gateway"].wait(15)
            print(f"{how}, files {files}: the gateway exited with status {code}")
        except subprocess.TimeoutExpired:
            health = stack.call({"type": "gateway.health"}, 3)
            publish = stack.call({"type": "event.publish", "gameId": "dash", "playerId": "p", "adminKey": stack.admin_key,
                                  "payload": {"name": "x"}}, 8)
            print(f"{how}, files {files}: the gateway RUNS; gateway.health {health and health['type']}; "
                  f"event.publish -> {publish and json.dumps(publish['payload'])}")
            started.append(how)
            stack.stop_all()
    finally:
        chaos.umount(disk)
sys.exit(1 if started else 0)
