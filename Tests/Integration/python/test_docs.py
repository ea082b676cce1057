"""The listings in the documentation are the files they name (issue 20, item 7).

docs/GAME-CONFIG.md shows docs/examples/games/dash.json in full; a board left out of the listing
(the coins board's `"minimum": 0` once was) tells a reader something the product does not do. The
listing and the file must define the same game: compared after the defaults GAME-CONFIG.md
gives are filled in, so the listing may leave a default out. Needs no stack.
"""

import json
import os
import re

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")

# GAME-CONFIG.md's defaults for a board: what leaving a field out means.
BOARD_DEFAULTS = {"sortOrder": "higherIsBetter", "submitOperator": "best", "format": "integer", "serverOnly": False}


def listing(document, name):
    """The first ```json block after the line that names `name`."""
    text = open(os.path.join(ROOT, "docs", document), encoding="utf-8").read()
    start = text.index(name)
    match = re.search(r"```json\n(.*?)```", text[start:], re.S)
    assert match, f"no JSON listing after {name} in {document}"
    return json.loads(match.group(1))


def with_defaults(game):
    game = json.loads(json.dumps(game))
    for board in game.get("leaderboards", []):
        for field, value in BOARD_DEFAULTS.items():
            board.setdefault(field, value)
    return game


def test_the_dash_listing_is_the_dash_file():
    shown = listing("GAME-CONFIG.md", "examples/games/dash.json")
    with open(os.path.join(ROOT, "docs", "examples", "games", "dash.json"), encoding="utf-8") as file:
        real = json.load(file)
    assert with_defaults(shown) == with_defaults(real)
    # The case that once differed, named.
    coins = [board for board in shown["leaderboards"] if board["id"] == "com.example.dash.coins"]
    assert coins and coins[0].get("minimum") == 0, coins
