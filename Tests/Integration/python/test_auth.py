"""Black-box tests of accounts, sessions, tokens and friends, written from docs/PROTOCOL.md alone.

Only pyzmq and the standard library; the stack must already be running (see conftest.py).

Login throttling is deliberately not exercised here: every test client connects from the same
address, and the per-address limit (20 failed logins in 15 minutes) would then refuse other
tests' logins. The Swift tests cover throttling. This file makes 2 failed logins per run, each
with its own username.
"""

import unicodedata
import uuid

from podium_client import (
    OPERATOR_TOPIC,
    call,
    check_grant,
    error,
    make_token,
    new_password,
    ok,
    register,
    token_parts,
    unique,
    wait_for_rejection,
)


def username():
    return f"u_{uuid.uuid4().hex[:16]}"


def login(dealer, name, password):
    return ok(dealer, {"type": "auth.login", "payload": {"username": name, "password": password}})


def profile(dealer, grant):
    return ok(dealer, {"type": "auth.profile", "token": grant["sessionToken"]})


def friends(dealer, grant, action, other):
    payload = ok(dealer, {"type": f"auth.friends.{action}", "token": grant["sessionToken"], "payload": {"playerId": other["playerId"]}})
    assert payload["playerId"] == other["playerId"]
    return payload["state"]


def friend_list(dealer, grant):
    return ok(dealer, {"type": "auth.friends.list", "token": grant["sessionToken"]})


def ids(profiles):
    return [entry["playerId"] for entry in profiles]


# ---------------------------------------------------------------------------------------------
# Registration and login


def test_register_creates_an_account_and_a_session(ready_stack, dealer):
    name = username()
    grant = register(dealer, username=name)
    assert grant["username"] == name
    assert grant["displayName"] == name  # defaults to the username
    assert grant["sessionExpiresAt"] > ready_stack["timestamp"]
    me = profile(dealer, grant)
    assert me["playerId"] == grant["playerId"]
    assert me["username"] == name
    assert me["linkedDevices"] == 0
    assert isinstance(me["createdAt"], int)


def test_register_with_a_display_name(ready_stack, dealer):
    grant = register(dealer, display_name="  Zoë the Great  ")
    assert grant["displayName"] == "Zoë the Great"  # trimmed


def test_usernames_are_case_insensitive_and_normalized(ready_stack, dealer):
    name = username()
    register(dealer, username=name)
    error(dealer, {"type": "auth.register", "payload": {"username": name.upper(), "password": new_password()}}, "username_taken", "payload.username")
    # Full-width letters and digits are the same characters after NFKC normalization.
    full_width = "".join(chr(ord(c) + 0xFEE0) if c.isalnum() else c for c in name)
    assert unicodedata.normalize("NFKC", full_width) == name and full_width != name
    error(dealer, {"type": "auth.register", "payload": {"username": full_width, "password": new_password()}}, "username_taken", "payload.username")


def test_register_rules(ready_stack, dealer):
    def register_error(payload, code, field):
        error(dealer, {"type": "auth.register", "payload": payload}, code, field)

    register_error({"username": "has space", "password": new_password()}, "invalid_username", "payload.username")
    register_error({"username": "ab", "password": new_password()}, "invalid_username", "payload.username")
    register_error({"username": "u" * 33, "password": new_password()}, "invalid_username", "payload.username")
    register_error({"username": "smile😀", "password": new_password()}, "invalid_username", "payload.username")
    register_error({"username": username(), "password": "short"}, "invalid_password", "payload.password")
    register_error({"username": username(), "password": new_password(), "displayName": "   "}, "invalid_field", "payload.displayName")
    register_error({"password": new_password()}, "missing_field", "payload.username")
    register_error({"username": username(), "password": 12345678}, "invalid_shape", "payload.password")
    # Letters of any script, digits, '.', '_' and '-' are allowed.
    grant = register(dealer, username=f"Ünïcödé.名前_{uuid.uuid4().hex[:6]}-x")
    assert grant["username"].startswith("Ünïcödé.名前_")


def test_login(ready_stack, dealer):
    grant = register(dealer)
    name = grant["username"]

    # Wrong password and unknown username look the same. (Two of this run's failed logins.)
    wrong = error(dealer, {"type": "auth.login", "payload": {"username": name, "password": new_password()}}, "invalid_credentials")
    unknown = error(dealer, {"type": "auth.login", "payload": {"username": username(), "password": new_password()}}, "invalid_credentials")
    assert "field" not in wrong and "field" not in unknown

    again = login(dealer, name.upper(), grant["password"])  # usernames are case-insensitive
    check_grant(again)
    assert again["created"] is False
    assert again["playerId"] == grant["playerId"]
    assert again["username"] == name
    assert again["sessionId"] != grant["sessionId"]  # a new session; the first one still works
    assert profile(dealer, again)["playerId"] == grant["playerId"]
    assert profile(dealer, grant)["playerId"] == grant["playerId"]


def test_device_login(ready_stack, dealer):
    device_id = f"device-{uuid.uuid4()}"
    first = ok(dealer, {"type": "auth.device-login", "payload": {"deviceId": device_id, "displayName": "Pocket"}})
    check_grant(first)
    assert first["created"] is True
    assert first["displayName"] == "Pocket"
    assert "username" not in first

    second = ok(dealer, {"type": "auth.device-login", "payload": {"deviceId": device_id}})
    assert second["created"] is False
    assert second["playerId"] == first["playerId"]
    assert second["sessionId"] != first["sessionId"]
    assert profile(dealer, second)["linkedDevices"] == 1

    other = ok(dealer, {"type": "auth.device-login", "payload": {"deviceId": f"device-{uuid.uuid4()}"}})
    assert other["playerId"] != first["playerId"]
    assert other["displayName"] == "Player"

    for bad in ("short", "has a space in it", "x" * 129):
        error(dealer, {"type": "auth.device-login", "payload": {"deviceId": bad}}, "invalid_field", "payload.deviceId")


def test_link_gives_a_device_account_a_username(ready_stack, dealer):
    device_id = f"device-{uuid.uuid4()}"
    device = ok(dealer, {"type": "auth.device-login", "payload": {"deviceId": device_id}})
    name, password = username(), new_password()
    linked = ok(dealer, {"type": "auth.link", "token": device["sessionToken"], "payload": {"username": name, "password": password}})
    assert linked["playerId"] == device["playerId"]
    assert linked["username"] == name

    assert login(dealer, name, password)["playerId"] == device["playerId"]
    assert ok(dealer, {"type": "auth.device-login", "payload": {"deviceId": device_id}})["playerId"] == device["playerId"]
    error(
        dealer,
        {"type": "auth.link", "token": device["sessionToken"], "payload": {"username": username(), "password": new_password()}},
        "conflict",
    )
    error(dealer, {"type": "auth.link", "payload": {"username": username(), "password": new_password()}}, "unauthenticated")


# ---------------------------------------------------------------------------------------------
# Sessions


def test_refresh_rotates_and_a_reused_refresh_token_revokes_the_session(ready_stack, dealer):
    grant = register(dealer)
    fresh = ok(dealer, {"type": "auth.refresh", "payload": {"refreshToken": grant["refreshToken"]}})
    check_grant(fresh)
    assert fresh["created"] is False
    assert fresh["playerId"] == grant["playerId"]
    assert fresh["sessionId"] == grant["sessionId"]  # the same session, new tokens
    assert fresh["refreshToken"] != grant["refreshToken"]
    assert fresh["sessionToken"] != grant["sessionToken"]
    assert profile(dealer, fresh)["playerId"] == grant["playerId"]

    # Presenting the old refresh token again looks like theft: the whole session is revoked.
    error(dealer, {"type": "auth.refresh", "payload": {"refreshToken": grant["refreshToken"]}}, "session_revoked", "payload.refreshToken")
    error(dealer, {"type": "auth.refresh", "payload": {"refreshToken": fresh["refreshToken"]}}, "session_revoked", "payload.refreshToken")
    for token in (fresh["sessionToken"], grant["sessionToken"]):
        rejected = wait_for_rejection(dealer, {"type": "auth.profile", "token": token}, "session_revoked")
        assert rejected["field"] == "token"


def test_logout_revokes_the_session(ready_stack, dealer):
    grant = register(dealer)
    other = login(dealer, grant["username"], grant["password"])
    receipt = ok(dealer, {"type": "auth.logout", "token": grant["sessionToken"]})
    assert receipt == {"revokedSessions": 1, "sessionIds": [grant["sessionId"]]}
    # Refused at once: the gateway applies the revocation before it passes the reply on.
    error(dealer, {"type": "auth.profile", "token": grant["sessionToken"]}, "session_revoked", "token")
    # A public type ignores a credential that fails its checks.
    assert call(dealer, {"type": "gateway.health", "token": grant["sessionToken"]})["type"] == "reply"
    error(dealer, {"type": "auth.refresh", "payload": {"refreshToken": grant["refreshToken"]}}, "session_revoked")
    # Only that session ended.
    assert profile(dealer, other)["playerId"] == grant["playerId"]
    error(dealer, {"type": "auth.logout"}, "unauthenticated")


def test_revoke_one_session_or_all(ready_stack, dealer):
    grant = register(dealer)
    second = login(dealer, grant["username"], grant["password"])
    third = login(dealer, grant["username"], grant["password"])
    error(dealer, {"type": "auth.revoke", "token": grant["sessionToken"]}, "missing_field", "payload.sessionId")

    receipt = ok(dealer, {"type": "auth.revoke", "token": grant["sessionToken"], "payload": {"sessionId": second["sessionId"]}})
    assert receipt == {"revokedSessions": 1, "sessionIds": [second["sessionId"]]}
    wait_for_rejection(dealer, {"type": "auth.profile", "token": second["sessionToken"]}, "session_revoked")
    # Another player's session id, or one already ended, revokes nothing.
    stranger = register(dealer)
    assert ok(dealer, {"type": "auth.revoke", "token": grant["sessionToken"], "payload": {"sessionId": stranger["sessionId"]}}) == {"revokedSessions": 0, "sessionIds": []}
    assert ok(dealer, {"type": "auth.revoke", "token": grant["sessionToken"], "payload": {"sessionId": second["sessionId"]}}) == {"revokedSessions": 0, "sessionIds": []}
    assert profile(dealer, stranger)["playerId"] == stranger["playerId"]

    receipt = ok(dealer, {"type": "auth.revoke", "token": third["sessionToken"], "payload": {"allSessions": True}})
    assert receipt["revokedSessions"] == 2
    assert sorted(receipt["sessionIds"]) == sorted([grant["sessionId"], third["sessionId"]])
    for session in (grant, third):
        wait_for_rejection(dealer, {"type": "auth.profile", "token": session["sessionToken"]}, "session_revoked")


# ---------------------------------------------------------------------------------------------
# Tokens


def test_token_kinds_are_not_interchangeable(ready_stack, dealer):
    grant = register(dealer)
    error(dealer, {"type": "auth.profile", "token": grant["refreshToken"]}, "invalid_token", "token")
    error(dealer, {"type": "auth.refresh", "payload": {"refreshToken": grant["sessionToken"]}}, "invalid_token")
    # Neither attempt harmed the session.
    assert profile(dealer, grant)["playerId"] == grant["playerId"]


def test_tampered_tokens_are_refused(ready_stack, dealer):
    grant, other = register(dealer), register(dealer)
    header, claims, signature = token_parts(grant["sessionToken"])
    assert header["alg"] == "HS256"
    assert claims["sub"] == grant["playerId"] and claims["sid"] == grant["sessionId"] and claims["typ"] == "session"

    as_other = make_token(header, dict(claims, sub=other["playerId"]), signature)
    longer = make_token(header, dict(claims, exp=claims["exp"] + 86400), signature)
    flipped_signature = signature[:-2] + ("AA" if signature[-2:] != "AA" else "BB")
    bad_signature = make_token(header, claims, flipped_signature)
    alg_none = make_token({"alg": "none", "typ": "JWT"}, claims, "")
    alg_none_signed = make_token({"alg": "none", "typ": "JWT"}, claims, signature)
    alg_hs512 = make_token(dict(header, alg="HS512"), claims, signature)
    as_refresh = make_token(header, dict(claims, typ="refresh"), signature)
    for token in (as_other, longer, bad_signature, alg_none, alg_none_signed, alg_hs512, as_refresh):
        error(dealer, {"type": "auth.profile", "token": token}, "invalid_token", "token")
        error(dealer, {"type": "event.publish", "gameId": "dash", "token": token, "payload": {"name": "cactus.hit"}}, "invalid_token", "token")
    # A type that needs no credential ignores one that fails its checks.
    assert call(dealer, {"type": "gateway.health", "token": alg_none})["type"] == "reply"
    assert profile(dealer, grant)["playerId"] == grant["playerId"]


def test_service_only_requests_are_forbidden_to_players(ready_stack, dealer):
    grant, other = register(dealer), register(dealer)
    token = grant["sessionToken"]
    error(dealer, {"type": "auth.session-check", "token": token, "payload": {"sessionId": grant["sessionId"], "playerId": grant["playerId"]}}, "forbidden")
    error(dealer, {"type": "auth.friends.check", "token": token, "payload": {"playerId": grant["playerId"], "otherPlayerId": other["playerId"]}}, "forbidden")
    error(dealer, {"type": "auth.friends.of", "token": token, "payload": {"playerId": other["playerId"]}}, "forbidden")
    error(dealer, {"type": "auth.session-check", "payload": {"sessionId": grant["sessionId"], "playerId": grant["playerId"]}}, "unauthenticated")


# ---------------------------------------------------------------------------------------------
# Profiles


def test_display_name_and_public_profiles(ready_stack, dealer):
    grant, other = register(dealer), register(dealer, display_name="Other One")
    renamed = ok(dealer, {"type": "auth.display-name", "token": grant["sessionToken"], "payload": {"displayName": "New Name"}})
    assert renamed["displayName"] == "New Name" and renamed["playerId"] == grant["playerId"]
    error(dealer, {"type": "auth.display-name", "token": grant["sessionToken"], "payload": {"displayName": "x" * 65}}, "invalid_field", "payload.displayName")
    error(dealer, {"type": "auth.display-name", "token": grant["sessionToken"], "payload": {"displayName": "bell\u0007"}}, "invalid_field", "payload.displayName")

    found = ok(
        dealer,
        {"type": "auth.players", "token": other["sessionToken"], "payload": {"playerIds": [grant["playerId"], other["playerId"], "nobody", grant["playerId"]]}},
    )["players"]
    assert sorted(found, key=lambda p: p["playerId"]) == sorted(
        [{"playerId": grant["playerId"], "displayName": "New Name"}, {"playerId": other["playerId"], "displayName": "Other One"}],
        key=lambda p: p["playerId"],
    )
    error(dealer, {"type": "auth.players", "token": other["sessionToken"], "payload": {"playerIds": ["p"] * 201}}, "invalid_field", "payload.playerIds")
    error(dealer, {"type": "auth.players", "payload": {"playerIds": [grant["playerId"]]}}, "unauthenticated")


# ---------------------------------------------------------------------------------------------
# Friends


def test_friends_flow(ready_stack, dealer):
    alice, bob = register(dealer, display_name="Alice"), register(dealer, display_name="Bob")

    assert friends(dealer, alice, "request", bob) == "outgoing_request"
    assert friends(dealer, alice, "request", bob) == "outgoing_request"  # asking again changes nothing
    alice_list, bob_list = friend_list(dealer, alice), friend_list(dealer, bob)
    assert ids(alice_list["outgoing"]) == [bob["playerId"]] and alice_list["friends"] == []
    assert bob_list["incoming"] == [{"playerId": alice["playerId"], "displayName": "Alice"}]

    assert friends(dealer, bob, "accept", alice) == "friends"
    alice_list, bob_list = friend_list(dealer, alice), friend_list(dealer, bob)
    assert alice_list["friends"] == [{"playerId": bob["playerId"], "displayName": "Bob"}]
    assert bob_list["friends"] == [{"playerId": alice["playerId"], "displayName": "Alice"}]
    for entry in (alice_list, bob_list):
        assert entry["incoming"] == [] and entry["outgoing"] == [] and entry["blocked"] == []

    assert friends(dealer, alice, "remove", bob) == "none"
    for grant in (alice, bob):
        assert friend_list(dealer, grant) == {"friends": [], "incoming": [], "outgoing": [], "blocked": []}


def test_friend_requests_declined_crossed_and_blocked(ready_stack, dealer):
    alice, bob, carol = register(dealer), register(dealer), register(dealer)

    assert friends(dealer, alice, "request", bob) == "outgoing_request"
    assert friends(dealer, bob, "decline", alice) == "none"
    assert friend_list(dealer, alice)["outgoing"] == []
    error(dealer, {"type": "auth.friends.accept", "token": bob["sessionToken"], "payload": {"playerId": alice["playerId"]}}, "conflict")

    # Two players asking each other become friends.
    assert friends(dealer, alice, "request", carol) == "outgoing_request"
    assert friends(dealer, carol, "request", alice) == "friends"

    # Blocking ends the friendship; the blocked player cannot ask again.
    assert friends(dealer, carol, "block", alice) == "blocked"
    assert ids(friend_list(dealer, carol)["blocked"]) == [alice["playerId"]]
    assert friend_list(dealer, alice)["friends"] == []
    error(dealer, {"type": "auth.friends.request", "token": alice["sessionToken"], "payload": {"playerId": carol["playerId"]}}, "forbidden")
    assert friends(dealer, carol, "unblock", alice) == "none"
    assert friends(dealer, alice, "request", carol) == "outgoing_request"

    error(dealer, {"type": "auth.friends.request", "token": alice["sessionToken"], "payload": {"playerId": alice["playerId"]}}, "invalid_field", "payload.playerId")
    error(dealer, {"type": "auth.friends.request", "token": alice["sessionToken"], "payload": {"playerId": "no-such-player"}}, "unknown_player", "payload.playerId")
    error(dealer, {"type": "auth.friends.request", "token": alice["sessionToken"]}, "missing_field", "payload.playerId")
    error(dealer, {"type": "auth.friends.list"}, "unauthenticated")


# ---------------------------------------------------------------------------------------------
# Operators (only when the stack's admin key is given)


def test_operator_credentials(ready_stack, dealer, admin_key):
    grant, other = register(dealer), register(dealer)
    subscription = ok(dealer, {"type": "notifications.subscribe", "adminKey": admin_key})
    assert OPERATOR_TOPIC.match(subscription["topic"]), subscription
    assert subscription["playerId"] == "operator"
    # An operator asks for the operator topic, never a player's.
    error(dealer, {"type": "notifications.subscribe", "gameId": "dash", "playerId": grant["playerId"], "adminKey": admin_key}, "forbidden")
    error(dealer, {"type": "notifications.subscribe", "adminKey": "w" * 40}, "invalid_credentials", "adminKey")
    # The service-only requests answer an operator.
    ok(dealer, {"type": "auth.friends.request", "token": grant["sessionToken"], "payload": {"playerId": other["playerId"]}})
    ok(dealer, {"type": "auth.friends.accept", "token": other["sessionToken"], "payload": {"playerId": grant["playerId"]}})
    check = ok(dealer, {"type": "auth.friends.check", "adminKey": admin_key, "payload": {"playerId": grant["playerId"], "otherPlayerId": other["playerId"]}})
    assert check == {"friends": True, "blocked": False}
    assert ok(dealer, {"type": "auth.friends.of", "adminKey": admin_key, "payload": {"playerId": grant["playerId"]}}) == {
        "playerId": grant["playerId"],
        "friendIds": [other["playerId"]],
    }
    status = ok(dealer, {"type": "auth.session-check", "adminKey": admin_key, "payload": {"sessionId": grant["sessionId"], "playerId": grant["playerId"]}})
    assert status == {"sessionId": grant["sessionId"], "valid": True}
    # An admin-only type is forbidden to players.
    error(dealer, {"type": "admin.anything", "token": grant["sessionToken"]}, "forbidden")
