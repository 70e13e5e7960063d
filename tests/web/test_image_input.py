"""Pictures from files, refused with their reason (issue 54): ``referee read`` names a picture
over the pixel limit without decoding it and a truncated JPEG as truncated; a replay skips a
truncated frame and says why, instead of reading it as an empty table."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import cv2
import pytest

from tests.hardware.fakes import write_replay_game
from web.cli import main
from web.bootstrap import open_table

SCENE = Path(__file__).resolve().parents[2] / "fixtures" / "scenes" / "dev" / "dev_0125.jpg"


def test_read_refuses_a_picture_over_the_pixel_limit_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    raw = bytearray(SCENE.read_bytes())
    sof = raw.index(b"\xff\xc0")
    raw[sof + 5:sof + 9] = struct.pack(">HH", 12000, 16000)  # the header of a 16000x12000 picture
    bomb = tmp_path / "bomb.jpg"
    bomb.write_bytes(bytes(raw))
    assert main(["read", str(bomb), str(SCENE), "--json"]) == 1
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert "16000x12000 pixels (192 megapixels), over the limit of 40 megapixels" in lines[0]["error"]
    assert lines[0]["notes"] == [lines[0]["error"]] and lines[0]["objects"] == []
    assert "error" not in lines[1] and lines[1]["objects"], "the next photo is still read"


def test_read_names_a_truncated_jpeg(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    raw = SCENE.read_bytes()
    cut = tmp_path / "cut.jpg"
    cut.write_bytes(raw[: len(raw) * 2 // 3])
    assert main(["read", str(cut), "--json"]) == 1
    record = json.loads(capsys.readouterr().out)
    assert "cut.jpg is a truncated JPEG" in record["error"] and record["objects"] == []


def test_a_replay_skips_a_truncated_frame_with_a_note_and_plays_on(tmp_path: Path) -> None:
    folder = tmp_path / "game"
    game = write_replay_game(folder)
    moving = game["frames"][1]  # dice still rolling: no ruling hangs on it
    image = cv2.imread(str(folder / moving["file"]))
    ok, encoded = cv2.imencode(".jpg", image)
    assert ok
    (folder / "frames" / "0001.jpg").write_bytes(encoded.tobytes()[: len(encoded) // 2])
    moving["file"] = "frames/0001.jpg"
    (folder / "game.json").write_text(json.dumps(game))
    service = open_table(f"replay:{folder}", str(tmp_path / "m.db"), realtime=False, read="labels")
    assert service.loop is not None and service.source is not None
    service.source.start()
    with pytest.raises(EOFError):
        while True:
            service.loop.step()
    status = service.loop.status
    assert status.bad_frames == 1 and "frame 0001: 0001.jpg is a truncated JPEG" in status.last_problem
    assert status.frames == len(game["frames"]) - 1
