"""Reconcile what the camera saw with the table the rules expect (DESIGN.md, the flow of one throw).

The result is exactly one ruling: the outcome of the pending throw (``ChanceOutcome``), the
table as expected (``TableMatches``, which confirms the forced moves), a ``Discrepancy`` naming
what is missing, extra, misplaced, on edge or cocked and what to do, or a ``Question`` where a
read is too unsure to use. The referee never guesses: nothing unsure becomes a ruling.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from itertools import combinations

from referee.actions import Action
from referee.core import CHANCE, State
from referee.errors import IllegalActionError
from referee.table import Item, Move, describe_items, zone_title

CONFIDENT = 0.8
"""Reads below this confidence are asked about, never used."""

MAX_MOVES_ANY_ORDER = 8
"""Up to this many forced moves, any subset may be the one still to make."""

UNREADABLE_FLAGS = frozenset({"cocked", "on_edge", "stacked", "moving"})
"""Flags that make an object's face unreadable: the throw is not valid (G-3)."""


@dataclass(frozen=True)
class Seen:
    """One object as the camera saw it, in the rules' terms.

    ``ref`` points back at the detection (its index in the observation) so the tablet can show
    which object a question or a problem is about.
    """

    kind: str
    value: str | int | None
    zone: str | None
    confidence: float = 1.0
    flags: tuple[str, ...] = ()
    ref: int = 0

    def item(self) -> Item:
        """The object as an ``Item`` (kind and face)."""
        return Item(self.kind, self.value)


@dataclass(frozen=True)
class Problem:
    """One difference between the table and the rules, in plain words, with what to do."""

    text: str
    zone: str | None = None
    refs: tuple[int, ...] = ()
    rule: str = ""


@dataclass(frozen=True)
class ChanceOutcome:
    """The pending throw or roll, read from the table: apply ``action`` to the match."""

    action: Action


@dataclass(frozen=True)
class TableMatches:
    """The table looks as the rules say; ``confirmed`` are the forced moves now carried out."""

    confirmed: tuple[Move, ...] = ()


@dataclass(frozen=True)
class Discrepancy:
    """The table differs from what the rules expect; nothing is applied until it is put right."""

    problems: tuple[Problem, ...]
    rethrow: bool = False
    """True when the throw itself is invalid and must be made again (G-3, A1)."""
    pending: tuple[Move, ...] = ()
    """The forced moves still to make, when the table is part-way through them."""

    def text(self) -> str:
        """All problems in one paragraph."""
        return " ".join(problem.text for problem in self.problems)


@dataclass(frozen=True)
class Question:
    """A read too unsure to use: the players are asked, e.g. "Is this penny heads or tails?"."""

    text: str
    refs: tuple[int, ...]
    choices: tuple[str, ...] = field(default=())


Ruling = ChanceOutcome | TableMatches | Discrepancy | Question


def reconcile(state: State, seen: Sequence[Seen], confident: float = CONFIDENT) -> Ruling:
    """Compare the camera's read with the table ``state`` expects and rule on it.

    Before ruling that the table is wrong (a discrepancy other than forced moves part-way
    done), the players are asked about any read that may be no object at all (no face read,
    not sure) and any unsure read in a zone found wrong: a printed letter taken for a die
    must not make the table look wrong.
    """
    ruling = _rule(state, seen, confident)
    if isinstance(ruling, Discrepancy) and not ruling.pending:
        wrong_zones = {problem.zone for problem in ruling.problems}
        doubtful = [s for s in seen if not s.flags and s.confidence < confident
                    and (s.value is None or s.zone in wrong_zones)]
        if doubtful:
            return _question(doubtful)
    return ruling


def _rule(state: State, seen: Sequence[Seen], confident: float) -> Ruling:
    chance = state.current_player() == CHANCE
    throw_zones = set(state.chance_zones()) if chance else set()
    # The camera sees kinds and faces, not the ids the rules give tracked objects (FLIP's dice).
    expected = {zone: tuple(_unnamed(item) for item in items) for zone, items in state.zones().items()}

    # Only a sure "not flat" rules a rethrow (G-3): the camera's unsure one (a bar it takes for a
    # coin on its edge, a circle it takes for a coin lying on another) is asked about below.
    unreadable = [s for s in seen if UNREADABLE_FLAGS & set(s.flags) and s.confidence >= confident]
    if unreadable:
        return _unreadable(unreadable, throw_zones, state.invalid_throw_instruction())
    outside = [s for s in seen if s.zone is None or s.zone not in expected]
    if outside and chance:
        refs = tuple(s.ref for s in outside)
        return Discrepancy((Problem(f"{_count(len(outside), 'object')} landed outside the play area. "
                                    f"{state.invalid_throw_instruction()}", None, refs, "G-3"),), rethrow=True)
    unsure = [s for s in seen if _face_matters(s, expected, throw_zones) and (s.value is None or s.confidence < confident)]
    if unsure:
        return _question(unsure)

    observed: dict[str, list[Item]] = {zone: [] for zone in expected}
    for s in seen:
        if s.zone in observed:
            observed[s.zone].append(s.item())
    problems = _compare(
        {z: items for z, items in expected.items() if z not in throw_zones},
        {z: items for z, items in observed.items() if z not in throw_zones},
        seen,
    )
    if outside:
        problems.insert(0, Problem(f"{describe_items(s.item() for s in outside)} lie outside every zone",
                                   None, tuple(s.ref for s in outside), "G-2"))
    if problems:
        pending = _pending_moves(state, observed, seen)
        if pending:
            return Discrepancy(tuple(Problem(f"Still to do: {move}", move.source, (), move.rule) for move in pending),
                               pending=pending)
        return Discrepancy(tuple(problems))
    if not chance:
        return TableMatches(state.forced_moves())
    waiting = state.chance_waiting({z: observed[z] for z in throw_zones})
    if waiting is None:
        waiting = not _compare({z: expected[z] for z in throw_zones}, {z: observed[z] for z in throw_zones}, seen)
    if waiting:
        # Nothing thrown yet: the table waits for the throw exactly as the rules expect it.
        return TableMatches(state.forced_moves())
    pending = _pending_moves(state, observed, seen)
    if pending:
        # G-2: the forced moves come first; objects still waiting to be moved are not a throw.
        return Discrepancy(tuple(Problem(f"Still to do: {move}", move.source, (), move.rule) for move in pending),
                           pending=pending)
    try:
        action = state.chance_from_table({z: observed[z] for z in throw_zones})
    except IllegalActionError as exc:
        return Discrepancy((Problem(str(exc), "theatre", (), exc.rule),), rethrow=True)
    error = state.why_illegal(action)
    if error is not None:
        return Discrepancy((Problem(str(error), "theatre", (), error.rule),), rethrow=True)
    return ChanceOutcome(action)


def _unnamed(item: Item) -> Item:
    return Item(item.kind, item.value) if item.ident is not None else item


def _pending_moves(state: State, observed: dict[str, list[Item]], seen: Sequence[Seen]) -> tuple[Move, ...]:
    """The forced moves not yet made, if the table is exactly part-way through them (else ``()``)."""
    moves = tuple(Move(tuple(_unnamed(i) for i in m.items), m.source, m.target, m.rule) for m in state.forced_moves())
    final = {zone: tuple(_unnamed(item) for item in items) for zone, items in state.zones().items()}
    # Players make the moves in any order: try every set of moves still to make, fewest first
    # (all orders for a handful of moves; beyond that, the listed order only).
    indexes = range(len(moves))
    for left in range(1, len(moves) + 1):
        candidates = combinations(indexes, left) if len(moves) <= MAX_MOVES_ANY_ORDER else [tuple(indexes[-left:])]
        for pending in candidates:
            table = _before(final, [moves[i] for i in pending])
            if table is not None and not _compare(table, observed, seen):
                return tuple(state.forced_moves()[i] for i in pending)
    return ()


def _before(final: dict[str, tuple[Item, ...]], moves: Sequence[Move]) -> dict[str, tuple[Item, ...]] | None:
    """The table as it was before ``moves`` were made, ending at ``final`` (None: inconsistent)."""
    zones = {zone: Counter(items) for zone, items in final.items()}
    for move in reversed(moves):
        arrived = Counter(_as_zone_holds(final, move.target, item) for item in move.items)
        if move.target in zones:
            if arrived - zones[move.target]:
                return None
            zones[move.target] -= arrived
        if move.source in zones:
            zones[move.source].update(_as_zone_holds(final, move.source, item) for item in move.items)
    return {zone: tuple(counts.elements()) for zone, counts in zones.items()}


def _as_zone_holds(final: dict[str, tuple[Item, ...]], zone: str, item: Item) -> Item:
    """An item as ``zone`` records it: without its face where the zone ignores faces."""
    held = final.get(zone, ())
    if held and all(other.value is None for other in held):
        return Item(item.kind, None, item.ident)
    return item


NOT_FLAT_ANSWERS = {"cocked": "cocked", "on edge": "on_edge"}
"""Answers to a question that say the object does not lie flat (G-3), with the flag they set."""
NOT_THERE_ANSWERS = frozenset({"not a die", "not a coin"})
"""Answers to a question that say the camera took something else (a printed letter, a ring,
a shadow) for a die or a coin: that read is dropped."""


AS_READ = "yes"
"""The answer to a question about several unsure reads at once ("Are these read right: ...?")
that says every one of them is: they are then taken as certain."""
ONE_BY_ONE = "no, one by one"
"""The answer that says some are not: the referee then asks about each of them in turn."""


def answer(seen: Sequence[Seen], refs: Iterable[int], value: str | int) -> list[Seen]:
    """The reads with the players' answer about objects ``refs`` taken as certain.

    ``cocked`` (a die) or ``on edge`` (a coin) says the object does not lie flat: it is then
    flagged so, unread, and the ruling is G-3's; a face says it lies flat, and any doubt the
    camera flagged about that is dropped. ``not a die`` / ``not a coin`` says there is no
    such object: the read is dropped. ``AS_READ`` confirms every read of ``refs``;
    ``ONE_BY_ONE`` forgets their faces, so each is asked about alone."""
    chosen = set(refs)
    if value == AS_READ:
        return [replace(s, confidence=1.0) if s.ref in chosen else s for s in seen]
    if value == ONE_BY_ONE:
        return [replace(s, value=None, confidence=0.0) if s.ref in chosen else s for s in seen]
    if str(value) in NOT_THERE_ANSWERS:
        return [s for s in seen if s.ref not in chosen]
    flag = NOT_FLAT_ANSWERS.get(str(value))
    if flag is not None:
        return [replace(s, value=None, confidence=1.0, flags=(*s.flags, flag)) if s.ref in chosen else s for s in seen]
    # A face answered says the object lies flat: the camera's doubt about that goes.
    return [replace(s, value=value, confidence=1.0, flags=_flat(s.flags)) if s.ref in chosen else s for s in seen]


def _flat(flags: tuple[str, ...]) -> tuple[str, ...]:
    """``flags`` without those that say an object does not lie flat."""
    return tuple(f for f in flags if f not in UNREADABLE_FLAGS and f != "leaning")


def _face_matters(s: Seen, expected: dict[str, tuple[Item, ...]], throw_zones: set[str]) -> bool:
    if s.zone in throw_zones:
        return s.zone == "theatre"
    return any(item.value is not None for item in expected.get(s.zone or "", ()))


def _unreadable(objects: list[Seen], throw_zones: set[str], instruction: str) -> Discrepancy:
    problems = []
    for s in objects:
        flag = next(f for f in s.flags if f in UNREADABLE_FLAGS)
        what = {"cocked": "is cocked against something", "on_edge": "is on its edge",
                "stacked": "lies on or under another coin", "moving": "is still moving"}[flag]
        problems.append(Problem(f"a {s.kind} in {zone_title(s.zone or 'theatre')} {what}", s.zone, (s.ref,), "G-3"))
    rethrow = any(s.zone in throw_zones for s in objects)
    if rethrow:
        problems.append(Problem(f"The throw is not valid (G-3). {instruction}", "theatre", (), "G-3"))
    return Discrepancy(tuple(problems), rethrow=rethrow)


def _question(unsure: list[Seen]) -> Question:
    if len(unsure) > 1 and all(s.value is not None for s in unsure):
        # Several unsure reads that each name a face (a throw of dice the reader reads right
        # but not surely): one look at the table answers for all of them.
        listing = describe_items(s.item() for s in unsure)
        return Question(f"Are these read right: {listing}?", tuple(s.ref for s in unsure), (AS_READ, ONE_BY_ONE))
    first = unsure[0]
    choices: tuple[str, ...]
    # Besides the faces, the players can say the object does not lie flat (G-3): an unsure
    # read is often a die cocked against another or a coin leaning on one; or that it is no
    # die or coin at all (a printed letter taken for one).
    if first.kind in ("penny", "nickel", "dime", "quarter", "other"):
        text, choices = f"Is this {first.kind} heads or tails?", ("heads", "tails", "on edge", "not a coin")
        if "overlapping" in first.flags:
            # Two coins overlapping more than flat coins can: one rests on the other (A1).
            text = f"This {first.kind} overlaps another coin: is it heads or tails, or leaning on it (on edge)?"
        elif {"on_edge", "leaning"} & set(first.flags):
            text = f"This {first.kind} may be on its edge: is it heads or tails, or on edge?"
        elif "stacked" in first.flags:
            text = f"This {first.kind} seems to lie on another coin: is it heads or tails, or not flat (on edge)?"
    else:
        faces = int(first.kind[1:]) if first.kind[1:].isdigit() else 6
        text, choices = f"What does this {first.kind} show?", (*(str(f) for f in range(1, faces + 1)), "cocked", "not a die")
        if "cocked" in first.flags:
            text = f"This {first.kind} may be cocked against something: what does it show, or is it cocked?"
    if len(unsure) > 1:
        text += f" ({len(unsure) - 1} more to check after this one)"
    return Question(text, (first.ref,), choices)


def _compare(expected: dict[str, tuple[Item, ...]], observed: dict[str, list[Item]], seen: Sequence[Seen]) -> list[Problem]:
    """Name every difference zone by zone; a missing object found in another zone is misplaced."""
    missing: dict[str, Counter[Item]] = {}
    extra: dict[str, Counter[Item]] = {}
    for zone, items in expected.items():
        want = Counter(items)
        have = Counter(_match_values(observed.get(zone, []), items))
        missing[zone] = want - have
        extra[zone] = have - want
    problems: list[Problem] = []
    misplaced: dict[tuple[str, str], list[Item]] = {}
    for zone, lacking in missing.items():
        for item, count in lacking.items():
            for other, surplus in extra.items():
                if other == zone or count == 0:
                    continue
                # A zone that does not care about faces takes any object of the right kind.
                for candidate in [c for c in surplus if _fits(c, item)]:
                    moved = min(count, surplus[candidate])
                    if moved:
                        misplaced.setdefault((other, zone), []).extend([candidate] * moved)
                        count -= moved
                        surplus[candidate] -= moved
            if count:
                problems.append(Problem(f"{zone_title(zone)} is missing {describe_items([item] * count)}", zone))
    for (source, target), moved_items in misplaced.items():
        refs = tuple(sorted({ref for item in set(moved_items) for ref in _refs(seen, source, item)}))
        problems.insert(0, Problem(f"{describe_items(moved_items)} in {zone_title(source)} should be in {zone_title(target)}",
                                   source, refs))
    for zone, surplus in extra.items():
        surplus = +surplus
        if surplus:
            problems.append(Problem(f"{zone_title(zone)} has {describe_items(surplus.elements())} too many",
                                    zone, _refs(seen, zone, None)))
    return problems


def _fits(candidate: Item, wanted: Item) -> bool:
    return candidate == wanted or (wanted.value is None and candidate.kind == wanted.kind)


def _match_values(items: list[Item], expected: Sequence[Item]) -> list[Item]:
    """Drop faces the rules do not care about in this zone (pennies waiting in the Balcony)."""
    if expected and all(item.value is None for item in expected):
        return [Item(item.kind) for item in items]
    if not expected:
        return [Item(item.kind) if item.value is None else item for item in items]
    return items


def _refs(seen: Sequence[Seen], zone: str, item: Item | None) -> tuple[int, ...]:
    return tuple(s.ref for s in seen if s.zone == zone and (item is None or s.kind == item.kind))


def _count(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")
