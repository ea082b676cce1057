"""Black-box tests of the operator actions and the audit log (docs/PROTOCOL.md section 22).

Every action is run over ZeroMQ (a request object with `adminKey`) and over HTTP (its resource
route with `X-Podium-Admin-Key`), and each is checked for its effect on the players, not only its
reply: a banned player's next request is refused, a revoked session's token stops working, a
removed score is gone from the board and the history, a reset board is empty and its archive
holds the old standings, an ended challenge has its end moved. Each operator type is refused
without the admin key (a player's token: `forbidden`; none: `unauthenticated`; a wrong key:
`invalid_credentials`) and changes nothing. The audit log holds every request made with the
admin key, with its outcome, and never the key or a secret.

The tests read (conftest.py for ZeroMQ):

    PODIUM_TEST_HTTP       the gateway's HTTP front; without it this module is skipped
    PODIUM_TEST_ADMIN_KEY  the stack's admin key; without it this module is skipped
    PODIUM_TEST_REQUESTS   the gateway's ZeroMQ request endpoint

Every test makes its own players (device logins), so the tests do not depend on each other.
Boards are shared with the other suites: assertions are about this test's own players only.
"""

import os
import re
import time
import uuid

import httpx
import pytest
import yaml
import zmq

from podium_client import call, unique

BASE_URL = os.environ.get("PODIUM_TEST_HTTP")
ADMIN_KEY = os.environ.get("PODIUM_TEST_ADMIN_KEY")
if not BASE_URL or not ADMIN_KEY:
    pytest.skip("PODIUM_TEST_HTTP or PODIUM_TEST_ADMIN_KEY is not set", allow_module_level=True)

GAME = "dash"
BOARD = "com.example.dash.highscore"
TRANSPORTS = ["zeromq", "http"]
WRONG_KEY = "not-the-admin-key-" + "0" * 40


@pytest.fixture(scope="module")
def http():
    with httpx.Client(base_url=BASE_URL, timeout=20) as client:
        yield client


@pytest.fixture
def dealer(sockets):
    return sockets(zmq.DEALER)


def device_player(http, device=None):
    response = http.post("/v1/sessions/device", json={"deviceId": device or f"admin-test-{uuid.uuid4()}"})
    assert response.status_code == 200, response.text
    return response.json()


def bearer(grant):
    return {"Authorization": f"Bearer {grant['sessionToken']}"}


def profile_status(http, grant):
    """(status, problem code or None) of the player's `GET /v1/me`."""
    response = http.get("/v1/me", headers=bearer(grant))
    return response.status_code, (response.json().get("code") if response.status_code != 200 else None)


# The operator types over HTTP: method, path (format fields from the payload and the game) and
# which payload members go in the query (GET) or body (POST/DELETE) besides the path's.
ROUTES = {
    "auth.admin.ban": ("POST", "/v1/admin/players/{playerId}/ban"),
    "auth.admin.unban": ("POST", "/v1/admin/players/{playerId}/unban"),
    "auth.admin.lookup": ("GET", "/v1/admin/players"),
    "auth.admin.revoke-session": ("POST", "/v1/admin/sessions/{sessionId}/revoke"),
    "leaderboard.admin.remove-score": ("DELETE", "/v1/admin/games/{gameId}/leaderboards/{boardId}/scores/{playerId}"),
    "leaderboard.admin.reset": ("POST", "/v1/admin/games/{gameId}/leaderboards/{boardId}/reset"),
    "challenge.admin.end": ("POST", "/v1/admin/games/{gameId}/challenges/{challengeId}/end"),
    "admin.audit": ("GET", "/v1/admin/audit"),
}


class Operator:
    """Sends operator requests over one transport with a given credential; returns
    ("reply", payload) or ("error", code, field)."""

    def __init__(self, transport, http, dealer, headers=None, credential=None):
        self.transport, self.http, self.dealer = transport, http, dealer
        self.headers = {"X-Podium-Admin-Key": ADMIN_KEY} if headers is None else headers
        self.credential = {"adminKey": ADMIN_KEY} if credential is None else credential

    def send(self, type_, payload, game=None, request_id=None):
        request_id = request_id or unique("op")
        if self.transport == "zeromq":
            request = {"type": type_, "id": request_id, "payload": payload, **self.credential}
            if game:
                request["gameId"] = game
            envelope = call(self.dealer, request)
            if envelope["type"] == "reply":
                return ("reply", envelope["payload"])
            return ("error", envelope["payload"]["code"], envelope["payload"].get("field"))
        method, template = ROUTES[type_]
        fields = {**payload, "gameId": game or ""}
        path = template.format(**fields)
        used = set(re.findall(r"\{(\w+)\}", template))
        rest = {key: value for key, value in payload.items() if key not in used}
        headers = {**self.headers, "Idempotency-Key": request_id}
        if method == "GET":
            response = self.http.get(path, params=rest, headers=headers)
        else:
            response = self.http.request(method, path, json=rest, headers=headers)
        if response.status_code == 200:
            return ("reply", response.json())
        assert response.headers["content-type"].startswith("application/problem+json"), response.text
        problem = response.json()
        return ("error", problem["code"], problem.get("field"))

    def ok(self, type_, payload, game=None, request_id=None):
        outcome = self.send(type_, payload, game, request_id)
        assert outcome[0] == "reply", (type_, payload, outcome)
        return outcome[1]

    def error(self, type_, payload, code, field=None, game=None):
        outcome = self.send(type_, payload, game)
        assert outcome[0] == "error" and outcome[1] == code, (type_, payload, outcome)
        if field is not None:
            assert outcome[2] == field, (type_, payload, outcome)


@pytest.fixture(params=TRANSPORTS)
def operator(request, http, dealer):
    return Operator(request.param, http, dealer)


def submit(http, grant, value, board=BOARD):
    response = http.post(f"/v1/games/{GAME}/leaderboards/{board}/scores", json={"value": value}, headers=bearer(grant))
    assert response.status_code == 200, response.text
    return response.json()


def entry(http, grant, board=BOARD):
    response = http.get(f"/v1/games/{GAME}/leaderboards/{board}/entry", headers=bearer(grant))
    assert response.status_code == 200, response.text
    return response.json()["entry"]


def top(http, grant, board=BOARD, **query):
    response = http.get(f"/v1/games/{GAME}/leaderboards/{board}/top", params={"limit": 200, **query}, headers=bearer(grant))
    assert response.status_code == 200, response.text
    return response.json()


def befriend(http, a, b):
    response = http.post(f"/v1/friends/{b['playerId']}/request", headers=bearer(a))
    assert response.status_code == 200, response.text
    response = http.post(f"/v1/friends/{a['playerId']}/accept", headers=bearer(b))
    assert response.status_code == 200 and response.json()["state"] == "friends", response.text


# ---------------------------------------------------------------------------------------------
# Refused without the admin key


REFUSAL_CASES = [
    ("auth.admin.ban", lambda p: {"playerId": p["playerId"], "reason": "r"}, None),
    ("auth.admin.unban", lambda p: {"playerId": p["playerId"]}, None),
    ("auth.admin.lookup", lambda p: {"playerId": p["playerId"]}, None),
    ("auth.admin.revoke-session", lambda p: {"sessionId": p["sessionId"]}, None),
    ("leaderboard.admin.remove-score", lambda p: {"boardId": BOARD, "playerId": p["playerId"]}, GAME),
    ("leaderboard.admin.reset", lambda p: {"boardId": BOARD}, GAME),
    ("challenge.admin.end", lambda p: {"challengeId": str(uuid.uuid4())}, GAME),
    ("admin.audit", lambda p: {}, None),
]


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("type_,payload,game", REFUSAL_CASES, ids=[case[0] for case in REFUSAL_CASES])
def test_operator_types_are_refused_without_the_admin_key(http, dealer, transport, type_, payload, game):
    victim = device_player(http)
    submit(http, victim, 4242)
    as_player = Operator(transport, http, dealer, headers=bearer(victim), credential={"token": victim["sessionToken"]})
    as_nobody = Operator(transport, http, dealer, headers={}, credential={})
    wrong_key = Operator(transport, http, dealer, headers={"X-Podium-Admin-Key": WRONG_KEY}, credential={"adminKey": WRONG_KEY})
    as_player.error(type_, payload(victim), "forbidden", game=game)
    as_nobody.error(type_, payload(victim), "unauthenticated", game=game)
    wrong_key.error(type_, payload(victim), "invalid_credentials", game=game)
    # Nothing changed: the player's session works and their score is where it was.
    assert profile_status(http, victim) == (200, None)
    assert entry(http, victim)["value"] == 4242


# ---------------------------------------------------------------------------------------------
# Bans


def test_ban_refuses_the_player_at_once_and_unban_lets_them_back(http, operator):
    device = f"admin-ban-{uuid.uuid4()}"
    player, bystander = device_player(http, device), device_player(http)
    ban = operator.ok("auth.admin.ban", {"playerId": player["playerId"], "reason": "aimbot"})
    assert ban["playerId"] == player["playerId"] and ban["reason"] == "aimbot" and ban["until"] is None, ban
    assert ban["revokedSessions"] == 1 and ban["sessionIds"] == [player["sessionId"]], ban
    # The very next request with the old token, over both transports.
    assert profile_status(http, player) == (403, "player_banned")
    reply = call(operator.dealer, {"type": "auth.profile", "token": player["sessionToken"]})
    assert reply["type"] == "error" and reply["payload"]["code"] == "player_banned", reply
    assert "aimbot" in reply["payload"]["message"], reply
    # Logging in again and refreshing are refused too.
    again = http.post("/v1/sessions/device", json={"deviceId": device})
    assert again.status_code == 403 and again.json()["code"] == "player_banned", again.text
    refresh = http.post("/v1/sessions/refresh", json={"refreshToken": player["refreshToken"]})
    assert refresh.status_code == 403 and refresh.json()["code"] == "player_banned", refresh.text
    # Somebody else is not touched.
    assert profile_status(http, bystander) == (200, None)
    # Unban: they can log in again; the old session stays ended.
    assert operator.ok("auth.admin.unban", {"playerId": player["playerId"]}) == {"playerId": player["playerId"], "unbanned": True}
    assert operator.ok("auth.admin.unban", {"playerId": player["playerId"]})["unbanned"] is False
    fresh = http.post("/v1/sessions/device", json={"deviceId": device})
    assert fresh.status_code == 200 and fresh.json()["playerId"] == player["playerId"], fresh.text
    assert profile_status(http, fresh.json()) == (200, None)
    assert profile_status(http, player) == (401, "session_revoked")


def test_a_ban_with_an_end_is_reported_and_bad_bans_change_nothing(http, dealer):
    operator = Operator("zeromq", http, dealer)
    player = device_player(http)
    until = int(time.time() * 1000) + 3_600_000
    ban = operator.ok("auth.admin.ban", {"playerId": player["playerId"], "reason": "  cooling off  ", "until": until})
    assert ban["until"] == until and ban["reason"] == "cooling off", ban
    record = operator.ok("auth.admin.lookup", {"playerId": player["playerId"]})
    assert record["ban"] == {"reason": "cooling off", "bannedAt": ban["bannedAt"], "until": until}, record
    operator.ok("auth.admin.unban", {"playerId": player["playerId"]})

    other = device_player(http)
    target = other["playerId"]
    operator.error("auth.admin.ban", {"playerId": target, "reason": ""}, "invalid_field", "payload.reason")
    operator.error("auth.admin.ban", {"playerId": target, "reason": "x" * 501}, "invalid_field", "payload.reason")
    operator.error("auth.admin.ban", {"playerId": target, "reason": "late", "until": 1000}, "invalid_field", "payload.until")
    operator.error("auth.admin.ban", {"playerId": target}, "missing_field")
    operator.error("auth.admin.ban", {"playerId": str(uuid.uuid4()), "reason": "ghost"}, "unknown_player")
    assert profile_status(http, other) == (200, None)
    assert operator.ok("auth.admin.lookup", {"playerId": target})["ban"] is None


# ---------------------------------------------------------------------------------------------
# Sessions and lookups


def test_revoking_one_session_ends_only_that_one(http, operator):
    device = f"admin-sessions-{uuid.uuid4()}"
    first, second = device_player(http, device), device_player(http, device)
    assert first["playerId"] == second["playerId"] and first["sessionId"] != second["sessionId"]
    receipt = operator.ok("auth.admin.revoke-session", {"sessionId": first["sessionId"]})
    assert receipt["revokedSessions"] == 1, receipt
    assert profile_status(http, first) == (401, "session_revoked")
    assert profile_status(http, second) == (200, None)
    assert operator.ok("auth.admin.revoke-session", {"sessionId": first["sessionId"]})["revokedSessions"] == 0
    assert operator.ok("auth.admin.revoke-session", {"sessionId": str(uuid.uuid4())})["revokedSessions"] == 0


def test_lookup_by_id_username_and_device(http, operator):
    username = unique("op")[:30]
    registered = http.post("/v1/accounts", json={"username": username, "password": "correct horse battery"})
    assert registered.status_code == 200, registered.text
    player = registered.json()
    device = f"admin-lookup-{uuid.uuid4()}"
    link = http.post("/v1/sessions/device", json={"deviceId": device})
    assert link.status_code == 200, link.text
    friend = device_player(http)
    befriend(http, player, friend)
    by_id = operator.ok("auth.admin.lookup", {"playerId": player["playerId"]})
    assert by_id["username"] == username and by_id["friends"] == 1 and by_id["ban"] is None, by_id
    assert by_id["friendIds"] == [friend["playerId"]], by_id
    assert [s["sessionId"] for s in by_id["sessions"]] == [player["sessionId"]], by_id
    assert operator.ok("auth.admin.lookup", {"username": username.upper()})["playerId"] == player["playerId"]
    device_record = operator.ok("auth.admin.lookup", {"deviceId": device})
    assert device_record["playerId"] == link.json()["playerId"] and device_record["devices"][0]["deviceId"] == device
    operator.error("auth.admin.lookup", {}, "invalid_field", "payload")
    operator.error("auth.admin.lookup", {"playerId": player["playerId"], "username": username}, "invalid_field", "payload")
    operator.error("auth.admin.lookup", {"username": unique("nobody")[:30]}, "unknown_player")


# ---------------------------------------------------------------------------------------------
# Leaderboards


def test_removing_a_score_takes_it_off_the_board_and_the_history(http, operator):
    cheat, honest = device_player(http), device_player(http)
    submit(http, cheat, 999_990)
    submit(http, cheat, 999_991)
    submit(http, honest, 5)
    receipt = operator.ok("leaderboard.admin.remove-score", {"boardId": BOARD, "playerId": cheat["playerId"]}, game=GAME)
    assert receipt == {"boardId": BOARD, "playerId": cheat["playerId"], "removed": True}, receipt
    assert entry(http, cheat) is None
    assert cheat["playerId"] not in [e["playerId"] for e in top(http, honest)["entries"]]
    history = http.get(f"/v1/games/{GAME}/leaderboards/{BOARD}/history", headers=bearer(cheat))
    assert history.status_code == 200 and history.json()["scores"] == [], history.text
    assert entry(http, honest)["value"] == 5
    again = operator.ok("leaderboard.admin.remove-score", {"boardId": BOARD, "playerId": cheat["playerId"]}, game=GAME)
    assert again["removed"] is False
    operator.error("leaderboard.admin.remove-score", {"boardId": "no.such.board", "playerId": cheat["playerId"]},
                   "unknown_board", game=GAME)
    # The player may play on: a new score counts.
    submit(http, cheat, 7)
    assert entry(http, cheat)["value"] == 7


def openapi_property(schema, name):
    """A property of a schema in docs/openapi.yaml."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "docs", "openapi.yaml")
    with open(path) as f:
        return yaml.safe_load(f)["components"]["schemas"][schema]["properties"][name]


def test_resetting_a_board_archives_its_standings(http, operator):
    first, second = device_player(http), device_player(http)
    submit(http, first, 800)
    submit(http, second, 900)
    archive = operator.ok("leaderboard.admin.reset", {"boardId": BOARD}, game=GAME)
    assert archive["boardId"] == BOARD and archive["archive"] >= 1 and archive["entries"] >= 2, archive
    current = [e["playerId"] for e in top(http, first)["entries"]]
    assert first["playerId"] not in current and second["playerId"] not in current
    assert entry(http, first) is None
    archived = top(http, first, archive=archive["archive"])
    assert archived["scope"] == f"archive:{archive['archive']}", archived
    # docs/openapi.yaml says so too (schemathesis found it did not).
    assert re.search(openapi_property("LeaderboardPage", "scope")["pattern"], archived["scope"]), archived["scope"]
    ranked = {e["playerId"]: e for e in archived["entries"]}
    assert ranked[first["playerId"]]["value"] == 800 and ranked[second["playerId"]]["value"] == 900
    assert ranked[second["playerId"]]["rank"] < ranked[first["playerId"]]["rank"]
    listing = http.get(f"/v1/games/{GAME}/leaderboards/{BOARD}/archives", headers=bearer(first))
    assert listing.status_code == 200 and listing.json()["archives"][0] == archive, listing.text
    # A score after the reset ranks on the empty board.
    submit(http, first, 10)
    assert entry(http, first)["value"] == 10
    bad = http.get(f"/v1/games/{GAME}/leaderboards/{BOARD}/top", params={"archive": archive["archive"] + 1000}, headers=bearer(first))
    assert bad.status_code == 400 and bad.json()["code"] == "invalid_field" and bad.json()["field"] == "payload.archive", bad.text


# ---------------------------------------------------------------------------------------------
# Challenges


def test_ending_a_time_boxed_challenge_early(http, operator):
    issuer, receiver = device_player(http), device_player(http)
    befriend(http, issuer, receiver)
    started = http.post(f"/v1/games/{GAME}/challenges/timed", headers=bearer(issuer),
                        json={"boardId": BOARD, "durationMilliseconds": 3_600_000, "receivers": [receiver["playerId"]]})
    assert started.status_code == 200, started.text
    challenge = started.json()
    before = int(time.time() * 1000)
    ended = operator.ok("challenge.admin.end", {"challengeId": challenge["challengeId"]}, game=GAME)
    assert ended["challengeId"] == challenge["challengeId"], ended
    assert ended["endsAt"] < challenge["endsAt"] and ended["endsAt"] >= before - 60_000, (challenge, ended)
    operator.error("challenge.admin.end", {"challengeId": challenge["challengeId"]}, "conflict", game=GAME)
    operator.error("challenge.admin.end", {"challengeId": str(uuid.uuid4())}, "unknown_challenge", game=GAME)
    # A score or achievement challenge is not time-boxed.
    submit(http, issuer, 321)
    issued = http.post(f"/v1/games/{GAME}/challenges", headers=bearer(issuer),
                       json={"kind": "score", "boardId": BOARD, "receivers": [receiver["playerId"]]})
    assert issued.status_code == 200, issued.text
    operator.error("challenge.admin.end", {"challengeId": issued.json()["challengeId"]}, "conflict", game=GAME)


# ---------------------------------------------------------------------------------------------
# The audit log


def audit(operator, **query):
    return operator.ok("admin.audit", query)


def test_every_operator_request_is_audited_with_its_outcome(http, dealer):
    over_http, over_zeromq = Operator("http", http, dealer), Operator("zeromq", http, dealer)
    player = device_player(http)
    ban_id, reset_id, refused_id = unique("audit-ban"), unique("audit-reset"), unique("audit-refused")
    over_http.ok("auth.admin.ban", {"playerId": player["playerId"], "reason": "audited ban"}, request_id=ban_id)
    over_zeromq.ok("leaderboard.admin.reset", {"boardId": BOARD}, game=GAME, request_id=reset_id)
    refused = over_zeromq.send("auth.admin.ban", {"playerId": str(uuid.uuid4()), "reason": "ghost"}, request_id=refused_id)
    assert refused[:2] == ("error", "unknown_player"), refused
    wrong = Operator("zeromq", http, dealer, credential={"adminKey": WRONG_KEY})
    wrong_id = unique("audit-wrong")
    assert wrong.send("auth.admin.unban", {"playerId": player["playerId"]}, request_id=wrong_id)[1] == "invalid_credentials"

    for reader in (over_http, over_zeromq):
        entries = audit(reader, limit=50)["entries"]
        by_request = {e.get("requestId"): e for e in entries}
        ban, reset, failed = by_request[ban_id], by_request[reset_id], by_request[refused_id]
        assert ban["type"] == "auth.admin.ban" and ban["transport"] == "http" and ban["outcome"] == "ok", ban
        assert ban["playerId"] == player["playerId"] and ban["payload"]["reason"] == "audited ban", ban
        assert reset["type"] == "leaderboard.admin.reset" and reset["transport"] == "zeromq" and reset["gameId"] == GAME, reset
        assert failed["outcome"] == "unknown_player", failed
        assert wrong_id not in by_request, "a request with a wrong admin key was audited"
        for e in (ban, reset, failed):
            assert re.fullmatch(r"admin:[0-9a-f]{8}", e["actor"]), e
            assert ADMIN_KEY not in str(e), e
            assert e["peer"], e
        assert all(e["type"] != "admin.audit" for e in entries), "reading the audit log was audited"
        seqs = [e["seq"] for e in entries]
        assert seqs == sorted(seqs, reverse=True) and len(set(seqs)) == len(seqs), seqs


def test_audit_filters_and_pages(http, dealer):
    operator = Operator("zeromq", http, dealer)
    player = device_player(http)
    # Changes are audited (an unban of a player who is not banned is still one); reads are not.
    for _ in range(3):
        operator.ok("auth.admin.unban", {"playerId": player["playerId"]})
    operator.ok("auth.admin.lookup", {"playerId": player["playerId"]})
    mine = audit(operator, playerId=player["playerId"], limit=200)["entries"]
    assert len(mine) == 3 and all(e["playerId"] == player["playerId"] and e["type"] == "auth.admin.unban" for e in mine), mine
    unbans = audit(operator, type="auth.admin.unban", limit=200)["entries"]
    assert all(e["type"] == "auth.admin.unban" for e in unbans) and len(unbans) >= 3
    # Pages of one walk backwards without repeats.
    walked, before = [], None
    for _ in range(3):
        query = {"limit": 1, "playerId": player["playerId"]}
        if before is not None:
            query["before"] = before
        page = audit(operator, **query)
        walked += [e["seq"] for e in page["entries"]]
        before = page["next"]
    assert walked == [e["seq"] for e in mine], (walked, mine)
    assert before is None
    over_http = http.get("/v1/admin/audit", params={"limit": 2, "playerId": player["playerId"]}, headers={"X-Podium-Admin-Key": ADMIN_KEY})
    assert over_http.status_code == 200 and [e["seq"] for e in over_http.json()["entries"]] == [e["seq"] for e in mine[:2]]
    operator.error("admin.audit", {"limit": 0}, "invalid_field", "payload.limit")
    operator.error("admin.audit", {"limit": 201}, "invalid_field", "payload.limit")


def test_secrets_are_redacted_in_the_audit_log(http, dealer):
    player = device_player(http)
    request_id = unique("audit-secret")
    response = http.post("/v1/call/auth.admin.unban",
                         json={"payload": {"playerId": player["playerId"], "password": "hunter2-secret", "refreshToken": "rt-secret"}},
                         headers={"X-Podium-Admin-Key": ADMIN_KEY, "Idempotency-Key": request_id})
    assert response.status_code == 200, response.text
    entries = audit(Operator("zeromq", http, dealer), type="auth.admin.unban", limit=50)["entries"]
    logged = next(e for e in entries if e.get("requestId") == request_id)
    assert logged["payload"]["password"] == "***" and logged["payload"]["refreshToken"] == "***", logged
    assert logged["payload"]["playerId"] == player["playerId"]
    assert "hunter2-secret" not in str(entries) and "rt-secret" not in str(entries)


def test_listing_a_games_challenges(http, operator):
    issuer, receiver = device_player(http), device_player(http)
    befriend(http, issuer, receiver)
    started = http.post(f"/v1/games/{GAME}/challenges/timed", headers=bearer(issuer),
                        json={"boardId": BOARD, "durationMilliseconds": 3_600_000, "receivers": [receiver["playerId"]]})
    assert started.status_code == 200, started.text
    challenge_id = started.json()["challengeId"]
    if operator.transport == "http":
        response = http.get(f"/v1/admin/games/{GAME}/challenges", params={"openOnly": "true", "limit": 200},
                            headers={"X-Podium-Admin-Key": ADMIN_KEY})
        assert response.status_code == 200, response.text
        listed = response.json()["challenges"]
    else:
        listed = call(operator.dealer, {"type": "challenge.admin.list", "gameId": GAME, "adminKey": ADMIN_KEY,
                                        "payload": {"openOnly": True, "limit": 200}})["payload"]["challenges"]
    mine = [c for c in listed if c["challengeId"] == challenge_id]
    assert mine and mine[0]["issuerId"] == issuer["playerId"] and mine[0]["kind"] == "timed", listed[:3]
    created = [c["createdAt"] for c in listed]
    assert created == sorted(created, reverse=True), "not newest first"
    dealer_operator = Operator("zeromq", http, operator.dealer)
    dealer_operator.error("challenge.admin.list", {"limit": 0}, "invalid_field", "payload.limit", game=GAME)
    dealer_operator.error("challenge.admin.list", {}, "missing_field", "gameId")


def test_each_operator_action_is_in_the_audit_log(http, dealer):
    operator = Operator("zeromq", http, dealer)
    player = device_player(http, f"admin-each-{uuid.uuid4()}")
    submit(http, player, 1234)
    issuer, receiver = device_player(http), device_player(http)
    befriend(http, issuer, receiver)
    timed = http.post(f"/v1/games/{GAME}/challenges/timed", headers=bearer(issuer),
                      json={"boardId": BOARD, "durationMilliseconds": 3_600_000, "receivers": [receiver["playerId"]]}).json()
    reads = [
        ("auth.admin.lookup", {"playerId": player["playerId"]}, None),
        ("challenge.admin.list", {"limit": 5}, GAME),
    ]
    actions = [
        ("auth.admin.revoke-session", {"sessionId": player["sessionId"]}, None),
        ("auth.admin.ban", {"playerId": player["playerId"], "reason": "each"}, None),
        ("auth.admin.unban", {"playerId": player["playerId"]}, None),
        ("leaderboard.admin.remove-score", {"boardId": BOARD, "playerId": player["playerId"]}, GAME),
        ("leaderboard.admin.reset", {"boardId": BOARD}, GAME),
        ("challenge.admin.end", {"challengeId": timed["challengeId"]}, GAME),
    ]
    read_ids = []
    for type_, payload, game in reads:
        read_ids.append(unique("read"))
        operator.ok(type_, payload, game=game, request_id=read_ids[-1])
    ids = {}
    for type_, payload, game in actions:
        ids[type_] = unique("each")
        operator.ok(type_, payload, game=game, request_id=ids[type_])
    logged = {e.get("requestId"): e for e in audit(operator, limit=200)["entries"]}
    for type_, request_id in ids.items():
        assert request_id in logged, f"{type_} ({request_id}) is not in the audit log"
        assert logged[request_id]["type"] == type_ and logged[request_id]["outcome"] == "ok", logged[request_id]
    # Reads are not audited: the log holds what operators changed.
    assert not [r for r in read_ids if r in logged], "a read was audited"


# ---------------------------------------------------------------------------------------------
# Console logins: throttled like players' logins, and audited


def test_console_logins_are_throttled_and_audited(http, dealer):
    # A guesser behind its own address (the stack trusts 127.0.0.1 as a proxy: X-Forwarded-For).
    guesser = {"X-Forwarded-For": f"198.51.100.{uuid.uuid4().int % 250 + 1}"}
    for _ in range(5):
        wrong = http.post("/console/login", data={"key": "k" * 40}, headers=guesser, follow_redirects=False)
        assert wrong.status_code == 401, wrong.text
    refused = http.post("/console/login", data={"key": "k" * 40}, headers=guesser, follow_redirects=False)
    assert refused.status_code == 429, refused.text
    assert 1 <= int(refused.headers["retry-after"]) <= 900
    # Past the limit even the right key is not checked.
    right = http.post("/console/login", data={"key": ADMIN_KEY}, headers=guesser, follow_redirects=False)
    assert right.status_code == 429
    # Another address logs in.
    other = {"X-Forwarded-For": "203.0.113.77"}
    ok_login = http.post("/console/login", data={"key": ADMIN_KEY}, headers=other, follow_redirects=False)
    assert ok_login.status_code == 303, ok_login.text
    # Every attempt is in the audit log: who, from where, how it ended.
    entries = Operator("zeromq", http, dealer).ok("admin.audit", {"type": "console.login", "limit": 50})["entries"]
    mine = [e for e in entries if e.get("peer") == guesser["X-Forwarded-For"]]
    assert sorted(e["outcome"] for e in mine) == ["invalid_credentials"] * 5 + ["rate_limited"] * 2, mine
    assert all(e["actor"] == "console" for e in mine), mine
    good = [e for e in entries if e.get("peer") == other["X-Forwarded-For"]]
    assert [e["outcome"] for e in good] == ["ok"] and good[0]["actor"].startswith("admin:"), good
    assert "session" in good[0]["payload"], good



# ---------------------------------------------------------------------------------------------
# Operator accounts: roles, a second factor, the audit log naming who did what


def totp_code(secret_base32, at=None):
    """RFC 6238 (HMAC-SHA1, 30 s, 6 digits), as an authenticator app computes it."""
    import base64
    import hashlib
    import hmac
    import struct
    secret = base64.b32decode(secret_base32 + "=" * (-len(secret_base32) % 8))
    counter = int((time.time() if at is None else at) // 30)
    mac = hmac.new(secret, struct.pack(">Q", counter), hashlib.sha1).digest()
    offset = mac[-1] & 0x0F
    return f"{(struct.unpack('>I', mac[offset:offset + 4])[0] & 0x7FFFFFFF) % 1_000_000:06d}"


def console_login(http, fields, address):
    """A console login from its own address: the response (303 with the cookie on success)."""
    return http.post("/console/login", data=fields, headers={"X-Forwarded-For": address}, follow_redirects=False)


def test_operator_accounts_roles_second_factor_and_audit(http, dealer):
    admin = {"X-Podium-Admin-Key": ADMIN_KEY}
    name = f"ops-{uuid.uuid4().hex[:8]}"
    password = "an operator's long password"
    made = http.post("/v1/admin/operators", json={"name": name, "password": password, "role": "viewer"}, headers=admin)
    assert made.status_code == 200, made.text
    assert made.json() == {"name": name, "role": "viewer", "totp": False, "createdAt": made.json()["createdAt"]}, made.json()
    for body, code in (({"name": name, "password": password, "role": "viewer"}, "conflict"),
                       ({"name": "Has Spaces", "password": password, "role": "viewer"}, "invalid_field"),
                       ({"name": f"{name}x", "password": "short", "role": "viewer"}, "invalid_password")):
        refused = http.post("/v1/admin/operators", json=body, headers=admin)
        assert refused.json()["code"] == code, refused.text
    assert http.get("/v1/admin/operators", headers={"Authorization": "Bearer nope"}).status_code == 401
    listed = http.get("/v1/admin/operators", headers=admin).json()["operators"]
    assert name in [o["name"] for o in listed], listed
    assert all("password" not in str(o).lower() for o in listed)

    # A viewer logs in to the console and reads; a change it tries is refused and changes nothing.
    address = f"198.51.100.{uuid.uuid4().int % 250 + 1}"
    wrong = console_login(http, {"operator": name, "password": "not the password"}, address)
    assert wrong.status_code == 401 and "Wrong operator name or password" in wrong.text, wrong.text
    viewer = console_login(http, {"operator": name, "password": password}, address)
    assert viewer.status_code == 303, viewer.text
    jar = {"podium_console": viewer.cookies["podium_console"]}
    page = http.get("/console/players", cookies=jar)
    assert page.status_code == 200 and f"{name} (viewer)" in page.text, page.text[:300]
    csrf = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)
    victim = device_player(http)
    tried = http.post("/console/players/ban", data={"player": victim["playerId"], "reason": "viewer tries", "csrf": csrf},
                      cookies=jar, headers={"Origin": BASE_URL}, follow_redirects=True)
    assert "forbidden" in tried.text, tried.text[:500]
    assert profile_status(http, victim) == (200, None), "a viewer's ban took effect"

    # Promoted to moderator: the viewer's session ends (a change to the account ends its sessions);
    # after a new login the ban works and the audit log names the operator.
    assert http.post(f"/v1/admin/operators/{name}", json={"role": "moderator"}, headers=admin).json()["role"] == "moderator"
    ended = http.get("/console/players", cookies=jar, follow_redirects=False)
    assert ended.status_code == 303 and ended.headers["location"].endswith("/console/login"), ended.status_code
    moderator = console_login(http, {"operator": name, "password": password}, address)
    jar = {"podium_console": moderator.cookies["podium_console"]}
    csrf = re.search(r'name="csrf" value="([^"]+)"', http.get("/console/players", cookies=jar).text).group(1)
    done = http.post("/console/players/ban", data={"player": victim["playerId"], "reason": "moderator bans", "csrf": csrf},
                     cookies=jar, headers={"Origin": BASE_URL}, follow_redirects=True)
    assert "banned" in done.text, done.text[:500]
    assert profile_status(http, victim) == (403, "player_banned")
    entries = Operator("zeromq", http, dealer).ok("admin.audit", {"playerId": victim["playerId"], "limit": 20})["entries"]
    # The refused try is in the audit log too, with its outcome.
    assert [(e["type"], e["actor"], e["outcome"]) for e in entries] == [
        ("auth.admin.ban", f"operator:{name}", "ok"), ("auth.admin.ban", f"operator:{name}", "forbidden")], entries
    # Deleting accounts is an administrator's: refused for a moderator.
    refused = http.post("/console/players/delete", data={"player": victim["playerId"], "confirm": "DELETE", "csrf": csrf},
                        cookies=jar, headers={"Origin": BASE_URL}, follow_redirects=True)
    assert "forbidden" in refused.text, refused.text[:500]

    # A second factor: begun, confirmed with a code; then the password alone is not enough.
    begun = http.post(f"/v1/admin/operators/{name}/totp", json={}, headers=admin).json()
    assert len(begun["secret"]) == 32 and begun["uri"].startswith(f"otpauth://totp/Podium:{name}?secret={begun['secret']}"), begun
    bad = http.post(f"/v1/admin/operators/{name}/totp/confirm", json={"code": "12345"}, headers=admin)
    assert bad.status_code == 401 and bad.json()["code"] == "invalid_credentials", bad.text
    confirmed = http.post(f"/v1/admin/operators/{name}/totp/confirm", json={"code": totp_code(begun["secret"])}, headers=admin)
    assert confirmed.status_code == 200 and confirmed.json()["totp"] is True, confirmed.text
    needs = console_login(http, {"operator": name, "password": password}, address)
    assert needs.status_code == 401 and "authenticator" in needs.text, needs.text
    # The code that confirmed is used; the next step's (one step ahead is accepted) logs in, once.
    fresh = totp_code(begun["secret"], at=time.time() + 30)
    assert console_login(http, {"operator": name, "password": password, "code": fresh}, address).status_code == 303
    replayed = console_login(http, {"operator": name, "password": password, "code": fresh}, address)
    assert replayed.status_code == 401 and "used already" in replayed.text, replayed.text
    logins = Operator("zeromq", http, dealer).ok("admin.audit", {"type": "console.login", "limit": 50})["entries"]
    mine = [e for e in logins if e.get("peer") == address]
    assert sorted(e["outcome"] for e in mine) == ["invalid_credentials"] * 2 + ["ok"] * 3, mine
    assert all(e["payload"].get("operator") == name for e in mine), mine

    # Removed: the account no longer logs in.
    assert http.delete(f"/v1/admin/operators/{name}", headers=admin).json() == {"name": name, "removed": True}
    gone = console_login(http, {"operator": name, "password": password, "code": totp_code(begun["secret"])}, address)
    assert gone.status_code == 401
    assert http.delete(f"/v1/admin/operators/{name}/totp", headers=admin).json()["code"] == "unknown_operator"


def test_finding_players_by_name_prefix(http, dealer):
    operator = Operator("zeromq", http, dealer)
    tag = uuid.uuid4().hex[:6]
    named = [http.post("/v1/sessions/device", json={"deviceId": f"find-{uuid.uuid4()}", "displayName": f"Zed {tag} {n}"}).json()
             for n in ("one", "two")]
    found = operator.ok("auth.admin.search", {"query": f"zed {tag.upper()}"})["players"]
    assert sorted(p["playerId"] for p in found) == sorted(p["playerId"] for p in named), found
    assert [p["displayName"] for p in found] == [f"Zed {tag} one", f"Zed {tag} two"], found
    by_id = operator.ok("auth.admin.search", {"query": named[0]["playerId"]})["players"]
    assert [p["playerId"] for p in by_id] == [named[0]["playerId"]], by_id
    # LIKE's wildcards are taken literally.
    assert operator.ok("auth.admin.search", {"query": "%"})["players"] == []
    operator.error("auth.admin.search", {"query": ""}, "invalid_field", "payload.query")
    operator.error("auth.admin.search", {"query": "x", "limit": 101}, "invalid_field", "payload.limit")


def test_unlinking_a_device_and_the_player_page(http, dealer):
    admin = {"X-Podium-Admin-Key": ADMIN_KEY}
    device = f"lost-phone-{uuid.uuid4()}"
    first = http.post("/v1/sessions/device", json={"deviceId": device}).json()
    submit(http, first, 4321)
    # The console's player page shows the player's score on each of the game's boards.
    login = http.post("/console/login", data={"key": ADMIN_KEY}, headers={"X-Forwarded-For": "203.0.113.91"},
                      follow_redirects=False)
    jar = {"podium_console": login.cookies["podium_console"]}
    page = http.get("/console/players", params={"playerId": first["playerId"], "game": GAME}, cookies=jar)
    assert page.status_code == 200 and 'id="player-scores"' in page.text and "4321" in page.text, page.text[:400]
    assert device in page.text and 'action="/console/players/unlink-device"' in page.text
    unlinked = http.post(f"/v1/admin/devices/{device}/unlink", json={}, headers=admin)
    assert unlinked.status_code == 200 and unlinked.json() == {"deviceId": device, "playerId": first["playerId"]}, unlinked.text
    again = http.post(f"/v1/admin/devices/{device}/unlink", json={}, headers=admin).json()
    assert again == {"deviceId": device}, again
    # The device's next login makes a new account; the old player is untouched.
    fresh = http.post("/v1/sessions/device", json={"deviceId": device}).json()
    assert fresh["created"] is True and fresh["playerId"] != first["playerId"], fresh
    assert http.get("/v1/me", headers=bearer(first)).status_code == 200
    bad = http.post("/v1/admin/devices/%20/unlink", json={}, headers=admin)
    assert bad.status_code == 400 and bad.json()["code"] == "invalid_field", bad.text
    entries = Operator("zeromq", http, dealer).ok("admin.audit", {"type": "auth.admin.unlink-device", "limit": 10})["entries"]
    assert any(e["payload"].get("deviceId") == device for e in entries), entries
