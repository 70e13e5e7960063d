"""``read_table`` and ``referee read``: composition, calibration, overlaps, the command line."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from tests.conftest import COINS_MMR, DICE_RUNE55
from vision.coins import CoinParams
from vision.read import ReadParams, read_table, resolve_overlaps
from vision.types import CONFIDENT, Detection, TableObservation
from web.cli import main

DATA = COINS_MMR
DICE = DICE_RUNE55


def photo(name: str) -> Path:
    """A real photo's path; a missing file fails the test."""
    path = DATA / name
    assert path.is_file(), f"real photo missing: {path}"
    return path


class FakeCalibration:
    """A duck-typed calibration: 0.1 mm per pixel, origin at the frame's top left, two zones."""

    mm_per_px = 0.1

    def image_to_table(self, points: Any) -> np.ndarray:
        return np.asarray(points, np.float64) * self.mm_per_px

    def zone_of(self, point_mm: tuple[float, float]) -> str | None:
        return "theatre" if point_mm[0] < 50.0 else "balcony"


def test_read_table_on_a_real_photo() -> None:
    """Coins found and read, frame size and a scale estimated from the coins themselves."""
    frame = cv2.imread(str(photo("mmr_90.jpg")))
    obs = read_table(frame)
    assert isinstance(obs, TableObservation)
    assert obs.frame_size == (frame.shape[1], frame.shape[0])
    coins = [o for o in obs.objects if o.kind in ("penny", "nickel", "dime", "quarter", "other")]
    assert len(coins) == 6
    assert obs.mm_per_px is not None and 0.05 < obs.mm_per_px < 0.3
    assert all(o.zone is None and o.position_mm is None for o in obs.objects)
    json.dumps(obs.to_json())  # the observation is JSON-friendly


def test_calibration_places_objects_in_zones() -> None:
    """With a calibration its scale is used and every object gets millimetres and a zone."""
    frame = cv2.imread(str(photo("mmr_90.jpg")))
    cal = FakeCalibration()
    obs = read_table(frame, calibration=cal)
    assert obs.mm_per_px == pytest.approx(0.1)
    assert obs.objects
    for o in obs.objects:
        assert o.position_mm == pytest.approx((o.center[0] * 0.1, o.center[1] * 0.1))
        assert o.zone == ("theatre" if o.center[0] * 0.1 < 50.0 else "balcony")


DEV_SCENES = Path(__file__).resolve().parents[2] / "fixtures" / "scenes" / "dev"
COINS = ("penny", "nickel", "dime", "quarter")


class SceneCalibration(FakeCalibration):
    """A rendered scene's scale (its label's homography at the centre), no zones."""

    def __init__(self, mm_per_px: float) -> None:
        self.mm_per_px = mm_per_px

    def zone_of(self, point_mm: tuple[float, float]) -> str | None:
        return None


def coins_found(obs: TableObservation, objects: list[dict[str, Any]]) -> tuple[int, int]:
    """(found, labelled) flat, whole coins of a scene's labels."""
    flat = [o for o in objects if o["kind"] in COINS and not o["flags"] and o["visible"] > 0.9]
    reads = [o.center for o in obs.objects if o.kind in COINS]
    hits = sum(
        any(np.hypot(cx - (o["bbox"][0] + o["bbox"][2] / 2), cy - (o["bbox"][1] + o["bbox"][3] / 2)) < 0.4 * o["bbox"][2] for cx, cy in reads)
        for o in flat
    )
    return hits, len(flat)


def test_coins_seen_small_are_found_with_and_without_a_calibration() -> None:
    """Issue 5: the referee's own camera sees a dime 32 px across. ``read_table`` finds such
    coins without any scale (the fine search; before it, 12% of the held-back scenes' coins
    were found), at the scale the printed table's corner markers give, and with a calibration
    at the table's own scale (as the live referee)."""
    from vision._coin_split import rendered_scale

    entries = [e for e in json.loads((DEV_SCENES / "labels.json").read_text()) if e["renderer"] == "blender"][:6]
    plain, marked, calibrated, total = 0, 0, 0, 0
    for entry in entries:
        frame = cv2.imread(str(DEV_SCENES / entry["image"]))
        hits, n = coins_found(read_table(frame, params=ReadParams(scale_from_markers=False)), entry["objects"])
        plain, total = plain + hits, total + n
        marked += coins_found(read_table(frame), entry["objects"])[0]
        obs = read_table(frame, calibration=SceneCalibration(rendered_scale(entry)))
        calibrated += coins_found(obs, entry["objects"])[0]
    assert total >= 30
    # Floors well below the benchmarks (held-back scenes: 89.8% with no scale, 94.1% at the
    # markers' scale, 94.3% with a calibration).
    assert plain >= 0.7 * total
    assert marked >= 0.8 * total
    assert calibrated >= 0.8 * total


def test_without_a_calibration_the_printed_markers_give_the_scale() -> None:
    """The referee's printed table has four 40 mm corner markers: without a calibration
    ``read_table`` measures the scale on them (within a few per cent of the scene's true
    scale), says so, and reads at it; told not to, or with no markers in view, the coins'
    own sizes give it."""
    from vision._coin_split import rendered_scale

    entry = next(e for e in json.loads((DEV_SCENES / "labels.json").read_text())
                 if e["renderer"] == "blender" and not any(e["camera"]["dist"]))
    frame = cv2.imread(str(DEV_SCENES / entry["image"]))
    obs = read_table(frame)
    assert obs.mm_per_px is not None and abs(obs.mm_per_px / rendered_scale(entry) - 1) < 0.04
    assert any("corner markers" in note for note in obs.notes)
    assert all(o.zone is None and o.position_mm is None for o in obs.objects)  # no calibration: no zones
    unmarked = read_table(frame, params=ReadParams(scale_from_markers=False))
    assert not any("corner markers" in note for note in unmarked.notes)
    photo_obs = read_table(cv2.imread(str(photo("mmr_92.jpg"))))  # a photo of coins, no table
    assert not any("corner markers" in note for note in photo_obs.notes)


def test_coins_cocked_on_another_are_seldom_read_as_a_face() -> None:
    """RULES A1: a throw with a coin cocked against another is invalid, so reading its face is a
    wrong ruling. On the dev scenes' cocked coins (read at the table's scale), most are reported
    as overlapping another, and few are read surely (benchmark: 13 reported, 2 sure of 22)."""
    from vision._coin_split import rendered_scale

    reported = sure = cocked = 0
    for entry in json.loads((DEV_SCENES / "labels.json").read_text()):
        leaning = [o for o in entry["objects"] if o["kind"] in COINS and "cocked" in o["flags"]]
        if not leaning:
            continue
        frame = cv2.imread(str(DEV_SCENES / entry["image"]))
        obs = read_table(frame, calibration=SceneCalibration(rendered_scale(entry)))
        for o in leaning:
            x, y, w, h = o["bbox"]
            near = [d for d in obs.objects if d.kind in COINS and np.hypot(d.center[0] - x - w / 2, d.center[1] - y - h / 2) < 0.5 * w]
            cocked += 1
            reported += any("overlapping" in d.flags for d in near)
            sure += any(d.value is not None and d.confidence >= 0.8 for d in near)
    assert cocked >= 15
    assert reported >= cocked // 3
    assert sure <= cocked // 5


def test_referee_read_with_a_calibration_file_reads_at_the_tables_scale(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``referee read IMAGE --calibration FILE``: a table calibrated from its corner markers and
    saved; the read finds the coins at their size on that table and names their zones."""
    from vision.calibration import calibrate
    from vision.layouts import layout_from_label

    entry = next(e for e in json.loads((DEV_SCENES / "labels.json").read_text()) if e["renderer"] == "blender")
    image = DEV_SCENES / entry["image"]
    calibration = calibrate(cv2.imread(str(image)), layout_from_label(entry))
    saved = tmp_path / "table.json"
    calibration.save(saved)
    assert main(["read", str(image), "--calibration", str(saved), "--json"]) == 0
    record = json.loads(capsys.readouterr().out.strip())
    coins = [o for o in record["objects"] if o["kind"] in COINS]
    flat = [o for o in entry["objects"] if o["kind"] in COINS and not o["flags"] and o["visible"] > 0.9]
    assert len(coins) >= 0.8 * len(flat) > 0
    labelled = {o["zone"] for o in flat}
    assert {o["zone"] for o in coins} & labelled and all(o["zone"] in set(entry["zones_mm"]) | {None} for o in coins)


def test_bad_calibration_and_frame_are_refused() -> None:
    """A calibration without a positive scale, or a frame of the wrong type, is a clear ValueError."""

    class NoScale(FakeCalibration):
        mm_per_px = 0.0

    with pytest.raises(ValueError, match="mm_per_px"):
        read_table(np.zeros((64, 64, 3), np.uint8), calibration=NoScale())
    with pytest.raises(ValueError, match="uint8"):
        read_table(np.zeros((64, 64, 3), np.int32))


def test_a_die_is_not_a_coin() -> None:
    """Where both readers claim one object the surer read wins (the die on a tie); pips on a coin go."""
    die = Detection(kind="d6", value=4, bbox=(98, 98, 44, 44), confidence=0.95, center=(120.0, 120.0))
    unsure_coin = Detection(kind="penny", value=None, bbox=(100, 100, 40, 40), confidence=0.5, center=(120.0, 120.0))
    apart = Detection(kind="dime", value="tails", bbox=(300, 100, 36, 36), confidence=0.9, center=(318.0, 118.0))
    assert resolve_overlaps([unsure_coin, apart], [die], 0.3) == ([apart], [die])
    sure_coin = Detection(kind="penny", value="heads", bbox=(100, 100, 40, 40), confidence=0.97, center=(120.0, 120.0))
    unread_die = Detection(kind="d6", value=None, bbox=(98, 98, 44, 44), confidence=0.0, center=(120.0, 120.0))
    assert resolve_overlaps([sure_coin], [unread_die], 0.3) == ([sure_coin], [])
    pip_on_coin = Detection(kind="d6", value=None, bbox=(110, 110, 12, 12), confidence=0.9, center=(116.0, 116.0))
    assert resolve_overlaps([unsure_coin], [pip_on_coin], 0.3) == ([unsure_coin], [])
    assert resolve_overlaps([unsure_coin], [], 0.3) == ([unsure_coin], [])


def test_the_dice_reader_skips_coins_read_surely(monkeypatch: pytest.MonkeyPatch) -> None:
    """A candidate die centred on a coin read surely is that coin: ``read_table`` does not
    have the dice reader read it again (on the held-back scenes a quarter of the candidates),
    and the dice it reports are the same."""
    import vision.dice as dice_module
    import vision.dice.reading

    centres: list[tuple[float, float]] = []
    original = dice_module.crop_patch

    def spying(frame: np.ndarray, cx: float, cy: float, *args: Any, **kwargs: Any) -> np.ndarray:
        centres.append((cx, cy))
        return original(frame, cx, cy, *args, **kwargs)

    monkeypatch.setattr(vision.dice.reading, "crop_patch", spying)
    entry = next(e for e in json.loads((DEV_SCENES / "labels.json").read_text()) if e["renderer"] == "blender")
    frame = cv2.imread(str(DEV_SCENES / entry["image"]))
    obs = read_table(frame)
    sure = [o for o in obs.objects if o.kind in ("penny", "nickel", "dime", "quarter") and o.confidence >= CONFIDENT]
    assert len(sure) >= 3
    for c in sure:
        r = c.bbox[2] / 2
        assert all(np.hypot(x - c.center[0], y - c.center[1]) >= r for x, y in centres), c
    # The scene's printed markers give read_table the scale of a known table (``table``).
    read_all = dice_module.find_dice(frame, mm_per_px=obs.mm_per_px, table=True)
    dice = sorted(o.bbox for o in obs.objects if o.kind in ("d6", "d8"))
    assert dice and dice == sorted(d.bbox for d in read_all if not any(
        np.hypot(d.center[0] - c.center[0], d.center[1] - c.center[1]) < c.bbox[2] / 2 for c in sure))


def test_a_known_table_makes_the_dice_reader_sure_sooner(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a calibration or the printed markers' scale the frame is of a known table, and
    ``read_table`` has the dice reader use its table's sure threshold
    (``DiceParams.confident_at_table``); a photo read without a scale of its own does not."""
    import vision.dice as dice_module

    tables: list[bool] = []
    original = dice_module.find_dice

    def spying(*args: Any, **kwargs: Any) -> list[Detection]:
        tables.append(kwargs.get("table", False))
        return original(*args, **kwargs)

    monkeypatch.setattr(dice_module, "find_dice", spying)
    frame = cv2.imread(str(DEV_SCENES / "dev_0002.jpg"))
    on_table = read_table(frame)
    assert on_table.mm_per_px is not None and tables == [True]
    photo = read_table(frame, params=ReadParams(scale_from_markers=False))
    assert tables == [True, False]
    sure = {o.bbox for o in on_table.objects if o.kind == "d6" and o.confidence >= CONFIDENT}
    assert len(sure) > len({o.bbox for o in photo.objects if o.kind == "d6" and o.confidence >= CONFIDENT})


def test_at_a_known_scale_the_dice_reader_skips_every_flat_coin(monkeypatch: pytest.MonkeyPatch) -> None:
    """At a known scale (here the printed markers') a circle of a coin's size with a rim all
    round is a coin, sure of its face or not: ``read_table`` leaves out dice candidates on every
    flat coin. Without a scale only on coins read surely (a die may then pass for a coin)."""
    import vision.dice as dice_module

    skipped: list[list[tuple[float, float, float]]] = []
    original = dice_module.find_dice

    def spying(*args: Any, not_at: Any = (), **kwargs: Any) -> Any:
        skipped.append(list(not_at))
        return original(*args, not_at=not_at, **kwargs)

    monkeypatch.setattr(dice_module, "find_dice", spying)
    coin_kinds = ("penny", "nickel", "dime", "quarter")
    for entry in json.loads((DEV_SCENES / "labels.json").read_text())[:40]:
        frame = cv2.imread(str(DEV_SCENES / entry["image"]))
        skipped.clear()
        obs = read_table(frame)
        assert obs.mm_per_px is not None and any("corner markers" in n for n in obs.notes)
        flat = [o for o in obs.objects if o.kind in coin_kinds and not o.flags]
        if not any(o.confidence < CONFIDENT for o in flat):
            continue
        assert sorted(x for x, _, _ in skipped[0]) == pytest.approx(sorted(o.center[0] for o in flat))
        skipped.clear()
        unscaled = read_table(frame, params=ReadParams(scale_from_markers=False))
        sure = [o for o in unscaled.objects if o.kind in coin_kinds and not o.flags and o.confidence >= CONFIDENT]
        assert sorted(x for x, _, _ in skipped[0]) == pytest.approx(sorted(o.center[0] for o in sure))
        return
    pytest.fail("no dev scene with a coin read unsure")


def test_coins_read_unsurely_do_not_bound_the_dice_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a calibration the coins' sizes give the scale, and the dice reader takes no box a
    die cannot be at that scale. A scale from coins none of which is read surely may come from a
    die or a ring taken for a coin: a tray of 16 dice (dice-rune55) shown at twice its size has
    one unsure "penny", whose scale made most dice too large to be dice (7 of 16 found)."""
    import vision.dice as dice_module

    scales: list[float | None] = []
    original = dice_module.find_dice

    def spying(*args: Any, mm_per_px: float | None = None, **kwargs: Any) -> Any:
        scales.append(mm_per_px)
        return original(*args, mm_per_px=mm_per_px, **kwargs)

    monkeypatch.setattr(dice_module, "find_dice", spying)
    name = "rune55_pxl_PXL_20240219_191031850_89d6ec7d.jpg"
    entry = next(e for e in json.loads((DICE / "labels.json").read_text()) if e["image"] == name)
    frame = cv2.resize(cv2.imread(str(DICE / name)), None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC)
    # The "penny" is one the coin model doubts, in a frame with no coin it is sure of: by default
    # it is no longer reported at all (``CoinParams.unanchored_not_coin``), nor found where session
    # 42's agreed fit puts its circle; kept here for the case.
    obs = read_table(frame, params=ReadParams(coins=CoinParams(unanchored_not_coin=1.0, agreed_fit=False)))
    coins = [o for o in obs.objects if o.kind not in ("d6", "d8")]
    assert coins and all(c.confidence < CONFIDENT for c in coins) and obs.mm_per_px is not None
    assert scales == [None]
    dice = [o for o in obs.objects if o.kind == "d6"]
    centres = [(x + w / 2, y + h / 2) for x, y, w, h in (np.array(o["bbox"]) * 2 for o in entry["objects"])]
    found = sum(any(abs(d.center[0] - cx) < 20 and abs(d.center[1] - cy) < 20 for d in dice) for cx, cy in centres)
    assert len(centres) == 16 and found >= 14
    # Coins read surely do give the dice their scale.
    scales.clear()
    obs = read_table(cv2.imread(str(photo("mmr_52.jpg"))))
    assert any(o.confidence >= CONFIDENT for o in obs.objects) and scales == [pytest.approx(obs.mm_per_px)]


def test_a_coin_and_a_die_on_one_spot_are_weighed_on_one_scale(monkeypatch: pytest.MonkeyPatch) -> None:
    """The coin reader is sure at its own level (0.9), the dice reader at the shared one (0.8):
    where both claim one spot, a coin read unsurely (0.85) must not outweigh a die read surely
    (0.8), as it did when the coin's raw confidence was weighed against the die's."""
    import vision.dice as dice_module
    import vision.read as read_module

    coin = Detection(kind="nickel", value="heads", bbox=(100, 100, 40, 40), confidence=0.85, center=(120.0, 120.0))
    die = Detection(kind="d6", value=3, bbox=(99, 99, 42, 42), confidence=0.8, center=(120.0, 120.0))
    monkeypatch.setattr(read_module, "find_coins", lambda *args, **kwargs: ([coin], None))
    monkeypatch.setattr(dice_module, "find_dice", lambda *args, **kwargs: [die])
    frame = np.full((240, 320, 3), 90, np.uint8)
    obs = read_table(frame, params=ReadParams(scale_from_markers=False))
    assert [o.kind for o in obs.objects] == ["d6"]
    sure_coin = replace(coin, confidence=0.95)  # above the coin reader's sure level: shared 0.9
    monkeypatch.setattr(read_module, "find_coins", lambda *args, **kwargs: ([sure_coin], None))
    obs = read_table(frame, params=ReadParams(scale_from_markers=False))
    assert [o.kind for o in obs.objects] == ["nickel"] and obs.objects[0].confidence == pytest.approx(0.9)


def test_coins_only_when_dice_are_off() -> None:
    """``read_dice=False`` reads coins only."""
    frame = cv2.imread(str(photo("mmr_92.jpg")))
    obs = read_table(frame, params=ReadParams(read_dice=False))
    assert {o.kind for o in obs.objects} <= {"penny", "nickel", "dime", "quarter", "other"}


def test_dice_only_when_coins_are_off() -> None:
    """``read_coins=False`` (a dice game's table) never reports a coin, even where a die's
    round face or a large pip looks like one, and still reads the dice."""
    labels = json.loads((DICE / "labels.json").read_text())
    entry = next(e for e in labels if len(e["objects"]) >= 5)
    frame = cv2.imread(str(DICE / entry["image"]))
    assert frame is not None, entry["image"]
    obs = read_table(frame, params=ReadParams(read_coins=False))
    assert obs.objects, "no die found"
    assert {o.kind for o in obs.objects} <= {"d6", "d8"}


def test_referee_read_works_on_every_real_photo(capsys: pytest.CaptureFixture[str], shared_data: Path) -> None:
    """Issue 5: ``referee read`` on every image in ../shared/data (dice, coins, cards): one JSON
    line each, no error, only the kinds the reader knows, boxes inside the image."""
    images = sorted(str(p) for p in shared_data.glob("*/*.jpg"))
    assert len(images) >= 480, f"expected the shared photos, found {len(images)}"
    assert main(["read", *images, "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["image"] for line in lines] == images
    kinds = {"penny", "nickel", "dime", "quarter", "other", "d6", "d8"}
    for line in lines:
        assert "error" not in line and line["ms"] > 0
        for obj in line["objects"]:
            assert obj["kind"] in kinds and len(obj["bbox"]) == 4 and 0.0 <= obj["confidence"] <= 1.0
            assert obj["value"] is None or obj["value"] in ("heads", "tails", 1, 2, 3, 4, 5, 6, 7, 8)


def test_referee_read_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """``referee read`` prints one JSON line per image; a bad image gets an error line and exit 1."""
    bad = tmp_path / "not_a_photo.jpg"
    bad.write_bytes(b"not a jpeg")
    good = photo("mmr_93.jpg")
    status = main(["read", str(bad), str(good), "--json"])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert status == 1
    assert len(lines) == 2
    assert lines[0]["image"] == str(bad) and "error" in lines[0]
    assert lines[1]["image"] == str(good) and lines[1]["ms"] > 0
    assert len(lines[1]["objects"]) == 6
    for obj in lines[1]["objects"]:
        assert set(obj) >= {"kind", "value", "zone", "bbox", "confidence"}
        assert len(obj["bbox"]) == 4 and obj["value"] in (None, "heads", "tails", *range(1, 9))


def test_referee_read_text_and_bad_profile(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Without --json it prints a line of text; a broken profile file stops with exit 2."""
    good = str(photo("mmr_93.jpg"))
    assert main(["read", good]) == 0
    assert "objects in" in capsys.readouterr().out
    broken = tmp_path / "profile.npz"
    broken.write_bytes(b"junk")
    assert main(["read", good, "--profile", str(broken)]) == 2
    assert "profile" in capsys.readouterr().err


def test_referee_read_calibrates_from_the_printed_tables_markers(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """``referee read IMAGE --game sevens --players Ann,Bo --save-calibration FILE``: the table
    ``referee markers`` prints, seen from above, is calibrated from its corner markers; the
    calibration is saved, and a later read with ``--calibration FILE`` uses the same scale."""
    from vision.layouts import default_layout
    from vision.markers import render_view

    layout = default_layout("sevens", ["Ann", "Bo"])
    width, height = layout.table_size_mm
    px_per_mm = 0.85 * min(1280 / width, 960 / height)
    table_to_image = np.array([[px_per_mm, 0, (1280 - px_per_mm * width) / 2], [0, px_per_mm, (960 - px_per_mm * height) / 2], [0, 0, 1.0]])
    image = tmp_path / "table.png"
    cv2.imwrite(str(image), render_view(layout, table_to_image, (1280, 960)))
    saved = tmp_path / "calibration.json"
    args = ["read", str(image), "--game", "sevens", "--players", "Ann,Bo", "--save-calibration", str(saved), "--json"]
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out.strip())
    assert first["mm_per_px"] == pytest.approx(1 / px_per_mm, rel=0.01)
    assert main(["read", str(image), "--calibration", str(saved), "--json"]) == 0
    assert json.loads(capsys.readouterr().out.strip())["mm_per_px"] == pytest.approx(first["mm_per_px"])


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--game", "sevens", "--players", "Ann,Bo"], "cannot calibrate from"),  # no markers in a coin photo
        (["--game", "sevens"], "--game needs --players"),
        (["--game", "chess", "--players", "2"], "chess"),
        (["--players", "2"], "go with --game"),
        (["--calibration", "x.json", "--game", "sevens", "--players", "2"], "not both"),
    ],
)
def test_referee_read_names_what_is_wrong_with_its_calibration_options(
    extra: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["read", str(photo("mmr_93.jpg")), *extra]) == 2
    assert message in capsys.readouterr().err


def test_read_table_is_the_package_entry_point() -> None:
    """Issue 5: ``vision.read_table(frame, calibration=None)`` is the one entry point."""
    import numpy as np

    import vision
    from vision.read import read_table

    assert vision.read_table is read_table
    observation = vision.read_table(np.zeros((480, 640, 3), np.uint8))
    assert observation.objects == () and observation.frame_size == (640, 480)


def test_confidences_share_one_scale() -> None:
    """A coin the coin reader is just sure of lands on the shared CONFIDENT the referee acts on;
    one it is not sure of stays below it (vision.types.CONFIDENT, referee.reconcile)."""
    from referee.reconcile import CONFIDENT as REFEREE_CONFIDENT
    from vision.coins import CONFIDENT as COIN_SURE
    from vision.read import on_shared_scale
    from vision.types import CONFIDENT

    assert CONFIDENT == REFEREE_CONFIDENT
    assert on_shared_scale(COIN_SURE, COIN_SURE) == CONFIDENT
    assert on_shared_scale(0.85, COIN_SURE) < CONFIDENT
    assert on_shared_scale(1.0, COIN_SURE) == 1.0 and on_shared_scale(0.0, COIN_SURE) == 0.0


def test_a_coins_overlap_with_a_die_box_is_its_share_of_the_box() -> None:
    """``resolve_overlaps`` weighs a coin against a die by the area they share: the whole disc
    inside a box around it, half of it for a box over its left half (to the 16 x 16 grid it is
    sampled on), none for a box beside it or one over only a corner of the circle's square."""
    from vision.read import _circle_box_overlap

    disc = np.pi * 20.0**2
    assert _circle_box_overlap((100.0, 100.0), 20.0, (70, 70, 60, 60)) == pytest.approx(disc, rel=0.05)
    assert _circle_box_overlap((100.0, 100.0), 20.0, (60, 60, 40, 80)) == pytest.approx(disc / 2, rel=0.05)
    assert _circle_box_overlap((100.0, 100.0), 20.0, (121, 60, 40, 80)) == 0.0
    assert _circle_box_overlap((100.0, 100.0), 20.0, (60, 121, 80, 40)) == 0.0
    assert _circle_box_overlap((100.0, 100.0), 20.0, (117, 117, 30, 30)) == 0.0
    # A die's box on a coin filling a close-up photo: measured at the box's own scale, where a
    # grid over the whole coin (36 px between points) missed it, and the die stayed unread away.
    assert _circle_box_overlap((316.0, 336.0), 288.0, (168, 502, 27, 30)) == pytest.approx(27 * 30, rel=0.05)
