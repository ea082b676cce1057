"""Black-box tests of every process's operations listener (docs/OPERATIONS.md) and of its
metrics as a real Prometheus sees them.

Each of the five processes serves, on its own `PODIUM_METRICS` address, `GET /metrics`
(Prometheus text format), `GET /health/live` and `GET /health/ready`. These tests read them
directly, check the names and labels follow Prometheus's conventions (base units, `_total`
counters, bounded labels: never a player id), drive a known workload over HTTP and ZeroMQ and
see the counters move by at least that much, then start Debian's `prometheus` on 127.0.0.1,
let it scrape all five processes and ask its HTTP API the same questions.

The tests read:

    PODIUM_TEST_METRICS   name=host:port for the five processes, comma-separated
                          (gateway=127.0.0.1:9551,auth=…); without it this module is skipped
    PODIUM_TEST_HTTP      the gateway's HTTP front (http://127.0.0.1:8080)
    PODIUM_TEST_REQUESTS  (conftest.py) the gateway's ZeroMQ request endpoint

Counters only grow, and other tests share the stack, so every check is "at least": the value
after a workload minus the value before it is at least what the workload did. Waits are bounded.
"""

import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid

import httpx
import pytest
import zmq

from podium_client import call, unique

TARGETS = os.environ.get("PODIUM_TEST_METRICS")
BASE_URL = os.environ.get("PODIUM_TEST_HTTP")
if not TARGETS or not BASE_URL:
    pytest.skip("PODIUM_TEST_METRICS or PODIUM_TEST_HTTP is not set", allow_module_level=True)

PROCESSES = dict(entry.split("=", 1) for entry in TARGETS.split(","))
NAMES = ["gateway", "auth", "leaderboard", "achievement", "challenge"]
GAME = "dash"
BOARD = "com.example.dash.highscore"
WAIT_SECONDS = 20.0
UUID_PATTERN = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse(text):
    """Prometheus text format: {(name, frozenset(labels)): value}, and {name: type}."""
    samples, types = {}, {}
    for line in text.splitlines():
        if not line:
            continue
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ", 3)
            types[name] = kind
            continue
        if line.startswith("#"):
            continue
        match = SAMPLE.match(line)
        assert match, f"not a sample line: {line!r}"
        name, labels, value = match.groups()
        parsed = dict(LABEL.findall(labels or ""))
        samples[(name, frozenset(parsed.items()))] = float(value)
    return samples, types


def scrape(name):
    response = httpx.get(f"http://{PROCESSES[name]}/metrics", timeout=10)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain"), response.headers
    return parse(response.text)[0]


def total(samples, name, **labels):
    """The sum of the series of `name` whose labels include `labels` (0 when there is none)."""
    wanted = set(labels.items())
    return sum(value for (metric, series), value in samples.items() if metric == name and wanted <= set(series))


def wait_until(check, what):
    deadline = time.monotonic() + WAIT_SECONDS
    last = None
    while time.monotonic() < deadline:
        ok, last = check()
        if ok:
            return last
        time.sleep(0.2)
    pytest.fail(f"{what}: not seen within {WAIT_SECONDS} s; last seen {last!r}")


@pytest.fixture(scope="module")
def http():
    with httpx.Client(base_url=BASE_URL, timeout=15) as client:
        yield client


def device_player(http):
    response = http.post("/v1/sessions/device", json={"deviceId": f"metrics-{uuid.uuid4()}"})
    assert response.status_code == 200, response.text
    return response.json()


def submit_http(http, token, value):
    response = http.post(
        f"/v1/games/{GAME}/leaderboards/{BOARD}/scores", json={"value": value}, headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200, response.text


# ---------------------------------------------------------------------------------------------
# The listener itself


# Loops every process of that kind runs on either backend (the database pool, the lease keeper and
# the stream followers depend on the backend and the service).
GATEWAY_LOOPS = {"bus hub", "event log", "services", "housekeeping", "retention", "notifications", "requests", "http front"}
SERVICE_LOOPS = {"bus publisher", "bus subscriber", "gateway link", "announcements", "requests"}


@pytest.mark.parametrize("name", NAMES)
def test_health_probes_and_unknown_paths(name):
    base = f"http://{PROCESSES[name]}"
    live = httpx.get(f"{base}/health/live", timeout=10)
    assert live.status_code == 200 and live.json() == {"live": True}, live.text
    ready = httpx.get(f"{base}/health/ready", timeout=10)
    assert ready.status_code == 200 and ready.json()["ready"] is True, ready.text
    # Readiness is computed from the process's loops, each named with its state (OPERATIONS.md 1).
    loops = ready.json()["loops"]
    expected = GATEWAY_LOOPS if name == "gateway" else SERVICE_LOOPS
    assert expected <= set(loops), (expected - set(loops), loops)
    assert set(loops.values()) == {"running"}, loops
    assert httpx.get(f"{base}/nothing-here", timeout=10).status_code == 404


@pytest.mark.parametrize("name", NAMES)
def test_metrics_follow_prometheus_conventions(name):
    response = httpx.get(f"http://{PROCESSES[name]}/metrics", timeout=10)
    assert response.status_code == 200
    samples, types = parse(response.text)
    assert samples[("podium_ready", frozenset())] == 1.0
    assert samples[("process_resident_memory_bytes", frozenset())] > 1_000_000
    assert samples[("process_start_time_seconds", frozenset())] > 1_600_000_000
    assert ("process_cpu_seconds_total", frozenset()) in samples
    assert any(metric == "podium_database_size_bytes" and value > 0 for (metric, _), value in samples.items()), \
        "no database size above 0"
    for (metric, labels), _ in samples.items():
        assert metric.startswith(("podium_", "process_")), metric
        for label, value in labels:
            assert not UUID_PATTERN.search(value), f"{metric} has a label that looks like an id: {label}={value}"
    for metric, kind in types.items():
        if kind == "counter":
            assert metric.endswith("_total"), f"counter {metric} does not end in _total"
        if kind == "histogram":
            assert metric.endswith(("_seconds", "_size")), f"histogram {metric} is not in a base unit"


@pytest.mark.parametrize("name", NAMES)
def test_every_metric_has_help_and_promtool_finds_nothing(name):
    """Each metric family has a `# HELP` line from MetricNames.help, and Debian's `promtool check
    metrics` (the linter Prometheus's own tooling uses) reports nothing about the exposition."""
    text = httpx.get(f"http://{PROCESSES[name]}/metrics", timeout=10).text
    helps = {line.split(" ", 3)[2]: line.split(" ", 3)[3] for line in text.splitlines() if line.startswith("# HELP ")}
    kinds = {line.split(" ", 3)[2] for line in text.splitlines() if line.startswith("# TYPE ")}
    assert kinds, "no metric families"
    assert kinds <= set(helps), f"families without help text: {sorted(kinds - set(helps))}"
    undescribed = sorted(metric for metric, help in helps.items() if "not described" in help)
    assert not undescribed, f"metrics missing from MetricNames.help: {undescribed}"
    promtool = shutil.which("promtool")
    if not promtool:
        if os.environ.get("CI") == "true":
            pytest.fail("Debian's promtool is not installed (scripts/install-deps --test installs prometheus)")
        pytest.skip("promtool is not installed")
    checked = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True, text=True, timeout=30)
    assert checked.returncode == 0 and not checked.stdout.strip() and not checked.stderr.strip(), \
        f"promtool check metrics on {name}: exit {checked.returncode}\n{checked.stdout}{checked.stderr}"


def test_histograms_are_consistent():
    samples = scrape("gateway")
    counts = {labels: value for (metric, labels), value in samples.items() if metric == "podium_gateway_request_duration_seconds_count"}
    assert counts, "no request duration histogram on the gateway"
    for labels, count in counts.items():
        infinity = samples[("podium_gateway_request_duration_seconds_bucket", labels | {("le", "+Inf")})]
        assert infinity == count, (dict(labels), infinity, count)


# ---------------------------------------------------------------------------------------------
# Counters move with a known workload


def test_counters_follow_a_known_workload(http, sockets):
    before_gateway, before_leaderboard = scrape("gateway"), scrape("leaderboard")
    player = device_player(http)
    token = player["sessionToken"]
    for value in range(7):
        submit_http(http, token, 100 + value)
    dealer = sockets(zmq.DEALER)
    for value in range(5):
        reply = call(dealer, {"type": "leaderboard.submit", "id": unique("m"), "gameId": GAME, "token": token,
                              "payload": {"boardId": BOARD, "value": 200 + value}})
        assert reply["type"] == "reply", reply
    events = 4
    for index in range(events):
        response = http.post(f"/v1/games/{GAME}/events", json={"name": "run.finished", "value": index},
                             headers={"Authorization": f"Bearer {token}", "Idempotency-Key": unique("e")})
        assert response.status_code == 200, response.text
    refused = http.get(f"/v1/games/{GAME}/leaderboards/{BOARD}/top")
    assert refused.status_code == 401, refused.text

    def moved():
        gateway, leaderboard = scrape("gateway"), scrape("leaderboard")
        seen = {
            "http ok": total(gateway, "podium_gateway_requests_total", type="leaderboard.submit", transport="http", code="ok")
            - total(before_gateway, "podium_gateway_requests_total", type="leaderboard.submit", transport="http", code="ok"),
            "zeromq ok": total(gateway, "podium_gateway_requests_total", type="leaderboard.submit", transport="zeromq", code="ok")
            - total(before_gateway, "podium_gateway_requests_total", type="leaderboard.submit", transport="zeromq", code="ok"),
            "unauthenticated": total(gateway, "podium_gateway_requests_total", type="leaderboard.top", code="unauthenticated")
            - total(before_gateway, "podium_gateway_requests_total", type="leaderboard.top", code="unauthenticated"),
            "events": total(gateway, "podium_events_accepted_total") - total(before_gateway, "podium_events_accepted_total"),
            "http durations": total(gateway, "podium_gateway_request_duration_seconds_count", type="leaderboard.submit", transport="http")
            - total(before_gateway, "podium_gateway_request_duration_seconds_count", type="leaderboard.submit", transport="http"),
            "service ok": total(leaderboard, "podium_service_requests_total", service="leaderboard", type="leaderboard.submit", code="ok")
            - total(before_leaderboard, "podium_service_requests_total", service="leaderboard", type="leaderboard.submit", code="ok"),
            "batches": total(leaderboard, "podium_group_commit_batch_size_count", service="leaderboard", queue="scores")
            - total(before_leaderboard, "podium_group_commit_batch_size_count", service="leaderboard", queue="scores"),
        }
        wanted = {"http ok": 7, "zeromq ok": 5, "unauthenticated": 1, "events": events, "http durations": 7,
                  "service ok": 12, "batches": 1}
        return all(seen[key] >= wanted[key] for key in wanted), seen

    wait_until(moved, "the counters after 12 submissions, 4 events and one refused request")


def test_stream_lag_is_reported_per_follower():
    samples = scrape("achievement")
    for metric in ("podium_stream_position", "podium_stream_head", "podium_stream_lag"):
        assert total(samples, metric, service="achievement", stream="events") >= 0
        assert any(name == metric and ("stream", "events") in labels for (name, labels) in samples), metric
    challenge = scrape("challenge")
    assert {labels_dict["stream"] for (name, labels) in challenge if name == "podium_stream_lag"
            for labels_dict in [dict(labels)]} >= {"leaderboard", "achievement"}


def test_unknown_request_types_are_counted_as_unknown(sockets):
    dealer = sockets(zmq.DEALER)
    invented = f"leaderboard.no-such-{uuid.uuid4().hex[:8]}"
    reply = call(dealer, {"type": invented, "id": unique("u")})
    assert reply["type"] == "error", reply
    samples = scrape("gateway")
    assert not any(dict(labels).get("type") == invented for (_, labels) in samples), "an unknown type became a label"
    assert total(samples, "podium_gateway_requests_total", type="unknown") >= 1


# ---------------------------------------------------------------------------------------------
# A real Prometheus


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def prometheus():
    binary = shutil.which("prometheus")
    if binary is None:
        if os.environ.get("CI") == "true":
            pytest.fail("Debian's prometheus is not installed (scripts/install-deps --test installs it)")
        pytest.skip("prometheus is not installed")
    directory = tempfile.mkdtemp(prefix="podium-prometheus-")
    config = os.path.join(directory, "prometheus.yml")
    with open(config, "w") as file:
        file.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n  - job_name: podium\n    static_configs:\n")
        for name in NAMES:
            file.write(f"      - targets: ['{PROCESSES[name]}']\n        labels: {{process: {name}}}\n")
    port = free_port()
    process = subprocess.Popen(
        [binary, f"--config.file={config}", f"--storage.tsdb.path={directory}/data",
         f"--web.listen-address=127.0.0.1:{port}", "--log.level=warn"],
        stdout=subprocess.DEVNULL, stderr=open(os.path.join(directory, "prometheus.log"), "w"))
    base = f"http://127.0.0.1:{port}"
    try:
        def up():
            try:
                response = httpx.get(f"{base}/api/v1/targets", timeout=5)
            except httpx.HTTPError as error:
                return False, repr(error)
            if process.poll() is not None:
                pytest.fail(f"prometheus exited {process.returncode}: {open(os.path.join(directory, 'prometheus.log')).read()[-2000:]}")
            if response.status_code != 200:
                # Prometheus answers 503 "Service Unavailable" until its storage is open (seen in CI
                # under load): still starting, not an answer.
                return False, f"HTTP {response.status_code}: {response.text[:200]}"
            targets = response.json()["data"]["activeTargets"]
            healthy = sorted(t["labels"]["process"] for t in targets if t["health"] == "up")
            return healthy == sorted(NAMES), [(t["labels"].get("process"), t["health"], t.get("lastError")) for t in targets]

        wait_until(up, "all five processes up in prometheus")
        yield base
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        shutil.rmtree(directory, ignore_errors=True)


def query(base, promql):
    response = httpx.get(f"{base}/api/v1/query", params={"query": promql}, timeout=10)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == "success", body
    return body["data"]["result"]


def test_prometheus_scrapes_all_five_and_sees_the_counters_move(prometheus, http):
    up = query(prometheus, 'up{job="podium"}')
    assert sorted(series["metric"]["process"] for series in up if series["value"][1] == "1") == sorted(NAMES), up
    promql = 'sum(podium_gateway_requests_total{type="leaderboard.submit",code="ok"})'

    def current():
        result = query(prometheus, promql)
        return bool(result), float(result[0]["value"][1]) if result else None

    baseline = wait_until(current, "a first value of the submission counter")
    token = device_player(http)["sessionToken"]
    for value in range(10):
        submit_http(http, token, 300 + value)
    wait_until(lambda: ((value := current()[1]) is not None and value >= baseline + 10, value),
               f"the submission counter at baseline {baseline} + 10 through prometheus")
    lag = query(prometheus, 'podium_stream_lag{service="achievement",stream="events"}')
    assert lag and lag[0]["metric"]["process"] == "achievement", lag
    ready = query(prometheus, "min(podium_ready)")
    assert ready and ready[0]["value"][1] == "1", ready


def test_every_query_of_the_grafana_dashboard_runs(prometheus):
    """docs/grafana/podium.json: each panel's PromQL is accepted by Prometheus, and the panels
    about requests find series (the stack has answered requests by now)."""
    import json
    path = os.path.join(os.path.dirname(__file__), "..", "..", "..", "docs", "grafana", "podium.json")
    with open(path) as file:
        dashboard = json.load(file)
    assert dashboard["uid"] == "podium-overview"
    expressions = [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]]
    assert len(expressions) >= 15, expressions
    for expression in expressions:
        query(prometheus, expression)  # fails on a query Prometheus refuses
    assert query(prometheus, 'sum by (code) (rate(podium_gateway_requests_total[1m]))'), "no request series"
