"""What a recorded game means: its game, players, options, first player, decisions and table.

``hardware.replay.ReplaySource`` carries a recording's frames, their timing and its raw
``game.json`` dict; this module reads that dict as the referee does (fixtures/README.md):
the game by its registered name, the players in seating order, the rule options, the
decisions the tablet took, and the table layout of its labelled frames.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hardware.replay import ReplaySource
from referee import find_game
from vision.layouts import Layout, layout_from_label

_PER_GAME = ("players", "options", "first", "decisions")
"""A recording's keys that belong to its own game only."""


@dataclass(frozen=True)
class Recording:
    """A recording's game as the referee takes it (see ``read_recording``)."""

    game: str | None = None
    """The registered name of the recording's game (``seven-pennies``), or ``None``."""
    players: tuple[str, ...] = ()
    options: dict[str, Any] = field(default_factory=dict)
    first: str | None = None
    decisions: tuple[Any, ...] = ()
    """The tablet's recorded decisions (``web.replay_tablet.RecordedTablet`` takes them)."""
    calibration: dict[str, Any] | None = None
    """The table's calibration as JSON (``Calibration.from_json``), where ``game.json`` has one."""


def read_recording(raw: Mapping[str, Any], game: str | None = None) -> Recording:
    """The recording ``raw`` (a ``game.json`` dict) as the referee takes it; with ``game`` (the
    registered name of the game to be played), a recording of another game gives no players,
    options, first player or decisions: they do not apply.

    :raises ConfigError: for a recording naming a game that does not exist.
    """
    recorded = dict(raw)
    # One spelling of every game's name: the registered one, whatever an older recording wrote.
    if recorded.get("game") is not None:
        recorded["game"] = find_game(str(recorded["game"])).name
    if game is not None and recorded.get("game") not in (None, game):
        recorded = {key: value for key, value in recorded.items() if key not in _PER_GAME}
    config: dict[str, Any] = recorded["config"] if isinstance(recorded.get("config"), dict) else {}
    first = recorded.get("first") or config.get("first")
    calibration = recorded.get("calibration")
    return Recording(
        game=recorded.get("game"),
        players=tuple(recorded.get("players") or config.get("players") or ()),
        options=recorded_options(recorded),
        first=str(first) if first else None,
        decisions=tuple(recorded.get("decisions") or ()),
        calibration=calibration if isinstance(calibration, dict) else None,
    )


def recorded_options(recorded: Mapping[str, Any]) -> dict[str, Any]:
    """A recording's rule options: its ``options``, or the rule keys (``sp.…``) of its ``config``."""
    config: dict[str, Any] = recorded["config"] if isinstance(recorded.get("config"), dict) else {}
    return dict(recorded.get("options") or config.get("options")
                or {key: value for key, value in config.items() if "." in key})


def recording_layout(recorded: Mapping[str, Any]) -> Layout | None:
    """The table a game was recorded on, or ``None``.

    Taken from the first frame whose label has ``zones_mm`` and four ``markers`` (the
    fixtures' format); a recording without them (a ``Recorder``'s) has ``None``.

    :raises ValueError: for a frame label whose markers or zones are inconsistent.
    """
    for entry in recorded.get("frames") or ():
        if isinstance(entry, dict) and entry.get("zones_mm") and isinstance(entry.get("markers"), dict) and len(entry["markers"]) == 4:
            players = recorded.get("players")
            names: Sequence[str] = [str(p) for p in players] if isinstance(players, list) else []
            return layout_from_label(entry, str(recorded.get("game", "")), names)
    return None


def replay_layout(source: ReplaySource) -> Layout | None:
    """The table the replayed game was recorded on (``recording_layout`` of its ``game.json``)."""
    return recording_layout(source.game)
