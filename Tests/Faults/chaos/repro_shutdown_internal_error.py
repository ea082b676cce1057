#!/usr/bin/env python3
"""Minimal reproduction (found by scripts/chaos): requests in flight when a service gets SIGTERM
are answered `internal_error` ("leaderboard could not complete the request"; the service logs
CancellationError), not a retryable code such as `service_unavailable`. A client that follows
the documented retry list gives up on them although nothing was applied; the same id resent
later is applied normally.

Usage: python3 Tests/Faults/chaos/repro_shutdown_internal_error.py --bin .build/debug
Exit status 1 if it reproduces.
"""
import argparse, collections, json, os, signal, sys, tempfile, time
import zmq
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import podium_chaos as chaos  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--bin", required=True)
args = parser.parse_args()
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
tmp = tempfile.mkdtemp(prefix="podium-repro.")
stack = chaos.Stack("R", args.bin, tmp, os.path.join(root, "docs/examples/games"))
codes = collections.Counter()
examples = {}
try:
    stack.start_all()
    run = chaos.Run("R", stack, argparse.Namespace(clients=1))
    run.setup(1, {0: []})
    sock = zmq.Context.instance().socket(zmq.DEALER)
    sock.connect(stack.requests)
    for i in range(400):  # pipelined coin submissions for one player
        sock.send(chaos.encode({"type": "leaderboard.submit", "id": f"s-{i}", "gameId": "dash", "token": run.tokens[0],
                                "payload": {"boardId": chaos.COINS, "value": 1}}))
    time.sleep(0.05)
    stack.procs["leaderboard"].send_signal(signal.SIGTERM)  # a graceful stop, as at a deployment
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and sum(codes.values()) < 400:
        if sock.poll(200):
            envelope = json.loads(sock.recv())
            code = "ok" if envelope["type"] == "reply" else envelope["payload"]["code"]
            codes[code] += 1
            examples.setdefault(code, envelope["payload"])
    print("answers:", dict(codes))
    print("internal_error example:", examples.get("internal_error"))
finally:
    stack.stop_all()
print("logs and data in", tmp)
sys.exit(1 if codes["internal_error"] else 0)
