"""The browser example (docs/examples/web) in two real, headless Chromium sessions.

Two players register through the page, become friends through it, play Whack-a-Cac, and one
challenges the other; the challenge and its completion must show up in the other page's feed
live, over the page's WebSocket, without a reload. Needs PODIUM_TEST_HTTP and PODIUM_TEST_WEB
(see conftest.py).
"""

import os
import re
import secrets
import shutil
from urllib.parse import quote

import pytest

if not (os.environ.get("PODIUM_TEST_HTTP") and os.environ.get("PODIUM_TEST_WEB")):
    pytest.skip("PODIUM_TEST_HTTP and PODIUM_TEST_WEB are not both set", allow_module_level=True)

from selenium.common.exceptions import (ElementClickInterceptedException, NoSuchElementException,
                                        StaleElementReferenceException)
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

GAME_PAGE = "/docs/examples/web/index.html"
KILL_ONE = "com.dragonforged.whackacac.killone"
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
TIMEOUT = 15  # seconds for any one thing to show up
MATCH_SECONDS = 3
IGNORED = (NoSuchElementException, StaleElementReferenceException, ElementClickInterceptedException)


def wait(driver, condition, message, timeout=TIMEOUT):
    """Waits until condition(driver) is truthy and returns it; on timeout, fails with the page's error banner."""
    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.1, ignored_exceptions=IGNORED).until(condition)
    except Exception as error:
        banner = driver.execute_script(
            "const e = document.getElementById('error'); return e && !e.hidden ? e.textContent : null")
        raise AssertionError(f"{message} (page error banner: {banner!r})") from error


def text(driver, element_id):
    return driver.find_element(By.ID, element_id).text.strip()


def click(driver, css, message):
    """Clicks the element once it is there and enabled (lists re-render: find it afresh each try)."""
    def attempt(d):
        element = d.find_element(By.CSS_SELECTOR, css)
        if not element.is_enabled():
            return False
        element.click()
        return True
    wait(driver, attempt, message)


def open_page(driver, urls, extra=""):
    driver.get(f"{urls['web']}{GAME_PAGE}?api={quote(urls['http'], safe='')}&matchSeconds={MATCH_SECONDS}{extra}")
    # game.js fills the server field once it (and podium.js) loaded.
    wait(driver, lambda d: d.find_element(By.ID, "base-url").get_attribute("value") == urls["http"],
         "the page's module did not load (is clients/js/podium.js there?)")


def register(driver, name):
    username = f"{name}-{secrets.token_hex(3)}"
    driver.find_element(By.ID, "username").send_keys(username)
    driver.find_element(By.ID, "password").send_keys("a long test password " + secrets.token_hex(4))
    driver.find_element(By.ID, "register").click()
    player_id = wait(driver, lambda d: UUID.match(text(d, "player-id")) and text(d, "player-id"),
                     f"registering {username} showed no player id")
    assert text(driver, "player-name") == username
    wait(driver, lambda d: d.find_element(By.ID, "socket-status").get_attribute("data-state") == "live",
         f"the WebSocket of {username} did not open")
    return player_id


def feed_item(driver, kind):
    """The feed's first item of this kind that arrived live on the socket (not from the inbox)."""
    items = driver.find_elements(By.CSS_SELECTOR, f'#feed li[data-kind="{kind}"][data-source="live"]')
    return items[0] if items else None


def game_state(driver):
    return driver.find_element(By.ID, "game").get_attribute("data-state")


def play_by_hand(driver, hits):
    """Starts a match and clicks `hits` cacti as a player would, then lets the match run out."""
    driver.find_element(By.ID, "start-match").click()
    wait(driver, lambda d: game_state(d) == "running", "the match did not start")
    score = 0
    while game_state(driver) == "running" and score < hits:
        for hole in driver.find_elements(By.CSS_SELECTOR, "#board .hole.up"):
            try:
                hole.click()
            except IGNORED:
                pass
        score = int(text(driver, "score"))
    wait(driver, lambda d: game_state(d) in ("done", "failed"), "the match did not end", timeout=MATCH_SECONDS + TIMEOUT)
    assert game_state(driver) == "done", "the score was not submitted"
    return int(text(driver, "score"))


def screenshot(driver, path):
    """The whole page: the window is made as tall as the document first."""
    driver.execute_script("window.scrollTo(0, 0)")
    height = driver.execute_script("return document.documentElement.scrollHeight")
    size = driver.get_window_size()
    driver.set_window_size(size["width"], max(size["height"], height + 140))
    driver.save_screenshot(str(path))


def test_two_players_friends_and_a_live_challenge(urls, browser, tmp_path):
    ann = browser("ann")
    bo = browser("bo")
    open_page(ann, urls)
    open_page(bo, urls, "&autoplay=1")  # Bo's page whacks every cactus itself, through the same click handler

    ann_id = register(ann, "ann")
    bo_id = register(bo, "bo")
    assert ann_id != bo_id

    # Friends: Ann asks by Bo's player id, Bo accepts on his page.
    ann.find_element(By.ID, "friend-id").send_keys(bo_id)
    ann.find_element(By.ID, "add-friend").click()
    wait(ann, lambda d: d.find_elements(By.CSS_SELECTOR, f'#outgoing li[data-player="{bo_id}"]'),
         "Ann's request is not listed as waiting")
    # Bo hears of it live (kept in his inbox too), and his page shows the request without a click.
    wait(bo, lambda d: feed_item(d, "friend.requested"), "Bo's feed shows no live friend.requested")
    click(bo, f"#accept-{ann_id}", "Bo sees no Accept button for Ann's request")
    wait(bo, lambda d: d.find_elements(By.CSS_SELECTOR, f'#friends li[data-player="{ann_id}"]'),
         "Ann is not among Bo's friends after accepting")
    # Ann's page polls the friends list; the Challenge button for Bo appears without a click.
    wait(ann, lambda d: d.find_elements(By.ID, f"challenge-{bo_id}"), "Bo is not among Ann's friends")
    wait(ann, lambda d: feed_item(d, "friend.accepted"), "Ann's feed shows no live friend.accepted")

    # Bo has no score yet: a challenge is refused with conflict, and the page says so.
    click(bo, f"#challenge-{ann_id}", "Bo has no Challenge button for Ann")
    wait(bo, lambda d: d.find_element(By.ID, "error").is_displayed()
         and d.find_element(By.ID, "error").get_attribute("data-code") == "conflict",
         "a challenge without a score did not show the conflict error")
    assert "conflict" in text(bo, "error")

    # Ann plays a match by hand: a couple of hits, then the time runs out and the score goes in.
    ann_score = play_by_hand(ann, hits=2)
    assert ann_score >= 1, "Ann hit no cactus in a whole match"
    wait(ann, lambda d: d.find_elements(By.CSS_SELECTOR, f'#leaderboard li.me[data-value="{ann_score}"]'),
         f"Ann's score {ann_score} is not on the leaderboard")
    assert text(ann, "best") == str(ann_score)
    # From here Ann's leaderboard shows her friends only: Bo's score will appear there on its own.
    ann.find_element(By.ID, "board-friends").click()
    wait(ann, lambda d: d.find_element(By.ID, "leaderboard").get_attribute("data-scope") == "friends"
         and d.find_elements(By.CSS_SELECTOR, f'#leaderboard li.me[data-rank="1"][data-value="{ann_score}"]'),
         "Ann's friends leaderboard does not show her at #1")

    # Kill One: earned by the first hit, announced on the socket, shown in the panel.
    wait(ann, lambda d: d.find_elements(By.CSS_SELECTOR, f'#achievements li[data-id="{KILL_ONE}"][data-earned="true"]'),
         "Kill One is not shown as earned")
    assert "Kill One" in ann.find_element(By.CSS_SELECTOR, f'#achievements li[data-id="{KILL_ONE}"]').text
    earned = wait(ann, lambda d: feed_item(d, "achievement.earned"), "no live achievement.earned in Ann's feed")
    assert "Kill One" in earned.text

    # Ann challenges Bo; Bo's page gets challenge.received over its socket, without a reload.
    click(ann, f"#challenge-{bo_id}", "Ann has no Challenge button for Bo")
    wait(ann, lambda d: "Challenge sent" in text(d, "status"), "Ann's challenge was not confirmed")
    received = wait(bo, lambda d: feed_item(d, "challenge.received"), "Bo's feed shows no live challenge.received")
    assert "challenged you" in received.text

    # Bo plays (autoplay hits every cactus) and beats Ann's score.
    bo.find_element(By.ID, "start-match").click()
    wait(bo, lambda d: game_state(d) in ("done", "failed"), "Bo's match did not end", timeout=MATCH_SECONDS + TIMEOUT)
    assert game_state(bo) == "done", "Bo's score was not submitted"
    bo_score = int(text(bo, "score"))
    assert bo_score > ann_score, f"Bo's autoplay scored {bo_score}, not more than Ann's {ann_score}"

    # Both hear about the completion live: Bo completed it, Ann's challenge was completed by Bo.
    done = wait(ann, lambda d: feed_item(d, "challenge.completed-by-receiver"),
                "Ann's feed shows no live challenge.completed-by-receiver")
    assert f"({bo_score} against {ann_score})" in done.text
    wait(bo, lambda d: feed_item(d, "challenge.completed"), "Bo's feed shows no live challenge.completed")
    # Ann's leaderboard refreshed on the notification: Bo is above her now.
    wait(ann, lambda d: d.find_elements(
        By.CSS_SELECTOR, f'#leaderboard li[data-player="{bo_id}"][data-rank="1"][data-value="{bo_score}"]'),
         "Bo's score is not at the top of Ann's friends leaderboard")

    for name in ("ann", "bo"):
        assert_no_script_errors(browser, name)

    # The pictures: Ann's page as it is, and Bo's in the middle of another match, a cactus up.
    shots = {name: tmp_path / f"{name}.png" for name in ("ann", "bo")}
    screenshot(ann, shots["ann"])
    bo.find_element(By.ID, "start-match").click()
    wait(bo, lambda d: d.find_elements(By.CSS_SELECTOR, "#board .hole.up"), "no cactus came up in Bo's second match")
    screenshot(bo, shots["bo"])
    wait(bo, lambda d: game_state(d) == "done", "Bo's second match did not end", timeout=MATCH_SECONDS + TIMEOUT)
    target = os.environ.get("PODIUM_TEST_SCREENSHOT_TO")
    if target:
        shutil.copyfile(shots["bo"], target)
    print(f"screenshots: {shots['ann']} {shots['bo']}")


def test_log_in_reload_log_out_and_guest(urls, browser):
    page = browser("page")
    open_page(page, urls)
    username = "cy-" + secrets.token_hex(5)
    password = "another long password " + secrets.token_hex(4)
    page.find_element(By.ID, "username").send_keys(username)
    page.find_element(By.ID, "password").send_keys(password)
    page.find_element(By.ID, "register").click()
    player_id = wait(page, lambda d: UUID.match(text(d, "player-id")) and text(d, "player-id"), "no player id after registering")

    # A reload keeps the session (this tab's sessionStorage) and opens the socket again.
    page.refresh()
    wait(page, lambda d: text(d, "player-id") == player_id, "the reload lost the session")
    wait(page, lambda d: d.find_element(By.ID, "socket-status").get_attribute("data-state") == "live",
         "the socket did not open again after the reload")

    page.find_element(By.ID, "logout").click()
    wait(page, lambda d: d.find_element(By.ID, "login-form").is_displayed(), "logging out did not show the login form")
    assert text(page, "player-id") == ""

    # A wrong password: the error banner shows the code and the message.
    page.find_element(By.ID, "username").send_keys(username)
    page.find_element(By.ID, "password").send_keys("not the password")
    page.find_element(By.ID, "login").click()
    wait(page, lambda d: d.find_element(By.ID, "error").get_attribute("data-code") == "invalid_credentials",
         "a wrong password showed no invalid_credentials")
    assert text(page, "error").startswith("invalid_credentials:")

    page.find_element(By.ID, "password").clear()
    page.find_element(By.ID, "password").send_keys(password)
    page.find_element(By.ID, "login").click()
    wait(page, lambda d: text(d, "player-id") == player_id, "logging in again gave another player")
    assert not page.find_element(By.ID, "error").is_displayed()
    page.find_element(By.ID, "logout").click()

    # A guest is the device's player: the same one after logging out and in again.
    click(page, "#guest", "no guest button")
    guest = wait(page, lambda d: UUID.match(text(d, "player-id")) and text(d, "player-id"), "no player id for the guest")
    assert guest != player_id
    page.find_element(By.ID, "logout").click()
    click(page, "#guest", "no guest button after logging out")
    wait(page, lambda d: text(d, "player-id") == guest, "the guest came back as another player")
    assert_no_script_errors(browser, "page")


def assert_no_script_errors(browser, name):
    errors = [line for line in browser.console(name) if "Uncaught" in line]
    assert not errors, f"script errors in {name}'s page: {errors}"
