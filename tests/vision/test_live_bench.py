"""``benchmarks/live_bench.py``: an unknown game is named, with the games there are."""

from __future__ import annotations

import pytest

from benchmarks.live_bench import main


def test_an_unknown_game_is_named_with_the_games_there_are(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sp_t1x"]) == 2
    err = capsys.readouterr().err
    assert "no fixture game sp_t1x" in err and "sp_t1," in err


def test_options_are_not_taken_for_games(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    assert "GAME" in capsys.readouterr().out
