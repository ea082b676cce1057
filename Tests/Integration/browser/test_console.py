"""The operators' web console (/console on the gateway's HTTP front) in a real browser.

Headless Chromium through selenium: a wrong admin key is refused; the right one logs in and
lands on the overview (whose chart, refreshed by the page itself, counts the 5 s slots with
requests); every page opens; an operator bans a player from the Players page (the confirmation
dismissed first changes nothing) and that player's very next request is refused
(`player_banned`); resets a board from the leaderboard viewer and finds the archived standings;
reads both actions in the audit log. A form posted without the session's CSRF token, or from
another site, is refused; a console session revoked from another one is logged out. Forms that
undo something ask first (`window.confirm`); the tests answer the dialog.

test_console_work.py covers the rest of the console (challenge definitions, finding a player by
name, notices, the operators page, the overview's charts); it imports the helpers below.

Reads PODIUM_TEST_HTTP and PODIUM_TEST_ADMIN_KEY (skipped without them) and, through the
`browser` fixture of conftest.py, PODIUM_TEST_WEB. With PODIUM_TEST_CONSOLE_SCREENSHOTS set to a
directory, a screenshot of every page is written there (docs/console/ holds the committed ones;
the overview's comes from test_console_work.py, once it has more to draw).
"""

import os
import re
import time
import uuid

import httpx
import pytest

ADMIN_KEY = os.environ.get("PODIUM_TEST_ADMIN_KEY")
BASE = os.environ.get("PODIUM_TEST_HTTP", "").rstrip("/")
SCREENSHOTS = os.environ.get("PODIUM_TEST_CONSOLE_SCREENSHOTS")
GAME, BOARD = "dash", "com.example.dash.highscore"
WAIT = 30

if not ADMIN_KEY or not BASE:
    pytest.skip("PODIUM_TEST_ADMIN_KEY and PODIUM_TEST_HTTP are needed for the console", allow_module_level=True)

PAGES = [("Overview", "overview"), ("Games", "games"), ("Leaderboards", "leaderboards"), ("Players", "players"),
         ("Challenges", "challenges"), ("Event log", "events"), ("Audit log", "audit"), ("Operators", "operators")]


def wait(driver, condition, what):
    """The condition's first truthy value, polled until WAIT seconds have passed. A page that is
    being replaced (a form's redirect) makes an element lookup fail for a moment: that counts as
    not yet, not as a failure."""
    from selenium.webdriver.support.ui import WebDriverWait

    def attempt(d):
        try:
            return condition(d)
        except Exception:
            return False

    try:
        return WebDriverWait(driver, WAIT, poll_frequency=0.1).until(attempt)
    except Exception:
        pytest.fail(f"{what}: not within {WAIT} s; page {driver.current_url}: {driver.find_element('tag name', 'body').text[:800]}")


def shot(driver, name):
    if SCREENSHOTS:
        os.makedirs(SCREENSHOTS, exist_ok=True)
        driver.save_screenshot(os.path.join(SCREENSHOTS, f"{name}.png"))


def log_in(driver, key=ADMIN_KEY):
    """Logs in with the shared admin key (under "Log in with the admin key" on the login page)."""
    driver.get(f"{BASE}/console/login")
    driver.find_element("css selector", "details summary").click()
    driver.find_element("id", "key").send_keys(key)
    driver.find_element("id", "login").click()


def log_in_as_operator(driver, name, password):
    driver.get(f"{BASE}/console/login")
    driver.find_element("id", "operator").send_keys(name)
    driver.find_element("id", "password").send_keys(password)
    driver.find_element("id", "operator-submit").click()


def answer(driver, accept=True):
    """Answers the confirmation a form with data-confirm opens (window.confirm) and returns its
    question. Fails when no dialog opens."""
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    try:
        dialog = WebDriverWait(driver, 10).until(expected_conditions.alert_is_present())
    except Exception:
        pytest.fail(f"no confirmation dialog opened on {driver.current_url}")
    question = dialog.text
    if accept:
        dialog.accept()
    else:
        dialog.dismiss()
    return question


def overview_numbers(driver):
    """/console/api/overview as the driver's console session reads it."""
    jar = {"podium_console": driver.get_cookie("podium_console")["value"]}
    response = httpx.get(f"{BASE}/console/api/overview", cookies=jar, timeout=20)
    assert response.status_code == 200, response.text
    return response.json()


def busy_slots(numbers):
    return [point for point in numbers["timeline"] if point["requests"] > 0]


def traffic(driver, slots):
    """Makes the gateway answer requests (GET /v1/health, twice a second) until its timeline has
    `slots` 5 s slots with requests, then waits for the open overview's chart to count them (it
    refreshes itself every 5 s)."""
    deadline = time.monotonic() + 5 * slots + 20
    while len(busy_slots(overview_numbers(driver))) < slots:
        assert time.monotonic() < deadline, f"fewer than {slots} busy slots after {5 * slots + 20} s"
        httpx.get(f"{BASE}/v1/health", timeout=20)
        time.sleep(0.5)
    wait(driver, lambda d: int(d.find_element("id", "traffic").get_attribute("data-samples") or 0) >= slots,
         f"{slots} slots with requests in the traffic chart")


def heading(driver):
    return driver.find_element("tag name", "h1").text


def device_player(http):
    response = http.post("/v1/sessions/device", json={"deviceId": f"console-{uuid.uuid4()}"})
    assert response.status_code == 200, response.text
    return response.json()


def test_the_console_end_to_end(browser):
    from selenium.webdriver.support.ui import Select

    http = httpx.Client(base_url=BASE, timeout=20)
    driver = browser("operator")

    # A wrong key is refused, and the login page says so.
    log_in(driver, "not-the-admin-key-" + "x" * 30)
    wait(driver, lambda d: "not the admin key" in d.find_element("tag name", "body").text, "the wrong key refused")
    assert "/console/login" in driver.current_url
    shot(driver, "login")

    # The right key: the overview, every process ready, the live chart drawing.
    log_in(driver)
    wait(driver, lambda d: d.current_url.endswith("/console/overview"), "the overview after login")
    cards = driver.find_elements("css selector", ".card")
    assert sorted(c.find_element("tag name", "h2").text for c in cards) == ["achievement", "auth", "challenge", "gateway", "leaderboard"]
    assert all("ok" in c.get_attribute("class").split() for c in cards), [c.text for c in cards]
    cookie = driver.get_cookie("podium_console")
    assert cookie and cookie["httpOnly"] and cookie["sameSite"] == "Strict", cookie

    # Every page opens from the navigation.
    for label, path in PAGES:
        driver.find_element("link text", label).click()
        wait(driver, lambda d: heading(d) == label, f"the {label} page")
        assert driver.current_url.startswith(f"{BASE}/console/{path}")

    # Games: the example game's boards and achievements with rarity bars.
    driver.get(f"{BASE}/console/games?game=whackacac")
    wait(driver, lambda d: d.find_elements("css selector", ".bar .fill"), "achievements with rarity bars")
    shot(driver, "games")
    # A board and an achievement defined with the forms appear in the game's lists.
    tag = uuid.uuid4().hex[:6]
    driver.find_element("id", "board-id").send_keys(f"console.board.{tag}")
    driver.find_element("id", "board-title").send_keys(f"Console board {tag}")
    driver.find_element("id", "define-board-submit").click()
    wait(driver, lambda d: f"board console.board.{tag} saved" in d.find_element("tag name", "body").text, "the board saved")
    assert f"console.board.{tag}" in driver.find_element("tag name", "main").text
    driver.find_element("id", "achievement-id").send_keys(f"console.achievement.{tag}")
    driver.find_element("id", "achievement-title").send_keys(f"Console achievement {tag}")
    driver.find_element("id", "achievement-description").send_keys("Made in the console.")
    driver.find_element("id", "achievement-earned").send_keys("Earned in the console.")
    driver.find_element("id", "define-achievement-submit").click()
    wait(driver, lambda d: f"achievement console.achievement.{tag} saved" in d.find_element("tag name", "body").text,
         "the achievement saved")
    assert f"Console achievement {tag}" in driver.find_element("tag name", "main").text
    boards = http.get("/v1/games/whackacac/leaderboards", headers={"X-Podium-Admin-Key": ADMIN_KEY}).json()
    assert f"console.board.{tag}" in [b["id"] for b in boards["leaderboards"]], boards

    # A player to act on, with a score.
    victim = device_player(http)
    token = {"Authorization": f"Bearer {victim['sessionToken']}"}
    score = http.post(f"/v1/games/{GAME}/leaderboards/{BOARD}/scores", json={"value": 777_001}, headers=token)
    assert score.status_code == 200, score.text
    http.post(f"/v1/games/{GAME}/events", json={"name": "run.finished", "value": 3}, headers=token)

    # Players: find them, ban them; their very next request is refused.
    driver.get(f"{BASE}/console/players")
    driver.find_element("id", "q").send_keys(victim["playerId"])
    driver.find_element("id", "find").click()
    found = wait(driver, lambda d: d.find_elements("css selector", "#player-results a"), "the player in the results")
    found[0].click()
    wait(driver, lambda d: d.find_elements("id", "player-id"), "the player's record")
    assert driver.find_element("id", "player-id").text == victim["playerId"]
    assert driver.find_element("id", "ban-state").text == "not banned"
    shot(driver, "players")
    driver.find_element("id", "ban-reason").send_keys("console test: boosting")
    # The ban asks first; dismissed, nothing is sent: the same page, no ban, the token still works.
    driver.execute_script("window.stillHere = true")
    driver.find_element("id", "ban").click()
    assert victim["displayName"] in answer(driver, accept=False)
    time.sleep(0.5)  # a form sent in spite of the answer would be on its way by now
    assert driver.execute_script("return window.stillHere === true"), "the page was left after a dismissed confirm"
    assert driver.find_element("id", "ban-state").text == "not banned"
    assert not driver.find_elements("css selector", "p.flash"), "a notice after a dismissed confirm"
    assert http.get("/v1/me", headers=token).status_code == 200, "a dismissed confirm banned the player"
    driver.find_element("id", "ban").click()
    answer(driver)
    wait(driver, lambda d: "banned since" in d.find_element("id", "ban-state").text, "the ban on the player's page")
    refused = http.get("/v1/me", headers=token)
    assert refused.status_code == 403 and refused.json()["code"] == "player_banned", refused.text
    assert "boosting" in refused.json()["detail"]

    # Leaderboards: the player is on the board; a reset archives the standings.
    driver.get(f"{BASE}/console/leaderboards?game={GAME}&board={BOARD}")
    wait(driver, lambda d: victim["playerId"] in d.find_element("id", "standings").text, "the player on the board")
    shot(driver, "leaderboards")
    driver.find_element("name", "confirm").click()
    driver.find_element("id", "reset").click()
    assert BOARD in answer(driver)
    wait(driver, lambda d: "reset:" in d.find_element("tag name", "body").text, "the reset's message")
    archive = int(re.search(r"archive=(\d+)", driver.current_url).group(1))
    assert Select(driver.find_element("name", "archive")).first_selected_option.get_attribute("value") == str(archive)
    assert f"Archive {archive}" in driver.find_element("tag name", "main").text
    assert victim["playerId"] in driver.find_element("id", "standings").text
    current = http.get(f"/v1/games/{GAME}/leaderboards/{BOARD}/top", params={"limit": 200},
                       headers={"X-Podium-Admin-Key": ADMIN_KEY}).json()
    assert victim["playerId"] not in [e["playerId"] for e in current["entries"]]
    # The notice is shown once, and never taken from the URL (a link cannot forge one).
    reset_url = driver.current_url
    assert "flash" not in reset_url, reset_url
    driver.get(reset_url + "&flash=Your+key+expired%3A+log+in+at+evil.example")
    wait(driver, lambda d: d.find_elements("id", "standings"), "the board again")
    body = driver.find_element("tag name", "body").text
    assert "evil.example" not in body and "reset:" not in body, body

    # The audit log shows both, done from the console.
    driver.get(f"{BASE}/console/audit?type=auth.admin.ban&player={victim['playerId']}")
    rows = wait(driver, lambda d: d.find_elements("css selector", "#audit-log tbody tr td"), "the ban in the audit log")
    text = driver.find_element("id", "audit-log").text
    assert "auth.admin.ban" in text and "ok" in text and "boosting" in text, text
    driver.get(f"{BASE}/console/audit?type=leaderboard.admin.reset")
    assert "leaderboard.admin.reset" in driver.find_element("id", "audit-log").text
    driver.get(f"{BASE}/console/audit")
    shot(driver, "audit")
    driver.get(f"{BASE}/console/events?game={GAME}&player={victim['playerId']}")
    wait(driver, lambda d: "run.finished" in d.find_element("id", "event-log").text, "the player's event in the event log")
    shot(driver, "events")
    # Challenges: a running time-boxed challenge is listed as open and ended from the list.
    issuer, receiver = device_player(http), device_player(http)
    assert http.post(f"/v1/friends/{receiver['playerId']}/request", headers={"Authorization": f"Bearer {issuer['sessionToken']}"}).status_code == 200
    assert http.post(f"/v1/friends/{issuer['playerId']}/accept", headers={"Authorization": f"Bearer {receiver['sessionToken']}"}).status_code == 200
    timed = http.post(f"/v1/games/{GAME}/challenges/timed", headers={"Authorization": f"Bearer {issuer['sessionToken']}"},
                      json={"boardId": BOARD, "durationMilliseconds": 3_600_000, "receivers": [receiver["playerId"]]})
    assert timed.status_code == 200, timed.text
    challenge_id = timed.json()["challengeId"]
    driver.get(f"{BASE}/console/challenges?game={GAME}&open=1")
    # Each row has the challenge's id, the issuer's and participants' names and states.
    row = wait(driver, lambda d: next((r for r in d.find_elements("css selector", "#challenge-list tbody tr")
                                       if challenge_id in r.text), None), "the open challenge in the list")
    assert ": running" in row.text or ": pending" in row.text or "running" in row.text, row.text
    shot(driver, "challenges")
    row.find_element("tag name", "button").click()
    assert challenge_id in answer(driver)
    wait(driver, lambda d: "ended at" in d.find_element("tag name", "body").text, "the challenge ended from the console")
    # The list shows it ended at once, without a reload.
    ended_row = next(r for r in driver.find_elements("css selector", "#challenge-list tbody tr") if challenge_id in r.text)
    assert "End now" not in ended_row.text and "ended" in ended_row.text, ended_row.text
    detail = http.get(f"/v1/games/{GAME}/challenges/{challenge_id}", headers={"Authorization": f"Bearer {issuer['sessionToken']}"}).json()
    assert detail["endsAt"] < timed.json()["endsAt"], detail

    # A player's achievements and challenges in a game.
    driver.get(f"{BASE}/console/players?playerId={issuer['playerId']}&game={GAME}")
    wait(driver, lambda d: d.find_elements("id", "player-challenges"), "the player's challenges")
    assert "timed" in driver.find_element("id", "player-challenges").text
    assert receiver["playerId"] in driver.find_element("id", "friends").text
    assert driver.find_elements("id", "player-achievements")

    # Forms need the session's CSRF token and the console's own origin.
    jar = {"podium_console": driver.get_cookie("podium_console")["value"]}
    csrf = driver.find_element("name", "csrf").get_attribute("value")
    form = {"player": victim["playerId"]}
    no_token = httpx.post(f"{BASE}/console/players/unban", data=form, cookies=jar, headers={"Origin": BASE})
    assert no_token.status_code == 403 and "CSRF" in no_token.text, no_token.text
    cross_site = httpx.post(f"{BASE}/console/players/unban", data={**form, "csrf": csrf}, cookies=jar,
                            headers={"Origin": "http://evil.example"})
    assert cross_site.status_code == 403, cross_site.text
    no_session = httpx.post(f"{BASE}/console/players/unban", data={**form, "csrf": csrf}, headers={"Origin": BASE})
    assert no_session.status_code == 401, no_session.text
    assert http.get("/v1/me", headers=token).json()["code"] == "player_banned", "a refused form changed something"
    for path in ("/console/overview", "/console/api/overview"):
        anonymous = httpx.get(f"{BASE}{path}", follow_redirects=False)
        assert anonymous.status_code in (303, 401), (path, anonymous.status_code)
    headers = httpx.get(f"{BASE}/console/overview", cookies=jar).headers
    assert "script-src 'self'" in headers["content-security-policy"] and "unsafe-inline" not in headers["content-security-policy"]
    assert headers["x-frame-options"] == "DENY"

    # The issuer's data exported and their account deleted from the player page; the deletion
    # wants DELETE typed (the browser will not send the form without it, the gateway refuses it).
    driver.get(f"{BASE}/console/players?playerId={issuer['playerId']}")
    wait(driver, lambda d: d.find_elements("id", "delete-account"), "the player's delete form")
    exported = httpx.get(driver.find_element("id", "export").get_attribute("href"), cookies=jar)
    assert exported.status_code == 200 and "attachment" in exported.headers["content-disposition"], exported.text
    document = exported.json()
    assert document["playerId"] == issuer["playerId"] and document["challenges"]["issued"], document
    unconfirmed = httpx.post(f"{BASE}/console/players/delete", data={"player": issuer["playerId"], "csrf": csrf,
                                                                     "confirm": "yes"},
                             cookies=jar, headers={"Origin": BASE})
    assert unconfirmed.status_code == 303, unconfirmed.text
    issuer_token = {"Authorization": f"Bearer {issuer['sessionToken']}"}
    assert http.get("/v1/me", headers=issuer_token).status_code == 200, "an unconfirmed deletion deleted"
    driver.get(f"{BASE}/console/players?playerId={issuer['playerId']}")
    wait(driver, lambda d: d.find_elements("id", "delete-account"), "the player's delete form again")
    assert "type DELETE to confirm" in driver.find_element("tag name", "body").text
    driver.find_element("id", "delete-reason").send_keys("console test: asked by email")
    driver.find_element("id", "delete-confirm").send_keys("DELETE")
    driver.find_element("id", "delete").click()
    wait(driver, lambda d: "deleted;" in d.find_element("tag name", "body").text, "the deletion's notice")
    assert http.get("/v1/me", headers=issuer_token).status_code == 401
    friends = http.get("/v1/friends", headers={"Authorization": f"Bearer {receiver['sessionToken']}"}).json()
    assert friends["friends"] == [], friends

    # An operator account logs in by name and password; the header says who, and a viewer's try
    # at a change is refused with a notice.
    viewer_name = f"viewer-{uuid.uuid4().hex[:6]}"
    made = http.post("/v1/admin/operators", json={"name": viewer_name, "password": "a viewer's long password",
                                                   "role": "viewer"}, headers={"X-Podium-Admin-Key": ADMIN_KEY})
    assert made.status_code == 200, made.text
    watcher = browser("viewer")
    log_in_as_operator(watcher, viewer_name, "a viewer's long password")
    wait(watcher, lambda d: d.current_url.endswith("/console/overview"), "the viewer's overview")
    assert watcher.find_element("id", "who").text == f"{viewer_name} (viewer)"
    watcher.get(f"{BASE}/console/players?playerId={receiver['playerId']}")
    wait(watcher, lambda d: d.find_elements("id", "ban"), "the ban form")
    watcher.find_element("id", "ban-reason").send_keys("a viewer tries")
    watcher.find_element("id", "ban").click()
    answer(watcher)
    wait(watcher, lambda d: "forbidden" in d.find_element("tag name", "body").text, "the viewer refused")
    assert http.get("/v1/me", headers={"Authorization": f"Bearer {receiver['sessionToken']}"}).status_code == 200

    # At 375 px (a phone) every page fits the width: wide tables scroll inside the page, and the
    # navigation stays one short row.
    driver.set_window_size(375, 800)
    for label, path in PAGES:
        query = {"players": f"?playerId={receiver['playerId']}&game={GAME}", "challenges": f"?game={GAME}",
                 "leaderboards": f"?game={GAME}&board={BOARD}", "games": "?game=whackacac"}.get(path, "")
        driver.get(f"{BASE}/console/{path}{query}")
        wait(driver, lambda d: heading(d) == label, f"the {label} page at 375 px")
        width = driver.execute_script("return document.documentElement.scrollWidth")
        viewport = driver.execute_script("return window.innerWidth")
        assert width <= viewport + 1, f"{label} at {viewport} px is {width} px wide"
        header = driver.execute_script("return document.querySelector('header').getBoundingClientRect().height")
        assert header <= 120, f"the header takes {header} px at 375 px"
        shot(driver, f"{path}-375")
    driver.set_window_size(1280, 1000)

    # A second operator's session, revoked from the first: it is logged out.
    other = browser("second")
    log_in(other)
    wait(other, lambda d: d.current_url.endswith("/console/overview"), "the second operator's overview")
    other_label = other.get_cookie("podium_console")["value"][:8]
    driver.get(f"{BASE}/console/overview")
    # The chart counts the 5 s slots with requests, this test's among them (test_console_work.py
    # looks closer; its screenshot of the overview has more to draw).
    traffic(driver, 2)
    # (The overview rewrites its stream-lag rows every 5 s: the session's form is found by its label.)
    driver.find_element("xpath", f"//form[@action='/console/sessions/revoke'][input[@name='session']"
                                 f"[@value='{other_label}']]//button").click()
    assert other_label in answer(driver)
    wait(driver, lambda d: "console session revoked" in d.find_element("tag name", "body").text, "the revocation's message")
    other.get(f"{BASE}/console/players")
    wait(other, lambda d: "/console/login" in d.current_url, "the revoked session sent to the login page")

    # Log out.
    driver.find_element("css selector", "form.logout button").click()
    wait(driver, lambda d: "/console/login" in d.current_url, "the login page after logging out")
    driver.get(f"{BASE}/console/overview")
    wait(driver, lambda d: "/console/login" in d.current_url, "no way back in without logging in")
