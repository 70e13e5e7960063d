"""Every rule of RULES.md §G and §1-§4 that changes behaviour is cited by a test (issue 2).

What counts as a rule ID: an ID *defined* in §G or §1-§4 of ``../shared/RULES.md`` (relative to
the repository root), i.e. one that opens a heading (``### SP-3 The turn``, ``#### SP-T5``), a
bold item (``**SP-3.6.4 Payer selection.**``, ``**A10 — tie ...**``) or a test case
(``id: PW-T1``). Ambiguity entries A1-A65 are rule IDs like any other: each one has a
configuration key or adopts one reading, which is behaviour.

What counts as a citation: the whole ID in a comment or a docstring of a Python file under
``tests/`` (this file excepted), or in the name of a test function or class written in
lower case with ``-`` and ``.`` as ``_`` (``test_sp_3_6_4_...`` cites SP-3.6.4). "Whole" means
no letter, digit, ``-`` or ``.`` + digit continues it on either side: ``SP-3.6`` is not cited
by ``SP-3.6.4``, ``A1`` is not cited by ``A10``, ``SP-T5`` is not cited by ``SP-T5a``. Other
string literals do not count: they are data (Pennywise's move lines read ``A1 B1 A5/1+1+1+1``).

Sub-rules and parents: citing a sub-rule does NOT cover its parent. A parent with rules of its
own (``SP-3.6 CANCEL effect``, ``FL-4 The turn``) needs a test of its own; a heading that only
groups numbered sub-rules, a state table, a layout note or a derived fact restated elsewhere is
listed in ``NOT_BEHAVIOUR`` with the reason.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from functools import cache
from pathlib import Path

import pytest

from tests.conftest import REPO, SHARED

RULES = SHARED / "RULES.md"
TESTS = REPO / "tests"

ID = r"(?:G|SP|SPT|SPD|PW|FL|SV)-(?:T\d+[a-z]?|\d+(?:\.\d+)*)|A\d+"
"""A rule ID of §G-§4: ``G-3``, ``SP-3.6.4``, ``SPT-3.2``, ``SP-T5a``, ``A12``."""
DEFINITIONS = (
    re.compile(rf"^#{{2,4}} ({ID})\b", re.M),  # a heading: ### SP-1 Components and setup
    re.compile(rf"\*\*({ID})\b"),  # a bold item: **SP-3.6.4 Payer selection.**, **A1 (gap)
    re.compile(rf"^id: ({ID})\b", re.M),  # a test case: id: SP-T1
)

NOT_BEHAVIOUR: dict[str, str] = {
    # Headings that only group numbered sub-rules (each sub-rule is checked on its own).
    "SP-1": "heading of SP-1.1-SP-1.5",
    "SP-4": "heading of SP-4.1-SP-4.3",
    "SP-5": "heading of SP-5.1-SP-5.3",
    "SP-6": "heading of the derived facts SP-6.1-SP-6.6",
    "SP-T5": "heading of the test cases SP-T5a and SP-T5b",
    "PW-1": "heading of PW-1.1-PW-1.3",
    "PW-7": "heading of the results PW-7.1-PW-7.4",
    "PW-8": "heading of the test cases PW-T1-PW-T5",
    "FL-1": "heading of FL-1.1-FL-1.4",
    "FL-3": "heading of FL-3.1-FL-3.4",
    "FL-7": "heading of the facts FL-7.1-FL-7.3",
    "FL-8": "heading of the test cases FL-T1-FL-T3",
    "SP-7": "heading of the ambiguity entries A2-A18",
    "SPD-7": "heading of the ambiguity entries A25-A35",
    "SP-9": "heading of the worked examples SP-T1-SP-T5",
    "SPT-3": "heading of SPT-3.1-SPT-3.4 (its 'each evaluated once' is restated by SPT-3.4)",
    "PW-5": "heading of PW-5.1 and PW-5.2",
    "PW-6": "heading of the dashboard notes PW-6.1 and PW-6.2",
    "PW-9": "heading of the ambiguity entries A36-A46",
    "FL-9": "heading of the ambiguity entries A47-A57",
    "SV-1": "heading of SV-1.1 and SV-1.2",
    "SV-2": "heading of SV-2.1-SV-2.3",
    "SV-5": "heading of SV-5.1-SV-5.3",
    "SV-6": "heading of the facts SV-6.1-SV-6.4",
    "SV-7": "heading of the worked examples SV-T1-SV-T6",
    "SV-8": "heading of the ambiguity entries A58-A65",
    # State tables: the fields a state holds; the rules that change them are cited elsewhere.
    "SP-2": "state table; its invariants are SP-6.1 and SP-6.2",
    "SPT-2": "state table (nickels, active flags); 'no points' is restated by SPT-4",
    "SPD-2": "state table; the one-number invariant is SP-6.2 with dice (SPD-5)",
    "FL-2": "state table",
    "SV-3": "state table",
    # Layout notes and permissions that change no ruling.
    "A18": "table-layout requirement (a Gathered zone per player in view), restated by SP-1.3",
    "G-4": "permission to flag a placed throw, with no sanction: changes no ruling",
}
"""Rule IDs of §G-§4 that change no behaviour, each with the reason."""


@cache
def rules_text() -> str:
    """RULES.md, which lies in ../shared beside the repository (as in CI's clean clone)."""
    if not RULES.is_file():
        pytest.fail(f"RULES.md not found at {RULES}: the coverage check reads ../shared/RULES.md relative to "
                    f"the repository root {REPO}; check out the shared material beside the repository")
    return RULES.read_text(encoding="utf-8")


@cache
def defined_ids() -> tuple[str, ...]:
    """Every rule ID defined in §G and §1-§4, in order of first definition."""
    text = rules_text()
    start = re.search(r"^## G\. ", text, re.M)
    end = re.search(r"^## 5\. ", text, re.M)
    if start is None or end is None:
        pytest.fail(f"{RULES}: the headings '## G. ' and '## 5. ' that bound §G-§4 were not found")
    section = text[start.start():end.start()]
    found: dict[str, int] = {}
    for pattern in DEFINITIONS:
        for match in pattern.finditer(section):
            found.setdefault(match.group(1), match.start())
    return tuple(sorted(found, key=found.__getitem__))


def citable_text(source: str) -> tuple[str, list[str]]:
    """The comments and docstrings of a Python source, and its test names in lower case."""
    parts = [tok.string for tok in tokenize.generate_tokens(io.StringIO(source).readline)
             if tok.type == tokenize.COMMENT]
    names: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            docstring = ast.get_docstring(node, clean=False)
            if docstring:
                parts.append(docstring)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name.lower().startswith("test"):
            names.append(node.name.lower())
    return "\n".join(parts), names


def cites(rule: str, text: str, names: list[str]) -> bool:
    """Whether ``text`` or one of the test ``names`` cites ``rule`` as a whole ID."""
    if re.search(rf"(?<![\w.-]){re.escape(rule)}(?![\w-]|\.\w)", text):
        return True
    encoded = re.escape(re.sub(r"[-.]", "_", rule.lower()))
    return any(re.search(rf"(?:^|_){encoded}(?:_(?!\d)|$)", name) for name in names)


@cache
def citations() -> dict[str, tuple[str, ...]]:
    """Each defined rule ID with the test files that cite it."""
    sources = []
    for path in sorted(TESTS.rglob("*.py")):
        if path.resolve() != Path(__file__).resolve():
            sources.append((path.relative_to(REPO).as_posix(), *citable_text(path.read_text(encoding="utf-8"))))
    return {rule: tuple(name for name, text, names in sources if cites(rule, text, names)) for rule in defined_ids()}


def test_rules_md_ids_are_extracted() -> None:
    """The extraction finds every kind of ID of §G-§4 and every ambiguity A1-A65 (and nothing of §5)."""
    ids = set(defined_ids())
    assert {f"A{n}" for n in range(1, 66)} <= ids
    assert {f"G-{n}" for n in range(1, 7)} <= ids
    assert {"SP-3.6", "SP-3.6.4", "SPT-3.2", "SPD-6.1", "SP-T5a", "PW-4.3", "PW-T5", "FL-4", "FL-T3",
            "SV-4.5", "SV-T6"} <= ids
    assert not any(rule.startswith("PH-") or rule in ("A66", "A91") for rule in ids)


def test_citation_matching_is_whole_id() -> None:
    """A citation is a whole ID: no sub-rule, longer number or suffixed test case counts for another."""
    assert cites("SP-3.6", "see SP-3.6.", []) and cites("SP-3.6", "(SP-3.6, A9)", [])
    assert not cites("SP-3.6", "SP-3.6.4 payer", []) and not cites("A1", "A10 ties", [])
    assert not cites("SP-T5", "SP-T5a", []) and not cites("SP-3", "SPT-3.1 and xSP-3", [])
    assert cites("SP-3.6.4", "", ["test_sp_3_6_4_nearest_left"]) and cites("A47", "", ["test_a47_ties"])
    assert not cites("SP-3.6", "", ["test_sp_3_6_4_nearest_left"]) and not cites("A4", "", ["test_a47"])
    assert cites("G-5", "", ["test_pw_2_g_5_the_table"]) and cites("SP-T1", "", ["test_sp_t1"])


def test_not_behaviour_entries_are_rule_ids_with_reasons() -> None:
    """No stale entry: every NOT_BEHAVIOUR key is a rule ID of §G-§4 and has a reason."""
    stale = sorted(set(NOT_BEHAVIOUR) - set(defined_ids()))
    assert not stale, f"NOT_BEHAVIOUR entries that are no rule ID of RULES.md §G-§4: {stale}"
    assert all(reason.strip() for reason in NOT_BEHAVIOUR.values())


def test_every_behavioural_rule_is_cited_by_a_test() -> None:
    """Issue 2: every rule ID of §G and §1-§4 that changes behaviour is cited by a test."""
    uncovered = [rule for rule, files in citations().items() if not files and rule not in NOT_BEHAVIOUR]
    assert not uncovered, (f"{len(uncovered)} behavioural rule IDs of RULES.md are cited by no test "
                           f"(name, docstring or comment under tests/): {' '.join(uncovered)}")
