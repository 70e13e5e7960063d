"""End to end: every whole game in fixtures/games replayed through source, settle, vision,
reconciliation and the match, with its recorded decisions, ends with exactly the expected
rulings and scores (plus a labelled synthetic game that always runs)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.hardware.fakes import write_replay_game
from web.service import open_table

ROOT = Path(__file__).resolve().parents[2]
FIXTURE_GAMES = sorted(path.parent for path in (ROOT / "fixtures" / "games").glob("*/game.json"))

KIND_WORDS = {"chance_outcome": "chance", "table_matches": "confirmed", "moves_confirmed": "confirmed"}


def expected_kinds(expected: dict[str, Any]) -> list[str] | None:
    rulings = expected.get("rulings")
    if rulings is None:
        return None
    kinds = [r["kind"] if isinstance(r, dict) else str(r) for r in rulings]
    return [KIND_WORDS.get(kind, kind) for kind in kinds]


def referee(folder: Path, db: Path, read: str) -> Any:
    service = open_table(f"replay:{folder}", str(db), realtime=False, read=read)
    service.start()
    assert service.wait(300), f"{folder.name}: the replay did not finish"
    service.stop()
    return service


def test_every_recorded_game_ends_with_its_expected_rulings_and_scores(tmp_path: Path) -> None:
    games = [(tmp_path / "synthetic", "labels")] + [(folder, "vision") for folder in FIXTURE_GAMES]
    write_replay_game(games[0][0])
    for number, (folder, read) in enumerate(games):
        recorded = json.loads((folder / "game.json").read_text())
        # fixtures/README.md: ``final`` holds the end (scores, ...); ``chance`` each throw's action.
        final = recorded.get("final") if isinstance(recorded.get("final"), dict) else recorded["expected"]
        service = referee(folder, tmp_path / f"m{number}.db", read)
        view = service.view()
        assert view["loop"]["state"] == "finished", f"{folder.name}: {view['loop']}"
        assert view["scores"] == final["scores"], folder.name
        if "winners" in final:
            assert view["winners"] == final["winners"], folder.name
        if isinstance(recorded.get("expected"), dict):
            kinds = expected_kinds(recorded["expected"])
            if kinds is not None:
                assert [r.kind for r in service.results] == kinds, folder.name
        camera_actions = [e.text for e in service.match.events if e.actor == "camera" and e.kind == "action"]
        if recorded.get("chance"):
            assert camera_actions == [c["action"] for c in recorded["chance"]], folder.name
        # Nothing applied without a frame or a person behind it.
        assert all(e.frame_id is not None for e in service.match.events if e.actor == "camera"), folder.name
