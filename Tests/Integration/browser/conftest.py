"""Fixtures for the real-browser tests of docs/examples/web (headless Chromium, Selenium).

The tests start no Podium stack and no web server: both must already run.

    PODIUM_TEST_HTTP      the gateway's HTTP front, e.g. http://127.0.0.1:28406
    PODIUM_TEST_WEB       where the repository root is served over HTTP, e.g. http://127.0.0.1:28407
                          (python3 -m http.server PORT --bind 127.0.0.1 --directory <repo>); the
                          gateway must list that origin in PODIUM_HTTP_ALLOWED_ORIGINS
    PODIUM_TEST_CHROMIUM      optional: the browser binary (default: chromium on PATH)
    PODIUM_TEST_CHROMEDRIVER  optional: the driver (default /usr/bin/chromedriver, else on PATH)
    PODIUM_TEST_SCREENSHOT_TO optional: a path to copy the final screenshot to (docs/web-example.png)

Without PODIUM_TEST_HTTP or PODIUM_TEST_WEB the tests are skipped. With them set, a missing
selenium, chromium or chromedriver is a failure (apt-get install chromium chromium-driver;
pip install selenium).
"""

import os
import shutil
import urllib.error
import urllib.request

import pytest

WINDOW = (1280, 1000)


@pytest.fixture(scope="session")
def urls():
    http = os.environ.get("PODIUM_TEST_HTTP", "").rstrip("/")
    web = os.environ.get("PODIUM_TEST_WEB", "").rstrip("/")
    if not http or not web:
        pytest.skip("PODIUM_TEST_HTTP and PODIUM_TEST_WEB are not both set")
    # Say plainly what is wrong with the setup, rather than let a page time out.
    for path in ("/docs/examples/web/index.html", "/clients/js/podium.js"):
        try:
            urllib.request.urlopen(web + path, timeout=10).close()
        except (OSError, urllib.error.URLError) as error:
            pytest.fail(f"{web}{path} cannot be fetched ({error}): serve the repository root there")
    origin = "/".join(web.split("/")[:3])
    preflight = urllib.request.Request(http + "/v1/friends", method="OPTIONS", headers={
        "Origin": origin, "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "authorization"})
    try:
        with urllib.request.urlopen(preflight, timeout=10) as response:
            allowed = response.headers.get("Access-Control-Allow-Origin")
    except urllib.error.HTTPError as error:
        allowed = error.headers.get("Access-Control-Allow-Origin")
    except OSError as error:
        pytest.fail(f"the gateway's HTTP front {http} cannot be reached ({error})")
    if allowed not in (origin, "*"):
        pytest.fail(f"the gateway at {http} does not allow the origin {origin}: add it to PODIUM_HTTP_ALLOWED_ORIGINS")
    return {"http": http, "web": web}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Keeps each phase's outcome on the item, so fixtures can tell whether the test failed."""
    outcome = yield
    report = outcome.get_result()
    setattr(item, "report_" + report.when, report)


class Browsers:
    """Starts headless Chromium sessions, each with its own profile (`browsers("ann")`), and
    keeps their console logs (`browsers.console("ann")`)."""

    def __init__(self, chromium, driver_path):
        self.chromium = chromium
        self.driver_path = driver_path
        self.drivers = {}
        self.logs = {}

    def __call__(self, name):
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service

        options = Options()
        options.binary_location = self.chromium
        for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                         f"--window-size={WINDOW[0]},{WINDOW[1]}", "--hide-scrollbars",
                         "--force-device-scale-factor=1", "--lang=en-US"):
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(service=Service(executable_path=self.driver_path), options=options)
        driver.set_page_load_timeout(20)
        self.drivers[name] = driver
        self.logs[name] = []
        return driver

    def console(self, name):
        """Every console line of the session so far ("LEVEL message")."""
        entries = self.drivers[name].get_log("browser")  # drains the browser's buffer
        self.logs[name].extend(f"{entry['level']} {entry['message']}" for entry in entries)
        return list(self.logs[name])


@pytest.fixture
def browser(urls, request, tmp_path):
    """A Browsers. At the end each session's console log is saved in tmp_path, and printed
    with a screenshot when the test failed."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        pytest.fail("selenium is not installed (pip install selenium)")
    chromium = os.environ.get("PODIUM_TEST_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = os.environ.get("PODIUM_TEST_CHROMEDRIVER") or (
        "/usr/bin/chromedriver" if os.path.exists("/usr/bin/chromedriver") else shutil.which("chromedriver"))
    if not chromium or not driver_path:
        pytest.fail("chromium or chromedriver not found (apt-get install -y chromium chromium-driver)")

    browsers = Browsers(chromium, driver_path)
    yield browsers

    failed = getattr(request.node, "report_call", None) is not None and request.node.report_call.failed
    for name, driver in browsers.drivers.items():
        try:
            lines = browsers.console(name)
            (tmp_path / f"{name}-console.log").write_text("\n".join(lines) + "\n")
            if failed:
                driver.save_screenshot(str(tmp_path / f"{name}-failure.png"))
                print(f"\n---- browser {name}: console ({len(lines)} lines), screenshot {tmp_path / (name + '-failure.png')}")
                print("\n".join(lines[-60:]))
        except Exception as error:  # the session may be gone already
            print(f"browser {name}: no console log ({error})")
        finally:
            driver.quit()
