"""Issue 5: coins too large for the usual circle search (close-up photos), ``vision.close_ups``."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import cv2
import numpy as np
import pytest

from tests.conftest import SHARED_DATA
from vision.close_ups import DIE_FINDER_SURE, find_close_up_coins, with_close_ups
from vision.coins import CoinParams
from vision.read import ReadParams, read_table
from vision.types import CONFIDENT, DIE_KINDS, Detection

DATA = SHARED_DATA


def close_up(photo: str, index: int, share: float) -> np.ndarray:
    """A 640 px square cut from a coins-mmr photo around its ``index``-th labelled coin, so that
    the coin fills ``share`` of its width: a close-up, as a phone takes of a coin or two."""
    path = DATA / "coins-mmr" / photo
    assert path.is_file(), f"real photo missing: {path}"
    labels = {e["image"]: e for e in json.loads((DATA / "coins-mmr" / "labels.json").read_text())}
    x, y, w, h = labels[photo]["objects"][index]["bbox"]
    frame = cv2.imread(str(path))
    half = (w + h) / 2 / share / 2
    x0, y0 = int(x + w / 2 - half), int(y + h / 2 - half)
    crop = frame[max(0, y0) : int(y0 + 2 * half), max(0, x0) : int(x0 + 2 * half)]
    return np.asarray(cv2.resize(crop, (640, 640), interpolation=cv2.INTER_AREA), np.uint8)


def coins_of(frame: np.ndarray, **params: Any) -> list[Detection]:
    return [o for o in read_table(frame, params=ReadParams(**params)).objects if o.kind not in DIE_KINDS]


@pytest.mark.parametrize("share", [0.6, 0.8])
@pytest.mark.parametrize(("index", "kind"), [(2, "quarter"), (3, "nickel")])
def test_a_coin_filling_most_of_a_photo_is_found_and_read(index: int, kind: str, share: float) -> None:
    """Coins as large as 60% and 80% of the photo's width (mmr_90's quarter and nickel, both
    tails up): found by the close-up search, read surely and rightly; the usual search alone
    (its largest radius 0.15 of the long side) finds none of them."""
    frame = close_up("mmr_90.jpg", index, share)
    coins = coins_of(frame)
    assert [(c.kind, c.value) for c in coins] == [(kind, "tails")]
    assert coins[0].confidence >= CONFIDENT
    # The circle is the coin's: its box within a tenth of the coin's size, centred.
    assert coins[0].bbox[2] == pytest.approx(640 * share, rel=0.1)
    assert coins[0].center == pytest.approx((320, 320), abs=0.05 * 640 * share)
    assert coins_of(frame, close_ups=False) == []


def test_a_plate_under_dice_is_no_coin() -> None:
    """A dice-rune55 photo of dice on a round white plate filling the frame: the close-up search
    alone takes the plate for a coin (the coin model reads it as a quarter), but the dice found
    on it plainly are dice, so ``read_table`` reports the dice as without the search, and no coin."""
    path = DATA / "dice-rune55" / "rune55_num_00001_f1e7d31d.jpg"
    frame = cv2.imread(str(path))
    assert frame is not None, f"real photo missing: {path}"
    plate, _ = find_close_up_coins(frame, CoinParams())
    assert len(plate) == 1 and plate[0].bbox[2] > 0.8 * frame.shape[1]
    with_search = read_table(frame).objects
    assert [o.kind for o in with_search] == ["d6"] * 3
    assert with_search == read_table(frame, params=ReadParams(close_ups=False)).objects


def die_at(center: tuple[float, float], side: float, confidence: float, finder_score: float) -> Detection:
    x, y = center
    return Detection(
        kind="d6",
        value=1 if confidence > 0 else None,
        bbox=(int(x - side / 2), int(y - side / 2), int(side), int(side)),
        confidence=confidence,
        center=center,
        extra={"finder_score": finder_score},
    )


def test_a_faint_unsure_die_on_a_close_up_coin_is_a_detail_and_a_plain_one_rules_it_out() -> None:
    """The reader finds "dice" on a coin's relief (a letter, Lincoln's head), faint, small and
    unsure: the coin stays. A die the finder scores high, one read surely, or one too large for
    a detail, lying on the circle, makes it no coin (a plate or a die's round inset); a plain
    die beside the coin does not."""
    frame = close_up("mmr_90.jpg", 2, 0.6)
    params = CoinParams()
    assert len(find_close_up_coins(frame, params)[0]) == 1
    detail = die_at((300.0, 300.0), 100, 0.6, DIE_FINDER_SURE - 0.3)
    assert len(find_close_up_coins(frame, params, [detail])[0]) == 1
    plain = die_at((300.0, 300.0), 100, 0.6, DIE_FINDER_SURE + 0.1)
    assert find_close_up_coins(frame, params, [plain])[0] == []
    sure = die_at((300.0, 300.0), 60, CONFIDENT + 0.1, 0.4)
    assert find_close_up_coins(frame, params, [sure])[0] == []
    # A die as wide as 0.45 of the circle is no letter of its design, however faint: dice on a
    # plate in a squeezed photo scored under DIE_FINDER_SURE.
    large = die_at((320.0, 320.0), 0.45 * 384, 0.6, DIE_FINDER_SURE - 0.2)
    assert find_close_up_coins(frame, params, [large])[0] == []
    beside = die_at((30.0, 30.0), 50, CONFIDENT + 0.1, 0.9)
    assert len(find_close_up_coins(frame, params, [beside])[0]) == 1


def coin_at(x: float, y: float, r: float, confidence: float) -> Detection:
    return Detection(kind="penny", value="heads", bbox=(int(x - r), int(y - r), int(2 * r), int(2 * r)),
                     confidence=confidence, center=(x, y))


def test_each_coin_is_read_once_by_one_of_the_two_searches() -> None:
    """A close-up coin beside the usual search's coins joins them; one read surely replaces the
    unsure small "coins" inside it (circles of its own design); a large circle around a coin
    read surely, or one read unsurely, is no coin (a tray, a bowl), and the usual coins stay."""
    big = coin_at(320, 320, 250, 0.95)
    detail = coin_at(300, 250, 40, 0.5)
    sure_small = coin_at(300, 250, 40, 0.95)
    astride = coin_at(500, 500, 30, 0.5)  # across its rim: overlapping, not inside
    far = coin_at(1200, 300, 30, 0.95)
    assert with_close_ups([far], [big], 0.9) == [far, big]
    assert with_close_ups([detail, far], [big], 0.9) == [far, big]
    assert with_close_ups([sure_small], [big], 0.9) == [sure_small]
    assert with_close_ups([astride], [big], 0.9) == [astride]
    assert with_close_ups([detail], [replace(big, confidence=0.6)], 0.9) == [detail]


def test_a_close_up_beside_smaller_coins_is_found_with_them_and_nothing_twice() -> None:
    """Both searches cover radii near 0.15 of the long side: mmr_69's quarter filling 30% of a
    square, dimes and pennies beside it, each coin found once."""
    frame = close_up("mmr_69.jpg", 0, 0.3)
    coins = coins_of(frame)
    assert len(coins) >= 2
    for i, a in enumerate(coins):
        for b in coins[i + 1 :]:
            gap = float(np.hypot(a.center[0] - b.center[0], a.center[1] - b.center[1]))
            assert gap >= 0.9 * (a.bbox[2] + b.bbox[2]) / 2, (a, b)


def test_no_close_up_search_at_a_known_scale(monkeypatch: pytest.MonkeyPatch) -> None:
    """A calibrated table's coins are of known size: the close-up search is made only without a scale."""
    import vision.read as read

    calls: list[int] = []
    real = read.find_close_up_coins

    def counting(*args: Any, **kwargs: Any) -> tuple[list[Detection], float | None]:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(read, "find_close_up_coins", counting)

    class Calibration:
        mm_per_px = 0.1

        def image_to_table(self, points: Any) -> np.ndarray:
            return np.asarray(points, np.float64) * self.mm_per_px

        def zone_of(self, point_mm: tuple[float, float]) -> str | None:
            return None

    frame = close_up("mmr_90.jpg", 3, 0.6)
    read_table(frame, Calibration())
    assert calls == []
    read_table(frame)
    assert calls == [1]


def test_a_squeezed_close_up_is_read_in_its_frame_stretched_round() -> None:
    """mmr_90's nickel close up, squeezed to 0.75 of its width (a publisher's 4:3-to-square
    resize): the one large blob is an ellipse, so the coin is searched and read in the frame stretched round. A
    circle fitted to the ellipse found a third of such coins and read some surely wrong."""
    from vision.foreshortening import blobs_of, close_up_squash

    square = close_up("mmr_90.jpg", 3, 0.6)
    assert close_up_squash(blobs_of(square), 0.14) is None
    frame = np.asarray(cv2.resize(square, None, fx=0.75, fy=1.0, interpolation=cv2.INTER_AREA), np.uint8)
    squash = close_up_squash(blobs_of(frame), 0.14)
    assert squash is not None and squash.axis == "x" and squash.ratio == pytest.approx(0.75, abs=0.03)
    coins = coins_of(frame)
    assert [(c.kind, c.value) for c in coins] == [("nickel", "tails")]
    assert coins[0].confidence >= CONFIDENT
    assert coins[0].bbox[2] == pytest.approx(0.75 * coins[0].bbox[3], rel=0.1)
