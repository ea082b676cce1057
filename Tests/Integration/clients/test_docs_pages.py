"""The client pages of docs/clients/ show code that runs, and link to what exists. Needs no stack.

* A fenced block right after `<!-- from: PATH -->` is quoted from PATH (a file a test runs: the
  example page's game.js runs in Chromium in Tests/Integration/browser): its lines must be
  consecutive lines of that file, each with the same indentation added (the page may dedent a
  quote taken from inside a function).
* Every relative link of those pages names a file or directory of the repository.
* README.md's first screen links the client pages (issue 33).

The samples of other-languages.md are checked by test_generated_python.py, which runs them.
"""

import re
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
PAGES = REPO / "docs" / "clients"
QUOTE = re.compile(r"^<!-- from: (\S+) -->\n```\w*\n(.*?)^```$", re.S | re.M)
# [text](target) links, not images' data URIs or absolute URLs.
LINK = re.compile(r"\]\(([^)\s]+)\)")
README_FIRST_SCREEN_LINES = 40


def pages():
    found = sorted(PAGES.glob("*.md"))
    assert found, f"no pages in {PAGES}"
    return found


def quoted_in(block, source):
    """Whether block's lines are consecutive lines of source, each with one common prefix added."""
    wanted = textwrap.dedent(block).splitlines()
    lines = source.splitlines()
    for start in range(len(lines) - len(wanted) + 1):
        first = lines[start]
        if not first.endswith(wanted[0]):
            continue
        prefix = first[: len(first) - len(wanted[0])]
        if prefix.strip():
            continue
        if all(
            (line == prefix + text) or (not text and not line.strip())
            for line, text in zip(lines[start : start + len(wanted)], wanted)
        ):
            return True
    return False


def test_quoted_code_is_the_code_that_runs():
    quotes = 0
    for page in pages():
        for match in QUOTE.finditer(page.read_text(encoding="utf-8")):
            path, block = match.group(1), match.group(2)
            source = REPO / path
            assert source.is_file(), f"{page.name} quotes {path}, which does not exist"
            assert quoted_in(block, source.read_text(encoding="utf-8")), (
                f"{page.name} quotes code that is not in {path}:\n{block}"
            )
            quotes += 1
    assert quotes >= 5, quotes  # browser.md's quotes of the example page at least


def test_relative_links_name_files_that_exist():
    for page in pages() + [REPO / "README.md"]:
        for target in LINK.findall(page.read_text(encoding="utf-8")):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                continue  # https:, mailto:, data:, an anchor on the same page
            path = (page.parent / target.split("#", 1)[0]).resolve()
            assert path.exists(), f"{page.relative_to(REPO)} links {target}, which does not exist"


def test_the_readme_links_the_client_pages_on_its_first_screen():
    first_screen = "\n".join(
        (REPO / "README.md").read_text(encoding="utf-8").splitlines()[:README_FIRST_SCREEN_LINES]
    )
    for page in ("docs/clients/README.md", "docs/clients/swift.md", "docs/clients/unity.md",
                 "docs/clients/browser.md", "docs/clients/other-languages.md"):
        assert f"]({page})" in first_screen, f"README.md's first {README_FIRST_SCREEN_LINES} lines do not link {page}"
