"""The operators' console at work, in headless Chromium: what test_console.py does not cover.

- Games: the games to choose from (#game-list, and the "game-choices" list behind every Game
  field); a challenge defined with the form (durations typed in minutes), a bad one refused, and
  one removed after its confirmation.
- Leaderboards and players: the board's choices; "Find a player" by username, display-name
  prefix or id; a notice sent to a player's inbox; display names in a player's challenges, the
  event log and the audit log; a player's session revoked and a device unlinked (confirmed).
- Operators: an administrator makes a moderator, who sees only their own account, cannot
  change their role, make operators or remove their second factor, changes their password (the
  wrong current one is refused), sets up a second factor (with the current password; the TOTP
  code computed here) and needs its code to log in; the administrator's role change ends the
  operator's sessions, then a second-factor reset and the account's removal.
- Overview: ten minutes of requests and latency in 5 s slots (the JSON API and both charts),
  refreshed by itself; the pages fit 375 px.

The same environment as test_console.py, whose helpers it uses. With
PODIUM_TEST_CONSOLE_SCREENSHOTS set: overview, overview-375, operators, challenge-definitions.
"""

import base64
import hashlib
import hmac
import itertools
import re
import struct
import time
import uuid

import httpx
from test_console import ADMIN_KEY, BASE, BOARD, GAME, SCREENSHOTS, answer, busy_slots, heading, log_in, overview_numbers, shot, traffic, wait

ADMIN = {"X-Podium-Admin-Key": ADMIN_KEY}


# ---- helpers

def logged_in(driver, key=ADMIN_KEY):
    log_in(driver, key)
    wait(driver, lambda d: d.current_url.endswith("/console/overview"), "the overview after login")


def log_out(driver):
    """The header's Log out button; waits for the login page."""
    driver.find_element("css selector", "form.logout button").click()
    wait(driver, lambda d: "/console/login" in d.current_url, "the login page after logging out")


def operator_login(driver, name, password, code=None):
    """The login page's operator form; returns nothing, the caller waits for where it lands."""
    driver.get(f"{BASE}/console/login")
    driver.find_element("id", "operator").send_keys(name)
    driver.find_element("id", "password").send_keys(password)
    if code:
        driver.find_element("id", "code").send_keys(code)
    driver.find_element("id", "operator-submit").click()


def login_error(driver):
    """The login page's error after a refused login (it is rendered, not redirected)."""
    return wait(driver, lambda d: d.find_element("css selector", "p.flash.error").text, "the login page's error")


def flash(driver, text, what):
    """Waits for the notice the last action left, which must contain `text`."""
    return wait(driver, lambda d: text in d.find_element("css selector", "main p.flash").text and
                d.find_element("css selector", "main p.flash").text, what)


def submit(driver, button):
    """Clicks a form's button and waits for the page it leads to (not the one it was on)."""
    driver.execute_script("window.previousPage = true")
    button.click()
    wait(driver, lambda d: d.execute_script("return window.previousPage !== true && document.readyState === 'complete'"),
         "the next page")


def body(driver):
    return driver.find_element("tag name", "body").text


def row_with(driver, table, text):
    """The row of table `table` (an id) whose text contains `text`, or None."""
    return next((r for r in driver.find_elements("css selector", f"#{table} tbody tr") if text in r.text), None)


def cells(row):
    return [cell.text for cell in row.find_elements("tag name", "td")]


def fits(driver, what):
    """The page is no wider than the window (wide tables scroll inside it)."""
    width = driver.execute_script("return document.documentElement.scrollWidth")
    viewport = driver.execute_script("return window.innerWidth")
    assert width <= viewport + 1, f"{what} at {viewport} px is {width} px wide"


def game_fields(driver, games):
    """Every Game field of the page offers the games (list="game-choices", the layout's datalist)."""
    fields = [f for f in driver.find_elements("css selector", "input[name=game]") if f.get_attribute("type") != "hidden"]
    assert fields, f"no Game field on {driver.current_url}"
    assert [f.get_attribute("list") for f in fields] == ["game-choices"] * len(fields), driver.current_url
    options = driver.execute_script("return [...document.querySelectorAll('#game-choices option')].map(o => o.value)")
    assert sorted(options) == sorted(games), (options, games)


def confirmed(driver, *actions):
    """Each form posting to one of `actions` is on the page and asks first (data-confirm)."""
    forms = driver.find_elements("css selector", "form[method=post]")
    for action in actions:
        matching = [f for f in forms if f.get_attribute("action").endswith(action)]
        assert matching, f"no form to {action} on {driver.current_url}"
        assert all(f.get_attribute("data-confirm") for f in matching), f"a form to {action} asks nothing"


def post_form(driver, path, fields):
    """Posts a console form as the driver's session would (cookie, CSRF token, same origin)."""
    jar = {"podium_console": driver.get_cookie("podium_console")["value"]}
    csrf = driver.find_element("name", "csrf").get_attribute("value")
    response = httpx.post(f"{BASE}{path}", data={**fields, "csrf": csrf}, cookies=jar, headers={"Origin": BASE},
                          timeout=20)
    assert response.status_code == 303, response.text
    return response


def whole_page_shot(driver, name):
    """A screenshot of the whole page (the window made as tall as the page for it, then put back)."""
    if not SCREENSHOTS:
        return
    size = driver.get_window_size()
    chrome = driver.execute_script("return window.outerHeight - window.innerHeight")
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(size["width"], min(3000, height + chrome))
    shot(driver, name)
    driver.set_window_size(size["width"], size["height"])


def totp(secret, step):
    """RFC 6238 (over RFC 4226): HMAC-SHA1 of the 30 s step, dynamic truncation, six digits."""
    key = base64.b32decode(secret.upper() + "=" * (-len(secret) % 8))
    mac = hmac.new(key, struct.pack(">Q", step), hashlib.sha1).digest()
    offset = mac[-1] & 0x0F
    return f"{(struct.unpack('>I', mac[offset:offset + 4])[0] & 0x7FFFFFFF) % 1_000_000:06d}"


def registered(http, username, display_name):
    made = http.post("/v1/accounts", json={"username": username, "password": "correct horse battery",
                                           "displayName": display_name})
    assert made.status_code == 200, made.text
    return made.json()


def bearer(player):
    return {"Authorization": f"Bearer {player['sessionToken']}"}


# ---- tests

def test_games_and_challenge_definitions(browser):
    http = httpx.Client(base_url=BASE, timeout=20)
    games = {g["gameId"]: g["leaderboards"] for g in http.get("/v1/admin/games", headers=ADMIN).json()["games"]}
    assert {"dash", "whackacac"} <= set(games), games
    driver = browser("admin")
    logged_in(driver)

    # Without a game: every game, linked, with its number of boards.
    driver.get(f"{BASE}/console/games")
    rows = wait(driver, lambda d: d.find_elements("css selector", "#game-list tbody tr"), "the list of games")
    listed = {r.find_element("tag name", "a").text: (r.find_element("tag name", "a").get_attribute("href"), cells(r)[1])
              for r in rows}
    assert sorted(listed) == sorted(games), listed
    for game in ("dash", "whackacac"):
        assert listed[game] == (f"{BASE}/console/games?game={game}", str(games[game])), listed[game]
    game_fields(driver, games)
    driver.find_element("link text", GAME).click()
    wait(driver, lambda d: d.find_elements("id", "challenge-definitions"), "the game's challenge definitions")
    assert not driver.find_elements("id", "game-list")
    game_fields(driver, games)
    for name, path in (("Leaderboards", "leaderboards"), ("Players", "players"), ("Challenges", "challenges?game=dash"),
                       ("Event log", "events")):
        driver.get(f"{BASE}/console/{path}")
        wait(driver, lambda d, name=name: heading(d) == name, f"the {name} page")
        game_fields(driver, games)

    # A challenge defined with the form: listed with its durations, and over HTTP.
    from selenium.webdriver.support.ui import Select

    driver.get(f"{BASE}/console/games?game={GAME}")
    wait(driver, lambda d: d.find_elements("id", "define-challenge"), "the challenge form")
    board_choices = [o.get_attribute("value") for o in Select(driver.find_element("id", "challenge-board")).options]
    boards = http.get(f"/v1/games/{GAME}/leaderboards", headers=ADMIN).json()["leaderboards"]
    assert sorted(board_choices) == sorted(b["id"] for b in boards), board_choices
    tag = uuid.uuid4().hex[:6]
    definition = f"console.challenge.{tag}"

    def fill(identifier, durations):
        driver.find_element("id", "challenge-id").send_keys(identifier)
        driver.find_element("id", "challenge-title").send_keys(f"Console challenge {tag}")
        driver.find_element("id", "challenge-details").send_keys("Defined in the console.")
        Select(driver.find_element("id", "challenge-board")).select_by_value(BOARD)
        driver.find_element("id", "challenge-durations").send_keys(durations)

    fill(definition, "60, 1440")
    Select(driver.find_element("name", "attempts")).select_by_value("3")
    Select(driver.find_element("id", "challenge-release")).select_by_value("released")
    driver.find_element("css selector", "#define-challenge input[name=runEvent]").send_keys("run.finished")
    driver.find_element("css selector", "#define-challenge input[name=repeatable]").click()
    driver.find_element("id", "define-challenge-submit").click()
    flash(driver, f"challenge {definition} saved", "the challenge saved")
    row = row_with(driver, "challenge-definitions", definition)
    assert row, driver.find_element("id", "challenge-definitions").text
    assert cells(row)[:7] == [f"Console challenge {tag} {definition}", BOARD, "1 h, 1 d", "3", "yes", "released",
                              "run.finished"], cells(row)
    confirmed(driver, "/console/games/remove-challenge")
    stored = {d["id"]: d for d in http.get(f"/v1/games/{GAME}/challenges/definitions", headers=ADMIN).json()["definitions"]}
    assert definition in stored, sorted(stored)
    assert {k: stored[definition].get(k) for k in ("leaderboardId", "durations", "attempts", "releaseState", "repeatable",
                                                   "runEvent")} == {
        "leaderboardId": BOARD, "durations": [3_600_000, 86_400_000], "attempts": 3, "releaseState": "released",
        "repeatable": True, "runEvent": {"name": "run.finished"}}, stored[definition]
    whole_page_shot(driver, "challenge-definitions")

    # Bad durations define nothing: 0 minutes is refused by the gateway; letters are not even
    # sent by the browser (the field's pattern), and refused when sent anyway.
    bad = f"{definition}.bad"
    fill(bad, "0")
    driver.find_element("id", "define-challenge-submit").click()
    flash(driver, "invalid_field: durations are whole minutes", "zero minutes refused")
    fill(bad, "abc,")
    assert not driver.execute_script("return document.getElementById('define-challenge').checkValidity()")
    post_form(driver, "/console/games/define-challenge", {
        "game": GAME, "id": bad, "title": "Bad", "details": "Bad.", "board": BOARD, "durations": "abc,"})
    driver.get(f"{BASE}/console/games?game={GAME}")
    flash(driver, "invalid_field: durations are whole minutes", "letters refused")
    stored = [d["id"] for d in http.get(f"/v1/games/{GAME}/challenges/definitions", headers=ADMIN).json()["definitions"]]
    assert bad not in stored and definition in stored, stored
    assert not row_with(driver, "challenge-definitions", bad)

    # Removed from its row, after the confirmation.
    row_with(driver, "challenge-definitions", definition).find_element("tag name", "button").click()
    assert definition in answer(driver)
    flash(driver, f"challenge {definition} removed", "the challenge removed")
    assert not row_with(driver, "challenge-definitions", definition)
    stored = [d["id"] for d in http.get(f"/v1/games/{GAME}/challenges/definitions", headers=ADMIN).json()["definitions"]]
    assert definition not in stored, stored


def test_find_notify_and_names(browser):
    http = httpx.Client(base_url=BASE, timeout=20)
    tag = uuid.uuid4().hex[:6]
    zora_name, quinn_name = f"Zora{tag} Ames", f"Quinn{tag} Bell"
    zora = registered(http, f"zora{tag}", zora_name)
    device = f"console-{uuid.uuid4()}"
    quinn = http.post("/v1/sessions/device", json={"deviceId": device}).json()
    assert http.post("/v1/me/display-name", json={"displayName": quinn_name}, headers=bearer(quinn)).status_code == 200
    value = 600_000 + int(tag, 16) % 100_000
    score = http.post(f"/v1/games/{GAME}/leaderboards/{BOARD}/scores", json={"value": value}, headers=bearer(zora))
    assert score.status_code == 200, score.text
    assert http.post(f"/v1/games/{GAME}/events", json={"name": "run.finished", "value": 2},
                     headers=bearer(zora)).status_code == 200
    assert http.post(f"/v1/friends/{quinn['playerId']}/request", headers=bearer(zora)).status_code == 200
    assert http.post(f"/v1/friends/{zora['playerId']}/accept", headers=bearer(quinn)).status_code == 200
    timed = http.post(f"/v1/games/{GAME}/challenges/timed", headers=bearer(zora),
                      json={"boardId": BOARD, "durationMilliseconds": 3_600_000, "receivers": [quinn["playerId"]]})
    assert timed.status_code == 200, timed.text

    driver = browser("admin")
    logged_in(driver)

    # The board field offers the game's boards; the board asks before removing a score or a reset.
    driver.get(f"{BASE}/console/leaderboards?game={GAME}&board={BOARD}")
    wait(driver, lambda d: zora["playerId"] in d.find_element("id", "standings").text, "the player on the board")
    assert driver.find_element("name", "board").get_attribute("list") == "board-choices"
    choices = driver.execute_script("return [...document.querySelectorAll('#board-choices option')].map(o => o.value)")
    boards = http.get(f"/v1/games/{GAME}/leaderboards", headers=ADMIN).json()["leaderboards"]
    assert sorted(choices) == sorted(b["id"] for b in boards) and BOARD in choices, choices
    confirmed(driver, "/console/leaderboards/remove-score", "/console/leaderboards/reset")

    # Find a player by username, by the start of the display name (with a space, which the
    # browser sends as "+"), by id.
    rank = http.get(f"/v1/games/{GAME}/leaderboards/{BOARD}/entry", headers=bearer(zora)).json()["entry"]["rank"]
    for text in (f"zora{tag}", f"Zora{tag[:4]}", f"Zora{tag} Am", zora["playerId"]):
        field = driver.find_element("id", "find-on-board")
        field.clear()
        field.send_keys(text)
        submit(driver, driver.find_element("id", "find-on-board-submit"))
        found = next((p for p in driver.find_elements("css selector", "p.found")
                      if zora["playerId"] in "".join(a.get_attribute("href") for a in p.find_elements("tag name", "a"))),
                     None)
        assert found, (text, [p.text for p in driver.find_elements("css selector", "p.found")])
        assert found.text.endswith(f": rank {rank} with {value}"), (text, found.text)
        assert driver.find_element("id", "find-on-board").get_attribute("value") == text, "the box refilled as typed"
        link = found.find_element("tag name", "a")
        assert link.get_attribute("href") == f"{BASE}/console/players?playerId={zora['playerId']}"
        if text != zora["playerId"]:
            assert link.text == f"{zora_name} (zora{tag})", link.text
    field = driver.find_element("id", "find-on-board")
    field.clear()
    field.send_keys(f"nobody-{tag}")
    submit(driver, driver.find_element("id", "find-on-board-submit"))
    found = driver.find_element("css selector", "p.found")
    assert found.text == f"nobody-{tag}: no player by that id or name has an entry here", found.text

    # The player's page: challenges name the other side; a notice lands in the player's inbox.
    driver.get(f"{BASE}/console/players?playerId={zora['playerId']}&game={GAME}")
    wait(driver, lambda d: d.find_elements("id", "notify"), "the notice form")
    rows = [cells(r)[1:4] for r in driver.find_elements("css selector", "#player-challenges tbody tr")]
    assert rows == [["timed", "issued", quinn_name]], rows  # once, though the issuer also plays in it
    assert driver.find_element("css selector", "#notify input[name=game]").get_attribute("value") == GAME
    confirmed(driver, "/console/players/ban", "/console/players/revoke-session")
    message = f"Console notice {tag}: your last score is under review."
    driver.find_element("id", "notice-message").send_keys(message)
    driver.find_element("id", "notify-submit").click()
    flash(driver, "notice sent to the player's inbox", "the notice sent")
    inbox = http.get(f"/v1/games/{GAME}/inbox/items", headers=bearer(zora)).json()["items"]
    assert [(i["kind"], i["message"]) for i in inbox if i["kind"] == "operator.notice"] == [("operator.notice", message)], inbox

    # The other side's page names the issuer; its session revoked and its device unlinked, each
    # after a confirmation.
    driver.get(f"{BASE}/console/players?playerId={quinn['playerId']}&game={GAME}")
    wait(driver, lambda d: d.find_elements("id", "player-challenges"), "the receiver's challenges")
    rows = [cells(r)[1:4] for r in driver.find_elements("css selector", "#player-challenges tbody tr")]
    assert [row[:2] for row in rows] == [["timed", "received"]], rows
    assert rows[0][2] == zora_name, rows  # the issuer once, though also one of the receivers
    confirmed(driver, "/console/players/unlink-device", "/console/players/revoke-session")
    revoke = driver.find_element("xpath", f"//form[@action='/console/players/revoke-session']"
                                          f"[input[@name='session'][@value='{quinn['sessionId']}']]//button")
    revoke.click()
    assert "Revoke this session?" in answer(driver)
    flash(driver, "session revoked", "the session revoked")
    assert http.get("/v1/me", headers=bearer(quinn)).status_code == 401
    driver.find_element("xpath", "//form[@action='/console/players/unlink-device']//button").click()
    assert "Unlink this device?" in answer(driver)
    flash(driver, "device unlinked", "the device unlinked")
    assert driver.find_element("id", "devices").text == "none"
    again = http.post("/v1/sessions/device", json={"deviceId": device}).json()
    assert again["created"] and again["playerId"] != quinn["playerId"], again

    # Names next to ids in the event log and the audit log.
    driver.get(f"{BASE}/console/events?game={GAME}&player={zora['playerId']}")
    link = wait(driver, lambda d: d.find_element("css selector", "#event-log tbody a"), "the player's event")
    assert link.text == f"{zora_name} {zora['playerId']}", link.text
    driver.get(f"{BASE}/console/audit?type=inbox.admin.notify&player={zora['playerId']}")
    link = wait(driver, lambda d: d.find_element("css selector", "#audit-log tbody a"), "the notice in the audit log")
    assert link.text == f"{zora_name} {zora['playerId']}", link.text
    assert message in driver.find_element("id", "audit-log").text


def test_operators(browser):
    from selenium.webdriver.support.ui import Select

    # The helper itself, against RFC 6238's SHA-1 vector (T = 59 s: 94287082, six digits 287082).
    assert totp(base64.b32encode(b"12345678901234567890").decode(), 59 // 30) == "287082"
    http = httpx.Client(base_url=BASE, timeout=20)
    tag = uuid.uuid4().hex[:6]
    name, first, second = f"mod-{tag}", f"first password {tag}", f"second password {tag}"

    def account():
        listed = http.get("/v1/admin/operators", headers=ADMIN).json()["operators"]
        return next((o for o in listed if o["name"] == name), None)

    # The admin key: no account of its own; the list of operators and the form to make one.
    admin = browser("admin")
    logged_in(admin)
    admin.find_element("link text", "Operators").click()
    wait(admin, lambda d: heading(d) == "Operators", "the operators page")
    assert "You logged in with the admin key" in body(admin) and not admin.find_elements("id", "my-account")
    assert admin.find_elements("id", "operator-list")
    admin.find_element("id", "new-operator-name").send_keys(name)
    admin.find_element("id", "new-operator-password").send_keys(first)
    Select(admin.find_element("id", "new-operator-role")).select_by_value("moderator")
    admin.find_element("id", "create-operator-submit").click()
    flash(admin, f"operator {name} created", "the operator created")
    row = row_with(admin, "operator-list", name)
    assert row and Select(row.find_element("name", "role")).first_selected_option.get_attribute("value") == "moderator"
    assert cells(row)[2] == "no", cells(row)
    confirmed(admin, "/console/operators/role", "/console/operators/remove")
    assert account()["role"] == "moderator"

    # The moderator (on a phone's width): their own account only.
    mod = browser("moderator")
    mod.set_window_size(375, 800)
    operator_login(mod, name, first)
    wait(mod, lambda d: d.current_url.endswith("/console/overview"), "the moderator's overview")
    assert mod.execute_script("return window.innerWidth") == 375
    assert mod.find_element("id", "who").text == f"{name} (moderator)"
    mod.find_element("link text", "Operators").click()
    wait(mod, lambda d: d.find_elements("id", "my-account"), "the moderator's account")
    assert f"Your account: {name} (moderator)" in mod.find_element("id", "my-account").text
    assert not mod.find_elements("id", "operator-list") and not mod.find_elements("id", "create-operator")
    assert not mod.find_elements("css selector", "p.flash")
    fits(mod, "the operators page of a moderator")
    # Forms crafted by hand do not make a moderator more: no new operator, no new role.
    post_form(mod, "/console/operators/create", {"name": f"made-{tag}", "password": "x" * 16, "role": "administrator"})
    mod.get(f"{BASE}/console/operators")
    flash(mod, "forbidden", "a moderator may not make operators")
    post_form(mod, "/console/operators/role", {"name": name, "role": "administrator"})
    mod.get(f"{BASE}/console/operators")
    flash(mod, "forbidden", "a moderator may not change their role")
    assert account()["role"] == "moderator"
    assert not any(o["name"] == f"made-{tag}" for o in http.get("/v1/admin/operators", headers=ADMIN).json()["operators"])

    # A new password: the current one is asked again, the new one twice; once changed, this
    # session goes on (renewed) while the operator's other sessions end, and only the new one logs in.
    elsewhere = browser("moderator-elsewhere")
    operator_login(elsewhere, name, first)
    wait(elsewhere, lambda d: d.current_url.endswith("/console/overview"), "the moderator's second session")
    def change(current, new, repeat):
        mod.find_element("id", "current-password").send_keys(current)
        mod.find_element("id", "new-password").send_keys(new)
        mod.find_element("id", "repeat-password").send_keys(repeat)
        mod.find_element("id", "change-password-submit").click()

    change("not the password", second, second)
    flash(mod, "invalid_credentials: the current password is wrong", "a wrong current password refused")
    change(first, second, second + "!")
    flash(mod, "invalid_field: the new password and its repetition differ", "a repetition that differs refused")
    assert mod.find_elements("id", "my-account"), "a refused change ended the session"
    change(first, second, second)
    flash(mod, "password changed; your other console sessions ended", "the change's notice in the renewed session")
    assert mod.find_elements("id", "my-account"), "the session that made the change ended"
    elsewhere.get(f"{BASE}/console/overview")
    wait(elsewhere, lambda d: "/console/login" in d.current_url, "the other session ended by the change")
    log_out(mod)
    operator_login(mod, name, first)
    assert login_error(mod) == "Wrong operator name or password."
    operator_login(mod, name, second)
    wait(mod, lambda d: d.current_url.endswith("/console/overview"), "logged in with the new password")

    # A second factor: asked for with the current password (a wrong one shows no secret); the
    # secret shown once, confirmed with a code; the session ends, and a login needs a fresh code
    # (the server takes the next 30 s step's too, so none is awaited).
    mod.get(f"{BASE}/console/operators")
    mod.find_element("id", "totp-password").send_keys(first)
    submit(mod, mod.find_element("id", "totp-begin"))
    assert mod.find_element("css selector", "main p.flash.error").text == "invalid_credentials: the current password is wrong"
    assert not mod.find_elements("id", "enrollment")
    mod.find_element("id", "totp-password").send_keys(second)
    mod.find_element("id", "totp-begin").click()
    secret = wait(mod, lambda d: d.find_element("id", "totp-secret").text, "the new secret")
    assert re.fullmatch(r"[A-Z2-7]{32}", secret), secret
    assert mod.find_element("id", "enrollment").is_displayed()
    fits(mod, "the second factor's enrollment")
    step = int(time.time()) // 30
    mod.find_element("id", "totp-code").send_keys(totp(secret, step))
    mod.find_element("id", "totp-confirm").click()
    flash(mod, "second factor on", "the second factor's notice in the renewed session")
    assert not mod.find_elements("id", "enrollment") and mod.find_elements("id", "my-account")
    log_out(mod)
    operator_login(mod, name, second)
    assert login_error(mod) == "This account needs the code from its authenticator app."
    operator_login(mod, name, second, totp(secret, step))
    assert login_error(mod) == "That code is wrong or was used already."
    operator_login(mod, name, second, totp(secret, step + 1))
    wait(mod, lambda d: d.current_url.endswith("/console/overview"), "logged in with the code")
    assert account()["totp"] is True
    # Removing it is an administrator's: a stolen session cannot weaken the account.
    mod.get(f"{BASE}/console/operators")
    post_form(mod, "/console/operators/reset-totp", {"name": name})
    mod.get(f"{BASE}/console/operators")
    flash(mod, "forbidden", "a moderator may not remove their second factor")
    assert account()["totp"] is True

    # The administrator changes the role: the moderator's live session ends.
    admin.get(f"{BASE}/console/operators")
    row = row_with(admin, "operator-list", name)
    assert cells(row)[2].startswith("yes"), cells(row)
    shot(admin, "operators")
    Select(row.find_element("name", "role")).select_by_value("viewer")
    row.find_element("xpath", ".//form[@action='/console/operators/role']//button").click()
    assert name in answer(admin)
    flash(admin, f"{name} is now viewer; their sessions ended", "the role changed")
    assert account()["role"] == "viewer"
    mod.get(f"{BASE}/console/players")
    wait(mod, lambda d: "/console/login" in d.current_url, "the moderator's session ended by the role change")
    # ... resets the second factor (a password alone logs in again), and removes the account.
    row_with(admin, "operator-list", name).find_element(
        "xpath", ".//form[@action='/console/operators/reset-totp']//button").click()
    assert name in answer(admin)
    flash(admin, f"{name} logs in without a code now", "the second factor reset")
    operator_login(mod, name, second)
    wait(mod, lambda d: d.current_url.endswith("/console/overview"), "logged in without a code")
    assert mod.find_element("id", "who").text == f"{name} (viewer)"
    row_with(admin, "operator-list", name).find_element(
        "xpath", ".//form[@action='/console/operators/remove']//button").click()
    assert name in answer(admin)
    flash(admin, f"operator {name} removed", "the operator removed")
    assert account() is None and not row_with(admin, "operator-list", name)
    mod.get(f"{BASE}/console/overview")
    wait(mod, lambda d: "/console/login" in d.current_url, "the removed operator's session ended")


def test_overview_charts(browser):
    driver = browser("admin")
    logged_in(driver)
    wait(driver, lambda d: d.find_element("id", "updated").text.startswith("Updated "), "the overview's first refresh")
    driver.execute_script("window.stillHere = true")
    before = int(driver.find_element("id", "requests").text)
    for _ in range(3):
        httpx.get(f"{BASE}/v1/health", timeout=20)

    # Two neighbouring 5 s slots with requests (a line needs two points) ...
    def neighbours(numbers):
        timeline = numbers["timeline"]
        return any(a["requests"] and b["requests"] for a, b in itertools.pairwise(timeline))

    deadline = time.monotonic() + 30
    while not neighbours(overview_numbers(driver)):
        assert time.monotonic() < deadline, "no two neighbouring slots with requests within 30 s"
        httpx.get(f"{BASE}/v1/health", timeout=20)
        time.sleep(0.5)
    # ... in the charts once the page has refreshed by itself: the requests made since it
    # loaded are counted without a reload.
    refreshed = driver.find_element("id", "updated").text
    wait(driver, lambda d: d.find_element("id", "updated").text != refreshed and
         int(d.find_element("id", "requests").text) >= before + 3, "the overview's next refresh")
    assert driver.execute_script("return window.stillHere === true"), "the overview was reloaded"
    traffic(driver, 2)

    # The JSON: ten minutes in 120 slots of 5 s, oldest first, the newest holding the time;
    # slots with requests have their percentiles in order, the others none.
    numbers = overview_numbers(driver)
    timeline = numbers["timeline"]
    assert numbers["slotSeconds"] == 5 and len(timeline) == 120, (numbers["slotSeconds"], len(timeline))
    assert all(b["at"] - a["at"] == 5000 for a, b in itertools.pairwise(timeline))
    assert timeline[-1]["at"] <= numbers["time"] < timeline[-1]["at"] + 5000 and timeline[-1]["at"] % 5000 == 0
    busy = busy_slots(numbers)
    assert len(busy) >= 2
    for point in busy:
        assert 0 < point["p50"] <= point["p95"] <= point["p99"] <= point["max"], point
        assert 0 <= point["errors"] <= point["requests"], point
    for point in timeline:
        if not point["requests"]:
            assert point.get("p50") is None and point.get("max") is None, point
    assert sum(p["requests"] for p in timeline) <= numbers["requests"]
    assert sorted(p["name"] for p in numbers["processes"] if p["ready"]) == [
        "achievement", "auth", "challenge", "gateway", "leaderboard"], numbers["processes"]

    # The page: samples counted, the latest percentiles in words, both charts drawn in their
    # series' colours.
    assert 2 <= int(driver.find_element("id", "traffic").get_attribute("data-samples")) <= 120
    assert 1 <= int(driver.find_element("id", "latency").get_attribute("data-samples")) <= 120
    latest = re.search(r"p50 ([\d.]+) ms, p95 ([\d.]+) ms, p99 ([\d.]+) ms, max ([\d.]+) ms over (\d+) requests",
                       driver.find_element("id", "latency-now").text)
    assert latest, driver.find_element("id", "latency-now").text
    p50, p95, p99, highest = map(float, latest.groups()[:4])
    assert p50 <= p95 <= p99 <= highest and int(latest.group(5)) >= 1, latest.group(0)
    coloured = """
        const [id, r, g, b] = arguments;
        const canvas = document.getElementById(id);
        const data = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
        let count = 0;
        for (let i = 0; i < data.length; i += 4) {
          if (Math.abs(data[i] - r) < 30 && Math.abs(data[i + 1] - g) < 30 && Math.abs(data[i + 2] - b) < 30 && data[i + 3] > 200) count++;
        }
        return count;"""
    assert driver.execute_script(coloured, "traffic", 0x2F, 0x5F, 0xD0) > 20, "no requests line in the traffic chart"
    assert driver.execute_script(coloured, "latency", 0x8A, 0x2B, 0xE2) > 10, "no p99 line in the latency chart"

    confirmed(driver, "/console/sessions/revoke")
    whole_page_shot(driver, "overview")

    # At 375 px the charts shrink with the page; the new pages fit.
    driver.set_window_size(375, 800)
    driver.get(f"{BASE}/console/overview")
    wait(driver, lambda d: d.find_element("id", "updated").text.startswith("Updated "), "the overview at 375 px")
    assert driver.execute_script("return window.innerWidth") == 375
    fits(driver, "the overview")
    for chart in ("traffic", "latency"):
        right = driver.execute_script(f"return document.getElementById('{chart}').getBoundingClientRect().right")
        assert right <= 375, f"the {chart} chart reaches {right} px"
    driver.execute_script("document.getElementById('updated').scrollIntoView()")
    shot(driver, "overview-375")
    for path, what in ((f"games?game={GAME}", "define-challenge"), ("operators", "create-operator")):
        driver.get(f"{BASE}/console/{path}")
        wait(driver, lambda d, what=what: d.find_elements("id", what), f"{path} at 375 px")
        fits(driver, path)
