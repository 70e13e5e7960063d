"""Coins on other backgrounds than coins-mmr's cloth: a false circle does not set the scale
(``CoinParams.scale_outlier``), and ``benchmarks/backgrounds_bench.py`` scores what it pastes."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import cv2
import numpy as np
import pytest

from benchmarks.backgrounds_bench import DATA, Pasted, cutouts, paste, paste_at, run, score
from vision._coin_geometry import APPEARANCE_KINDS, COIN_DIAMETER_MM
from vision.coins import CoinParams, estimate_scale
from vision.read import ReadParams, read_table
from vision.types import Detection

# A card photo of the three of clubs on a white table (cards-cadyze, never learned by the coin model).
CLUBS = DATA / "cards-cadyze" / "cards_phone_IMG_20220921_195359_23e1eda8.jpg"


def evidence_for(kinds: list[str]) -> np.ndarray:
    """Appearance evidence as ``find_coins`` weighs it: the named kind sure, the others at the floor."""
    ev = np.full((len(kinds), len(APPEARANCE_KINDS)), np.log(1e-2))
    for i, k in enumerate(kinds):
        ev[i, APPEARANCE_KINDS.index(k)] = 0.0
    return ev


def test_one_circle_no_coin_explains_does_not_pull_the_scale() -> None:
    """Two pennies and a nickel 0.4 mm a pixel, and a circle the appearance takes for a dime but
    far too small for one at that scale: taken for a coin, it moves the scale until the pennies
    measure as dollar coins; allowed to be no coin, the pennies set the scale."""
    true_scale = 0.4
    radii = np.array([COIN_DIAMETER_MM["penny"], COIN_DIAMETER_MM["penny"], COIN_DIAMETER_MM["nickel"]]) / 2 / true_scale
    radii = np.append(radii, 13.0)  # a card's lobe: 10.4 mm at the true scale
    evidence = evidence_for(["penny", "penny", "nickel", "dime"])
    pulled = estimate_scale(radii, evidence, 0.03)
    robust = estimate_scale(radii, evidence, 0.03, CoinParams().scale_outlier)
    assert pulled is not None and robust is not None
    assert abs(pulled - true_scale) > 0.1  # the pennies made "other" coins (26.5 mm)
    assert abs(robust - true_scale) < 0.01


def test_every_coin_fitting_keeps_the_scale_it_had() -> None:
    """When every circle is a coin of the table, the outlier term changes nothing."""
    scale = 0.25
    kinds = ["penny", "dime", "quarter", "nickel", "penny"]
    radii = np.array([COIN_DIAMETER_MM[k] for k in kinds]) / 2 / scale * np.array([1.01, 0.99, 1.0, 1.02, 0.98])
    evidence = evidence_for(kinds)
    assert estimate_scale(radii, evidence, 0.03) == estimate_scale(radii, evidence, 0.03, CoinParams().scale_outlier)


def test_pennies_on_a_card_photo_are_read_as_pennies_beside_the_clubs() -> None:
    """Two pennies and a nickel of coins-mmr's validation photos pasted onto the three of clubs:
    a lobe of the club beside them, taken for a small coin, made every coin "other" (a dollar
    coin, no face read) when every circle had to be a coin; now all three are read, faces too."""
    coins = cutouts(DATA / "coins-mmr", "validation")
    pennies = [c for c in coins if c.kind == "penny" and c.face == "heads"]
    nickel = next(c for c in coins if c.kind == "nickel" and c.face == "heads")
    photo = cv2.imread(str(CLUBS))
    assert photo is not None, f"cannot read {CLUBS}"
    picture = photo.copy()
    placed = [paste_at(picture, pennies[0], 144, 82, 2.5), paste_at(picture, pennies[1], 203, 420, 2.5),
              paste_at(picture, nickel, 147, 575, 2.5)]

    def reads(params: ReadParams) -> list[tuple[str, str | None]]:
        objs = read_table(picture, params=params).objects
        out = []
        for p in placed:
            near = [o for o in objs if np.hypot(o.center[0] - p.x, o.center[1] - p.y) < 0.4 * p.r]
            out.append((near[0].kind, near[0].value) if near else ("missed", None))
        return out

    assert reads(ReadParams()) == [("penny", "heads"), ("penny", "heads"), ("nickel", "heads")]
    every_circle_a_coin = reads(ReadParams(coins=replace(CoinParams(), scale_outlier=None)))
    assert [k for k, _ in every_circle_a_coin] == ["other", "other", "other"], every_circle_a_coin


def test_pasted_coins_lie_apart_clear_of_the_boxes_and_show_in_the_picture() -> None:
    coins = cutouts(DATA / "coins-mmr", "validation")
    assert len(coins) > 40 and {c.kind for c in coins} == {"penny", "nickel", "dime", "quarter"}
    background = np.full((400, 600, 3), 90, np.uint8)
    keep_clear = [[0.0, 0.0, 300.0, 400.0]]  # the left half
    picture, placed = paste(background, coins, 2.5, keep_clear, np.random.default_rng(3))
    assert len(placed) == 3
    for i, p in enumerate(placed):
        assert p.x - p.r > 300  # in the right half only
        assert abs(p.r - COIN_DIAMETER_MM[p.kind] / 2 * 2.5) < 1e-9
        assert np.abs(picture[int(p.y), int(p.x)].astype(int) - 90).max() > 0  # the coin is there
        assert all(np.hypot(p.x - q.x, p.y - q.y) > p.r + q.r for q in placed[i + 1:])
    assert np.array_equal(picture[:, :300], background[:, :300])


def test_score_counts_found_denominations_faces_sure_wrong_and_coins_where_none_was_pasted() -> None:
    pasted = [Pasted("penny", "heads", 100.0, 100.0, 20.0), Pasted("dime", "tails", 300.0, 100.0, 18.0),
              Pasted("quarter", "heads", 500.0, 100.0, 25.0)]
    found = [
        Detection(kind="penny", value="heads", bbox=(80, 80, 40, 40), confidence=0.95, center=(102.0, 99.0)),
        Detection(kind="dime", value="heads", bbox=(282, 82, 36, 36), confidence=0.9, center=(300.0, 100.0)),
        Detection(kind="nickel", value=None, bbox=(600, 100, 40, 40), confidence=0.3, center=(620.0, 120.0)),
    ]
    tally: Counter = Counter()
    score(pasted, found, tally)
    assert tally == Counter({"coins": 3, "found": 2, "kind": 2, "face": 1, "sure wrong": 1, "false": 1})


def test_the_benchmark_reads_coins_pasted_onto_card_photos() -> None:
    """A few card photos with coins pasted: most found and their denominations right (floors
    well below the benchmark's figures in BENCHMARKS.md)."""
    coins = cutouts(DATA / "coins-mmr", "validation")
    tally = run("cards", coins, 1, None, limit=8)
    assert tally["coins"] >= 20
    assert tally["found"] >= 0.6 * tally["coins"], tally
    assert tally["kind"] >= 0.5 * tally["coins"], tally


def test_coins_are_cut_from_the_validation_or_held_out_photos_only() -> None:
    held = cutouts(DATA / "coins-mmr", "held-out")
    assert len(held) > 100 and {c.kind for c in held} == {"penny", "nickel", "dime", "quarter"}
    with pytest.raises(ValueError, match="'trained'"):
        cutouts(DATA / "coins-mmr", "trained")
