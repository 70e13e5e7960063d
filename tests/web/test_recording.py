"""web.recording: a recording's game, players, options, decisions and table, read from its
raw ``game.json`` (the replay source carries frames only)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from hardware.replay import ReplaySource
from referee.errors import ConfigError
from web.recording import read_recording, recorded_options, recording_layout, replay_layout

ROOT = Path(__file__).resolve().parents[2]
GAMES = ROOT / "fixtures" / "games"


def test_a_recording_names_its_game_by_the_registered_name_with_its_players_and_decisions() -> None:
    raw = {"game": "Seven Pennies", "players": ["Ann", "Bob"], "first": "Bob", "options": {"sp.x": 1},
           "decisions": [{"action": "pass"}], "calibration": {"mm_per_px": 1.0}, "frames": []}
    recording = read_recording(raw)
    assert recording.game == "seven-pennies"
    assert recording.players == ("Ann", "Bob") and recording.first == "Bob"
    assert recording.options == {"sp.x": 1} and recording.decisions == ({"action": "pass"},)
    assert recording.calibration == {"mm_per_px": 1.0}
    assert raw["game"] == "Seven Pennies"  # the raw dict is left as it was


def test_another_game_played_over_a_recording_takes_none_of_its_players_options_or_decisions() -> None:
    raw = {"game": "seven_pennies", "players": ["Ann", "Bob"], "first": "Ann", "options": {"sp.x": 1},
           "decisions": [{"action": "pass"}]}
    recording = read_recording(raw, game="pennywise")
    assert recording.game == "seven-pennies"
    assert (recording.players, recording.first, recording.options, recording.decisions) == ((), None, {}, ())


def test_a_recorders_config_gives_players_first_and_the_rule_keys_as_options() -> None:
    raw = {"game": "seven-pennies", "config": {"players": ["A", "B"], "first": "B", "sp.tko": True, "camera": "pi"}}
    recording = read_recording(raw)
    assert recording.players == ("A", "B") and recording.first == "B"
    assert recording.options == recorded_options(raw) == {"sp.tko": True}


def test_a_recording_of_an_unknown_game_is_a_config_error_naming_it() -> None:
    with pytest.raises(ConfigError, match="tiddlywinks"):
        read_recording({"game": "tiddlywinks"})


def test_the_fixture_table_comes_from_its_labelled_frames_and_a_recorders_stream_has_none() -> None:
    source = ReplaySource(GAMES / "sp_t1")
    layout = replay_layout(source)
    assert layout is not None and layout == recording_layout(source.game)
    assert layout.table_size_mm == (640.0, 480.0)  # the rendered table, not the default layout
    assert recording_layout({"frames": [{"file": "a.png", "t": 0.0}]}) is None


def test_the_replay_source_imports_nothing_of_vision_referee_or_web() -> None:
    tree = ast.parse((ROOT / "hardware" / "replay.py").read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert not {name for name in imported if name.split(".")[0] in ("vision", "referee", "web")}, imported
