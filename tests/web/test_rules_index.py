"""The rule book the dashboard carries (``web/static/rules.json``): every rule ID a player can
read on the tablet opens its text, and the committed index is what ``tools/rules_index.py``
makes of the rule book."""

from __future__ import annotations

import ast
import json
import random
import re
from pathlib import Path

import pytest

from referee import CHANCE, Action, game_names
from tests.conftest import REPO, SHARED
from tests.referee.test_conformance import HIDDEN_INFORMATION, new_game
from tests.referee.test_pennies_from_heaven_playouts import TableSim
from tools.rules_index import parse_rules

INDEX = REPO / "web" / "static" / "rules.json"
RULES = SHARED / "RULES.md"
CITED = re.compile(r"(?<![\w.-])((?:G|SP|SPT|SPD|PW|FL|SV|PH)-(?:T\d+[a-z]?|\d+(?:\.\d+)*)|A\d+)(?![\w-]|\.\d)")
"""A whole rule ID inside a text: ``(SP-3.2)``, ``(PW-4.1, PW-4.2)``, ``rule="PH-6.1"``."""


def index() -> dict[str, dict[str, str]]:
    return dict(json.loads(INDEX.read_text(encoding="utf-8")))


def referee_literals() -> set[str]:
    """The rule IDs in the referee's string literals (prompts, labels, forced moves' and errors'
    rules), leaving out docstrings, which cite rules for the reader of the code."""
    cited: set[str] = set()
    for path in (REPO / "referee").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                      if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                      and node.body and isinstance(node.body[0], ast.Expr)
                      and isinstance(node.body[0].value, ast.Constant)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
                cited |= set(CITED.findall(node.value))
    return cited


def shown_in_playouts(name: str, seed: int, steps: int = 250) -> set[str]:
    """The rule IDs a seeded random playout of ``name`` shows: in its prompts, its options'
    labels and its forced moves (text and rule)."""
    cited: set[str] = set()

    def read(view: dict[str, object]) -> None:
        texts = [str(view["prompt"])]
        texts += [str(option["label"]) for option in view["options"]]  # type: ignore[attr-defined]
        for move in view["forced_moves"]:  # type: ignore[attr-defined]
            texts += [str(move.get("text", "")), str(move.get("rule", ""))]
        for text in texts:
            cited.update(CITED.findall(text))

    if name in HIDDEN_INFORMATION:
        class Watched(TableSim):
            """The simulated card table, reading the tablet's view after each real action."""

            def feed(self, action: Action) -> None:
                super().feed(action)
                read(self.state.view())

        read(Watched(len(new_game(name).players), seed, json_every=10_000).run(hands=1, max_steps=60).view())
        return cited
    rng = random.Random(seed)
    state = new_game(name).new_state()
    for _ in range(steps):
        read(state.view())
        if state.is_terminal():
            break
        state.apply(state.sample_chance(rng) if state.current_player() == CHANCE else rng.choice(state.legal_actions()))
    return cited


def test_the_index_holds_every_rule_id_the_referee_cites() -> None:
    """Every rule ID in the referee's prompts, labels, forced moves and refusals (SP-3.2, SV-4.2,
    G-3, PH-6.1, A47 ...) has its title or its text in the index, so its tag never opens empty."""
    rules = index()
    cited = referee_literals()
    assert {"SP-3.2", "SV-4.2", "G-3", "FL-4.2", "PW-4.1", "PH-6.1"} <= cited
    missing = sorted(cited - set(rules))
    assert not missing, f"rule IDs the referee cites but rules.json lacks: {missing}"
    assert all(rules[i]["text"] or rules[i]["title"] for i in cited)


@pytest.mark.parametrize("name", game_names())
def test_every_rule_id_a_game_shows_opens_its_text(name: str) -> None:
    """The rule IDs each game's random playouts show on the tablet are all in the index."""
    rules = index()
    shown = shown_in_playouts(name, seed=1) | shown_in_playouts(name, seed=2)
    assert shown, f"{name} shows no rule ID in a playout"
    assert sorted(shown - set(rules)) == []
    assert all(rules[i]["text"] for i in shown)


def test_the_committed_index_is_the_rule_books() -> None:
    """``python tools/rules_index.py`` rebuilds exactly the committed index from RULES.md."""
    assert index() == parse_rules(RULES.read_text(encoding="utf-8"))


def test_a_rule_reads_in_plain_words() -> None:
    """A bold item's title and text without Markdown; a grouping heading lists its rules."""
    rules = parse_rules(
        "### SP-3 The turn\n\n"
        "- **SP-3.2 BOOTH (FORCED).** Let `p = min(h, t)`. Move **p** heads\n  and p tails [A5].\n\n"
        "**A5 (gap) — how pairs form.** Forced and maximal.\n"
        "## 2. Next\n| a | b |\n"
    )
    assert rules["SP-3.2"] == {"title": "BOOTH (FORCED)", "text": "Let p = min(h, t). Move p heads and p tails [A5]."}
    assert rules["A5"] == {"title": "how pairs form (a gap in the text)", "text": "Forced and maximal."}
    assert rules["SP-3"]["text"] == "This part holds SP-3.2 BOOTH (FORCED); A5 how pairs form (a gap in the text)."


def test_the_tool_says_what_is_wrong_with_a_missing_rule_book(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tools.rules_index import main

    out = tmp_path / "rules.json"
    assert main(["--rules", str(tmp_path / "nowhere.md"), "--out", str(out)]) == 2
    assert "no rule book at" in capsys.readouterr().err and not out.exists()
