"""Build ``web/static/rules.json``: every numbered rule of the rule book, its title and its text.

The tablet shows a rule ID cited in a prompt, an option or a forced move ("(SP-3.2)") as a small
tag; tapping it opens the rule's own words beside the picture. The rule book (``RULES.md``) lives
outside the repository, so its rules are shipped with the dashboard as this index, committed, and
rebuilt by this script whenever the rule book changes::

    python tools/rules_index.py [--rules ../shared/RULES.md] [--out web/static/rules.json]

A rule is defined where its ID opens a heading (``### SP-1 Components and setup``) or a bold
item (``- **SP-3.2 BOOTH (FORCED).** Let p = ...``, ``**A5 — how Booth pairs are formed.** ...``).
Its text is what follows, up to the next rule, heading or blank line, in plain words: the
Markdown marks (``**``, backticks) are dropped. A numbered condition in a rule's text is that
rule's sub-rule (item 1 of ``PH-9.1`` is ``PH-9.1.1``), as the referee cites it.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_RULES = REPO.parent / "shared" / "RULES.md"
DEFAULT_OUT = REPO / "web" / "static" / "rules.json"

RULE_ID = r"(?:G|SP|SPT|SPD|PW|FL|SV|PH)-(?:T\d+[a-z]?|\d+(?:\.\d+)*)|A\d+"
"""A rule ID of the rule book: ``G-3``, ``SP-3.6.4``, ``SP-T5a``, ``PH-6.1``, ``A12``."""
HEADING = re.compile(rf"^#{{2,4}} ({RULE_ID})\b\s*(?:[—–-]\s*)?(.*)$")
BOLD_ITEM = re.compile(rf"^\s*(?:[-*]\s+)?\*\*({RULE_ID})\b([^*]*)\*\*\s*(.*)$")
ANY_HEADING = re.compile(r"^#{1,6} ")
NUMBERED = re.compile(r"^\s+(\d+)\. (.*)$")
"""A numbered condition inside a rule's text (``  1. every red three ...``): the rule's sub-rule."""
MAX_TEXT = 1500
"""Characters of a rule's text kept: the worked examples run to pages; the panel shows the start."""


def plain(text: str) -> str:
    """Markdown marks dropped and spaces collapsed: ``**GATHER** — `g_i = 0``` → ``GATHER — g_i = 0``."""
    text = text.replace("**", "").replace("`", "")
    text = re.sub(r"(?<!\w)\*([^*\s][^*]*)\*(?!\w)", r"\1", text)
    return re.sub(r"\s+", " ", text).strip()


def _title(raw: str) -> str:
    """A rule's title from the words after its ID: ``" BOOTH (FORCED)."`` → ``"BOOTH (FORCED)"``."""
    title = plain(raw).lstrip("—–- ").rstrip(".: ").strip()
    if title.startswith("(gap)"):
        title = title.removeprefix("(gap)").lstrip("—–- ") + " (a gap in the text)"
    return title


def _table_row(line: str) -> str:
    """A Markdown table row in words (``| a | b |`` → ``a · b;``); its ``|---|`` rule dropped."""
    cells = line.strip().replace("\\|", "\0")
    if not cells.startswith("|"):
        return line
    if re.fullmatch(r"\|[-| :]+\|", cells):
        return ""
    return " · ".join(cell.strip().replace("\0", "|") for cell in cells.strip("|").split("|")) + ";"


def _clip(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT].rsplit(" ", 1)[0] + " …"


def parse_rules(markdown: str) -> dict[str, dict[str, str]]:
    """``{rule ID: {"title": ..., "text": ...}}`` for every rule ``markdown`` defines, in order.

    A heading's text runs to the next rule or heading; a bold item's ends at a blank line too. A
    heading with no words of its own (``### SP-4 End of round and scoring``) lists the rules under
    it. An ID defined twice keeps its first definition."""
    rules: dict[str, dict[str, str]] = {}
    under: dict[str, list[str]] = {}
    heading_id: str | None = None
    current: str | None = None
    is_heading = False
    body: list[str] = []

    def close() -> None:
        if current is not None:
            rules[current]["text"] = _clip(plain(" ".join(body)))

    for line in markdown.splitlines():
        heading = HEADING.match(line)
        item = None if heading else BOLD_ITEM.match(line)
        match = heading or item
        if match is not None:
            close()
            ident = match.group(1)
            current = None if ident in rules else ident
            is_heading = heading is not None
            body = [] if heading else [match.group(3)]
            if current is not None:
                rules[current] = {"title": _title(match.group(2)), "text": ""}
                if heading:
                    heading_id = current
                    under[current] = []
                elif heading_id is not None:
                    under[heading_id].append(current)
            continue
        if ANY_HEADING.match(line):
            close()
            current, heading_id, body = None, None, []
            continue
        if current is None:
            continue
        if not line.strip() and not is_heading:
            if not "".join(body).strip():
                continue  # an item's title alone: its text is the block below it (a table, a list)
            close()
            current, body = None, []
            continue
        numbered = NUMBERED.match(line)
        if numbered and not is_heading:
            # "PH-9.1 Conditions: 1. ... 2. ...": the referee cites condition 1 as PH-9.1.1.
            rules.setdefault(f"{current}.{numbered.group(1)}", {
                "title": f"{rules[current]['title']}, item {numbered.group(1)}".lstrip(", "),
                "text": _clip(plain(numbered.group(2)))})
        body.append(_table_row(line))
    close()
    for ident, rule in rules.items():
        if not rule["text"] and ident not in under:
            under[ident] = [child for child in rules if child.startswith(ident + ".") and "." not in child[len(ident) + 1:]]
    for ident, children in under.items():
        if not rules[ident]["text"] and children:
            listed = "; ".join(f"{child} {rules[child]['title']}".strip() for child in children)
            rules[ident]["text"] = _clip(f"This part holds {listed}.")
    return rules


def main(argv: list[str] | None = None) -> int:
    """Parse the rule book and write the index; print how many rules it holds."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", type=Path, default=DEFAULT_RULES, help="the rule book (RULES.md)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the index to write (rules.json)")
    args = parser.parse_args(argv)
    if not args.rules.is_file():
        print(f"rules_index: no rule book at {args.rules}", file=sys.stderr)
        return 2
    rules = parse_rules(args.rules.read_text(encoding="utf-8"))
    if not rules:
        print(f"rules_index: {args.rules} defines no rule (no '### SP-1 ...' heading nor '**SP-1.1 ...**' item)",
              file=sys.stderr)
        return 2
    args.out.write_text(json.dumps(rules, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(f"rules_index: {len(rules)} rules written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
