"""Leaderboards, achievements and challenges through the gateway, with pyzmq only, as
docs/PROTOCOL.md describes them. The stack runs the example games of docs/examples/games."""

import time

import zmq

from podium_client import (
    DELIVERY_WAIT_SECONDS,
    call,
    error,
    ok,
    read_notification,
    register,
    subscription_topic,
    warm_up,
)

BOARD = "com.example.dash.highscore"


def befriend(dealer, a, b):
    ok(dealer, {"type": "auth.friends.request", "token": a["sessionToken"], "payload": {"playerId": b["playerId"]}})
    ok(dealer, {"type": "auth.friends.accept", "token": b["sessionToken"], "payload": {"playerId": a["playerId"]}})


def submit(dealer, grant, value, board=BOARD):
    return ok(dealer, {"type": "leaderboard.submit", "gameId": "dash", "token": grant["sessionToken"],
                       "payload": {"boardId": board, "value": value}})


def next_of_kind(sub, topic, kind):
    deadline = time.monotonic() + DELIVERY_WAIT_SECONDS
    while time.monotonic() < deadline:
        if sub.poll(100):
            envelope = read_notification(sub, topic)
            if envelope["payload"]["kind"] == kind:
                return envelope
    raise AssertionError(f"no {kind} notification arrived")


def test_scores_rank_and_page(ready_stack, dealer):
    a, b = register(dealer), register(dealer)
    first = submit(dealer, a, 300)
    assert first["improved"] is True and first["entry"]["rank"] >= 1
    assert first["scopesBeaten"] == ["today", "week", "allTime"]  # narrowest first (PROTOCOL.md 10.1)
    submit(dealer, b, 200)
    page = ok(dealer, {"type": "leaderboard.top", "gameId": "dash", "token": a["sessionToken"],
                       "payload": {"boardId": BOARD, "limit": 200}})
    ranks = [entry["rank"] for entry in page["entries"]]
    assert ranks == sorted(ranks)
    mine = ok(dealer, {"type": "leaderboard.entry", "gameId": "dash", "token": a["sessionToken"], "payload": {"boardId": BOARD}})
    assert mine["entry"]["value"] == 300
    error(dealer, {"type": "leaderboard.submit", "gameId": "dash", "token": a["sessionToken"],
                   "payload": {"boardId": BOARD, "value": 1.5}}, "invalid_shape", "payload.value")
    error(dealer, {"type": "leaderboard.submit", "gameId": "dash", "token": a["sessionToken"],
                   "payload": {"boardId": "com.example.dash.ranked", "value": 5}}, "forbidden")


def test_achievements_from_events(ready_stack, dealer):
    player = register(dealer)
    for _ in range(3):
        ok(dealer, {"type": "event.publish", "gameId": "whackacac", "token": player["sessionToken"],
                    "payload": {"name": "cactus.hit", "attributes": {"matchId": "m1"}}})
    deadline = time.monotonic() + DELIVERY_WAIT_SECONDS
    while time.monotonic() < deadline:
        listing = ok(dealer, {"type": "achievement.list", "gameId": "whackacac", "token": player["sessionToken"]})
        by_id = {item["id"].rsplit(".", 1)[-1]: item for item in listing["achievements"]}
        if by_id["100whacks"].get("steps") == 3:
            break
        time.sleep(0.05)
    assert by_id["killone"]["earned"] is True
    assert by_id["100whacks"]["steps"] == 3 and by_id["100whacks"]["target"] == 100
    assert listing["pointsEarned"] >= 10 and listing["pointsTotal"] == 150
    outcome = ok(dealer, {"type": "achievement.report", "gameId": "blackjack", "token": player["sessionToken"],
                          "payload": {"reports": [{"achievementId": "com.example.blackjack.tutorial", "percentComplete": 50}]}})
    assert outcome["outcomes"][0]["status"] == "progressed"
    error(dealer, {"type": "achievement.report", "gameId": "blackjack", "token": player["sessionToken"],
                   "payload": {"reports": [{"achievementId": "com.example.blackjack.tutorial", "percentComplete": 101}]}},
          "invalid_field")


def test_score_challenge_reaches_pyzmq_subscribers(ready_stack, dealer, sockets):
    a, b = register(dealer), register(dealer)
    befriend(dealer, a, b)
    topic_a, topic_b = subscription_topic(dealer, "dash", a), subscription_topic(dealer, "dash", b)
    sub_a, sub_b = sockets(zmq.SUB, topic_a), sockets(zmq.SUB, topic_b)
    warm_up(dealer, sub_a, topic_a, "dash", a)
    warm_up(dealer, sub_b, topic_b, "dash", b)
    submit(dealer, a, 5000)
    challenge = ok(dealer, {"type": "challenge.issue", "gameId": "dash", "token": a["sessionToken"],
                            "payload": {"kind": "score", "boardId": BOARD, "receivers": [b["playerId"]], "message": "try me"}})
    assert challenge["issuerValue"] == 5000
    received = next_of_kind(sub_b, topic_b, "challenge.received")
    assert received["payload"]["details"]["challengeId"] == challenge["challengeId"]
    assert received["payload"]["details"]["message"] == "try me"
    submit(dealer, b, 6000)
    completed = next_of_kind(sub_b, topic_b, "challenge.completed")
    assert completed["payload"]["details"]["challengeId"] == challenge["challengeId"]
    told = next_of_kind(sub_a, topic_a, "challenge.completed-by-receiver")
    assert told["payload"]["details"]["receiverId"] == b["playerId"]
    detail = ok(dealer, {"type": "challenge.detail", "gameId": "dash", "token": b["sessionToken"],
                         "payload": {"challengeId": challenge["challengeId"]}})
    assert detail["receivers"][0]["state"] == "completed"
    inbox = ok(dealer, {"type": "challenge.inbox", "gameId": "dash", "token": b["sessionToken"], "payload": {"unreadOnly": True}})
    assert {item["kind"] for item in inbox["items"]} >= {"challenge.received", "challenge.completed"}
    error(dealer, {"type": "challenge.issue", "gameId": "dash", "token": a["sessionToken"],
                   "payload": {"kind": "score", "boardId": BOARD, "receivers": [a["playerId"]]}}, "invalid_field")
