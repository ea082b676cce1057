"""A client generated from docs/openapi.yaml by openapi-python-client (PyPI), used for real.

docs/clients/other-languages.md tells a studio whose language has no Podium client to generate
one from the OpenAPI document. This suite does what that page says, as a new user would: it runs
the page's own `openapi-python-client generate …` command (in a temporary directory, where
`docs/openapi.yaml` is this repository's), checks that the generator dropped nothing (it warns
when it cannot parse a response, as it once did for every error response) and that the models
the page relies on exist, imports the package, and walks the page's samples against
PODIUM_TEST_HTTP: a device login, a score submitted and resent with the same idempotency key, the
top of a board, and an error that comes back as the generated `Problem` model with its stable
`code`.

The samples on the page are the blocks of this file between `# docs:begin NAME` and
`# docs:end NAME` (dedented); each must equal, byte for byte, the fenced block that follows
`<!-- sample: NAME -->` on the page (test_the_page_shows_these_samples, which needs no stack).

Environment: PODIUM_TEST_HTTP, the HTTP front's base URL (scripts/test-clients sets it; without
it the tests that need the generator or a stack are skipped). openapi-python-client is
pip-installed when missing (scripts/install-deps --test installs it beforehand).
"""

import importlib
import importlib.util
import inspect
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path
from uuid import uuid4  # not `import uuid`: the submit sample imports it, in the test's scope

import pytest
import yaml

REPO = Path(__file__).resolve().parents[3]
PAGE = REPO / "docs" / "clients" / "other-languages.md"
SPEC = REPO / "docs" / "openapi.yaml"
BASE_URL = os.environ.get("PODIUM_TEST_HTTP", "").rstrip("/")
# The package the page's command writes (--output-path).
PACKAGE = "podium_api"
GENERATE_SECONDS = 120
needs_stack = pytest.mark.skipif(not BASE_URL, reason="PODIUM_TEST_HTTP is not set (scripts/test-clients sets it)")


def samples_in_this_file():
    """{name: dedented text} of every `# docs:begin NAME` … `# docs:end NAME` block below."""
    found = {}
    source = Path(__file__).read_text(encoding="utf-8")
    for match in re.finditer(r"^[ \t]*# docs:begin (\S+)\n(.*?)^[ \t]*# docs:end \1\n", source, re.S | re.M):
        found[match.group(1)] = textwrap.dedent(match.group(2))
    return found


def samples_on_the_page():
    """{name: (language, text)} of every fenced block right after `<!-- sample: NAME -->`."""
    text = PAGE.read_text(encoding="utf-8")
    return {
        match.group(1): (match.group(2), match.group(3))
        for match in re.finditer(r"^<!-- sample: (\S+) -->\n```(\w+)\n(.*?)^```$", text, re.S | re.M)
    }


def test_the_page_shows_these_samples():
    mine = samples_in_this_file()
    shown = samples_on_the_page()
    assert set(mine) == {"login", "submit", "top", "error"}, sorted(mine)
    assert "generate" in shown, "docs/clients/other-languages.md shows no generate command"
    for name, text in mine.items():
        assert name in shown, f"docs/clients/other-languages.md has no <!-- sample: {name} --> block"
        language, page_text = shown[name]
        assert language == "python", (name, language)
        assert page_text == text, f"the page's sample {name!r} is not this file's:\n{page_text}\n---\n{text}"
    assert set(shown) - set(mine) == {"generate"}, sorted(shown)


def generate_commands():
    """The `openapi-python-client …` lines of the page's generate block, split into arguments."""
    language, text = samples_on_the_page()["generate"]
    assert language == "sh", language
    commands = [shlex.split(line) for line in text.splitlines() if line.startswith("openapi-python-client ")]
    assert len(commands) == 1, text
    return commands


def tool_path():
    """PATH with the directories pip puts scripts in (openapi-python-client, and the ruff it runs
    on its output), which a `pip install --user` may have left off PATH."""
    directories = [sysconfig.get_path("scripts"), sysconfig.get_path("scripts", f"{os.name}_user")]
    return os.pathsep.join([d for d in directories if d] + [os.environ.get("PATH", "")])


def ensure_generator():
    if importlib.util.find_spec("openapi_python_client") is not None:
        return
    options = ["--quiet", "--disable-pip-version-check"]
    if os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")) and not os.environ.get(
        "VIRTUAL_ENV"
    ):
        options += ["--user", "--break-system-packages"]  # as scripts/install-deps does (PEP 668)
    subprocess.run([sys.executable, "-m", "pip", "install", *options, "openapi-python-client"], check=True, timeout=300)
    importlib.invalidate_caches()


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """Runs the page's command where `docs/openapi.yaml` is this repository's; yields the package
    directory and the generator's output, with the package importable."""
    if not BASE_URL:
        pytest.skip("PODIUM_TEST_HTTP is not set")
    ensure_generator()
    work = tmp_path_factory.mktemp("generated")
    (work / "docs").symlink_to(REPO / "docs", target_is_directory=True)
    environment = dict(os.environ, PATH=tool_path())
    output = ""
    for command in generate_commands():
        program = shutil.which(command[0], path=environment["PATH"])
        argv = [program, *command[1:]] if program else [sys.executable, "-m", "openapi_python_client", *command[1:]]
        result = subprocess.run(
            argv, cwd=work, env=environment, capture_output=True, text=True, timeout=GENERATE_SECONDS
        )
        output += result.stdout + result.stderr
        assert result.returncode == 0, output
    package = work / PACKAGE
    assert (package / "__init__.py").is_file(), f"the command wrote no {PACKAGE} package:\n{output}"
    sys.path.insert(0, str(work))
    try:
        yield package, output
    finally:
        sys.path.remove(str(work))
        for name in [name for name in sys.modules if name == PACKAGE or name.startswith(PACKAGE + ".")]:
            del sys.modules[name]


@needs_stack
def test_the_generator_drops_nothing_and_types_every_error(generated):
    package, output = generated
    # "Warning(s) encountered while generating. Client was generated, but some pieces may be
    # missing": what it said for every error response of the document's old allOf/const problems.
    assert "Warning" not in output and "Cannot parse" not in output, output
    models = importlib.import_module(f"{PACKAGE}.models")
    for name in ("DeviceLogin", "SessionGrant", "ScoreSubmission", "ScoreReceipt", "LeaderboardPage", "LeaderboardEntry", "Problem"):
        assert hasattr(models, name), f"the generated client has no model {name}"
    problem_fields = set(inspect.signature(models.Problem).parameters)
    assert {"type_", "title", "status", "detail", "code", "field", "retry_after_milliseconds", "request_id"} <= problem_fields
    # Every error response of the document is parsed into Problem by the generated code: as many
    # `Problem.from_dict` as the document has responses of status 400 and above.
    document = yaml.safe_load(SPEC.read_text(encoding="utf-8"))
    documented = sum(
        1
        for item in document["paths"].values()
        for method, operation in item.items()
        if method in ("get", "post", "delete", "put", "patch")
        for status in operation.get("responses", {})
        if str(status)[0] in "45"
    )
    parsed = sum(path.read_text(encoding="utf-8").count("Problem.from_dict(") for path in (package / "api").rglob("*.py"))
    assert documented > 100 and parsed == documented, (documented, parsed)


@needs_stack
def test_a_generated_client_logs_in_submits_reads_and_gets_typed_errors(generated):
    base_url = BASE_URL
    device_id = str(uuid4())

    # docs:begin login
    from podium_api import AuthenticatedClient, Client
    from podium_api.api.accounts import auth_device_login
    from podium_api.models import DeviceLogin, SessionGrant

    # Logging in needs no credential: a plain Client will do.
    public = Client(base_url=base_url)
    grant = auth_device_login.sync(client=public, body=DeviceLogin(device_id=device_id))
    assert isinstance(grant, SessionGrant), grant
    player = AuthenticatedClient(base_url=base_url, token=grant.session_token)
    # docs:end login

    assert grant.created is True and grant.player_id

    # docs:begin submit
    import uuid

    from podium_api.api.leaderboards import leaderboard_submit
    from podium_api.models import ScoreReceipt, ScoreSubmission

    key = str(uuid.uuid4())  # a fresh key per score; a resend with the same key is safe
    receipt = leaderboard_submit.sync(
        "dash", "com.example.dash.highscore", client=player, body=ScoreSubmission(value=1200), idempotency_key=key
    )
    assert isinstance(receipt, ScoreReceipt) and receipt.entry.value == 1200
    again = leaderboard_submit.sync(
        "dash", "com.example.dash.highscore", client=player, body=ScoreSubmission(value=1200), idempotency_key=key
    )
    assert again.duplicate is True  # the original answer: the score counted once
    # docs:end submit

    assert again.entry.submitted_at == receipt.entry.submitted_at

    # docs:begin top
    from podium_api.api.leaderboards import leaderboard_top
    from podium_api.models import LeaderboardPage

    page = leaderboard_top.sync("dash", "com.example.dash.highscore", client=player, limit=10)
    assert isinstance(page, LeaderboardPage)
    for entry in page.entries:
        print(entry.rank, entry.display_name, entry.value)
    # docs:end top

    assert 1 <= len(page.entries) <= 10 and page.total >= len(page.entries)
    ranks = [entry.rank for entry in page.entries]
    values = [entry.value for entry in page.entries]
    assert ranks == sorted(ranks) and ranks[0] == 1 and values == sorted(values, reverse=True), page
    # Among the player and their friends (none yet) the player is the whole board.
    own = leaderboard_top.sync("dash", "com.example.dash.highscore", client=player, friends_only=True)
    assert isinstance(own, LeaderboardPage), own
    assert [(entry.player_id, entry.rank, entry.value) for entry in own.entries] == [(grant.player_id, 1, 1200)]

    # docs:begin error
    from podium_api.models import Problem

    problem = leaderboard_top.sync("dash", "no.such.board", client=player)
    assert isinstance(problem, Problem)
    assert problem.code == "unknown_board"  # switch on the stable code, not on the status
    assert problem.status == 404 and problem.field == "payload.boardId"
    # docs:end error

    assert problem.type_ == "urn:podium:error:unknown_board" and problem.request_id
    # Another status, another code, the same model: the key reused for another score.
    reused = leaderboard_submit.sync(
        "dash", "com.example.dash.highscore", client=player, body=ScoreSubmission(value=1300), idempotency_key=key
    )
    assert isinstance(reused, Problem) and (reused.status, reused.code, reused.field) == (409, "id_reused", "id"), reused
    # And one without a credential at all: 401 with WWW-Authenticate, parsed the same way.
    anonymous = leaderboard_top.sync_detailed("dash", "com.example.dash.highscore", client=public)
    assert anonymous.status_code == 401 and anonymous.headers["WWW-Authenticate"].startswith("Bearer")
    assert isinstance(anonymous.parsed, Problem) and anonymous.parsed.code == "unauthenticated", anonymous.parsed
