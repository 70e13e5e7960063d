"""The settle detector on synthetic frame sequences: objects moving then still, hands reaching in.

Each sequence is drawn frame by frame on a textured cloth with sensor noise; the test knows which
frames show motion or a hand, and checks that a settled frame is never taken there, comes within
a few frames of the last motion, and comes once per throw.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import cv2
import numpy as np
import pytest

from vision.calibration import calibrate_manual
from vision.layouts import default_layout
from vision.settle import SettleDetector, SettleEvent, SettleParams

W, H = 640, 480
FPS = 15.0
COPPER = (40, 90, 170)
SKIN = (120, 150, 210)


def cloth(seed: int, colour: tuple[int, int, int] = (60, 110, 40)) -> np.ndarray:
    rng = np.random.default_rng(seed)
    low = cv2.resize(rng.normal(0, 1, (H // 20, W // 20)).astype(np.float32), (W, H), interpolation=cv2.INTER_CUBIC)
    base = np.array(colour, np.float32) * (1 + 0.06 * low)[:, :, None]
    return np.clip(base, 0, 255).astype(np.uint8)


def coin(img: np.ndarray, x: float, y: float, colour: tuple[int, int, int] = COPPER, r: float = 10.0) -> None:
    cv2.circle(img, (round(x * 16), round(y * 16)), round(r * 16), colour, -1, cv2.LINE_AA, 4)
    cv2.circle(img, (round(x * 16), round(y * 16)), round(r * 0.6 * 16), tuple(c // 2 for c in colour), 2, cv2.LINE_AA, 4)


def hand(img: np.ndarray, tip: tuple[float, float], colour: tuple[int, int, int] = SKIN, from_bottom: bool = True) -> None:
    """A palm with fingers at ``tip`` and an arm running off the bottom (or right) edge."""
    x, y = tip
    if from_bottom:
        arm = np.array([(x - 30, y + 40), (x + 30, y + 40), (x + 45, H + 10), (x - 15, H + 10)])
    else:
        arm = np.array([(x + 40, y - 30), (x + 40, y + 30), (W + 10, y + 45), (W + 10, y - 15)])
    cv2.fillPoly(img, [arm.astype(np.int32)], colour, cv2.LINE_AA)
    cv2.ellipse(img, (int(x), int(y + 25)), (38, 32), 0, 0, 360, colour, -1, cv2.LINE_AA)
    for k in range(4):
        fx = x - 24 + 16 * k
        cv2.line(img, (int(fx), int(y + 10)), (int(fx), int(y - 25)), colour, 9, cv2.LINE_AA)


Scene = Callable[[np.ndarray, int], bool]
"""Draws frame ``i`` onto a cloth copy; returns whether anything moves or a hand shows (busy)."""


def run(scene: Scene, frames: int, seed: int = 0, noise: float = 3.0, params: SettleParams = SettleParams(),
        detector: SettleDetector | None = None, background: np.ndarray | None = None
        ) -> tuple[list[bool], list[SettleEvent], SettleDetector, list[str]]:
    rng = np.random.default_rng(seed + 100)
    base = cloth(seed) if background is None else background
    detector = detector or SettleDetector(params=params)
    busy, events, states = [], [], []
    # A few fields of sensor noise, used in turn (drawing fresh noise for every frame is slow).
    grains = [rng.normal(0, noise, (H, W, 3)).astype(np.int16) for _ in range(5)]
    for i in range(frames):
        img = base.copy()
        busy.append(scene(img, i))
        frame = np.clip(img.astype(np.int16) + grains[i % len(grains)], 0, 255).astype(np.uint8)
        event = detector.update(frame, i / FPS)
        states.append(detector.state)
        if event is not None:
            events.append(event)
    return busy, events, detector, states


def check_never_busy(busy: list[bool], events: list[SettleEvent]) -> None:
    for event in events:
        assert not busy[event.index], f"settled frame {event.index} taken while something moved or a hand was in view"


def last_busy(busy: list[bool]) -> int:
    return max(i for i, b in enumerate(busy) if b)


def test_a_still_table_settles_once() -> None:
    def scene(img: np.ndarray, i: int) -> bool:
        coin(img, 200, 200)
        coin(img, 400, 300, (190, 190, 190))
        return False

    busy, events, detector, _ = run(scene, 20)
    assert [e.index for e in events] == [3]  # frame 0 has nothing to compare with; then 3 quiet frames
    assert events[0].quiet_frames == 3 and events[0].changed_zones == ("table",)
    assert events[0].frame.shape == (H, W, 3)
    assert detector.state == "settled" and detector.zone_states == {"table": "settled"}


def sliding(img: np.ndarray, i: int, start: int = 8, speed: float = 25.0, decay: float = 0.8, steps: int = 14) -> bool:
    """A coin thrown at frame ``start`` that slides and slows to rest."""
    coin(img, 500, 100)  # one that stays put
    if i < start:
        return False
    travelled = sum(speed * decay ** k for k in range(min(i - start, steps)))
    coin(img, 100 + travelled, 240 + 0.4 * travelled)
    return i - start < steps and (i == start or speed * decay ** (i - start - 1) > 0.05)


def test_a_sliding_coin_settles_promptly_after_it_stops() -> None:
    busy, events, _, states = run(sliding, 40, seed=1)
    check_never_busy(busy, events)
    after = [e for e in events if e.index > last_busy(busy)]
    assert len(after) == 1
    assert after[0].index - last_busy(busy) <= 4
    assert "moving" in states[8:12]


@pytest.mark.parametrize("seed", range(4))
def test_throws_with_a_hand_never_settle_early(seed: int) -> None:
    rng = np.random.default_rng(seed)
    target = (float(rng.uniform(200, 440)), float(rng.uniform(150, 300)))
    coins = [(float(rng.uniform(-30, 30)), float(rng.uniform(-30, 30)), float(rng.uniform(-15, 15)), float(rng.uniform(-15, 15)))
             for _ in range(int(rng.integers(2, 6)))]

    def scene(img: np.ndarray, i: int) -> bool:
        # 0-5 still; 6-10 the hand comes in; 11 it lets go; 11-16 it leaves while the coins slide.
        busy = False
        if i >= 11:
            for dx, dy, vx, vy in coins:
                t = min(i - 11, 10)
                travelled = sum(0.7 ** k for k in range(t))
                coin(img, target[0] + dx + vx * travelled, target[1] + dy + vy * travelled)
            busy = i - 11 < 10 and max(abs(vx), abs(vy)) * 0.7 ** (i - 11) > 0.05
        if 6 <= i <= 16:
            reach = (i - 6) / 5 if i <= 11 else 1 - (i - 11) / 5
            hand(img, (target[0], H - 20 - reach * (H - 40 - target[1])))
            busy = True
        return busy

    busy, events, _, states = run(scene, 36, seed=seed)
    check_never_busy(busy, events)
    assert "hand" in states[6:17]
    after = [e for e in events if e.index > last_busy(busy)]
    assert len(after) == 1 and after[0].index - last_busy(busy) <= 4


def test_a_hand_held_still_over_the_table_is_never_settled() -> None:
    def scene(img: np.ndarray, i: int) -> bool:
        coin(img, 300, 200)
        if 6 <= i < 40:
            # In at frame 6, then perfectly still for 30 frames (2 s): no frame-to-frame motion at all.
            hand(img, (320, max(260.0, H - 30 * (i - 5))))
            return True
        return False

    busy, events, detector, states = run(scene, 50, seed=3)
    check_never_busy(busy, events)
    assert set(states[12:40]) == {"hand"}
    # The hand went away and nothing on the table changed: not a new throw.
    assert [e.index for e in events] == [3]
    assert detector.state == "settled"


@pytest.mark.parametrize("colour", [(150, 170, 225), (50, 75, 120), (150, 150, 150), (40, 40, 40)])
def test_hands_of_any_colour_are_seen(colour: tuple[int, int, int]) -> None:
    # Light and dark skin, a grey glove, a black sleeve: found by size and by coming from the edge.
    def scene(img: np.ndarray, i: int) -> bool:
        if 6 <= i < 20:
            hand(img, (300, 250), colour, from_bottom=False)
            return True
        return False

    busy, events, _, states = run(scene, 26, seed=4)
    check_never_busy(busy, events)
    assert set(states[6:20]) == {"hand"}


def test_a_copper_coin_on_a_wooden_table_is_not_a_hand() -> None:
    wood = cloth(5, (70, 120, 175))  # skin-coloured table

    def scene(img: np.ndarray, i: int) -> bool:
        coin(img, 20 + min(i, 10) * 30, 240)  # starts at the edge, like an arm would
        return 0 < i <= 10

    busy, events, _, states = run(scene, 20, seed=5, background=wood)
    assert "hand" not in states
    check_never_busy(busy, events)
    assert events and events[-1].index - last_busy(busy) <= 4


def test_a_coin_moved_by_hand_is_a_new_settle() -> None:
    def scene(img: np.ndarray, i: int) -> bool:
        if i < 10:
            coin(img, 300, 200)
        elif i < 18:
            coin(img, 300 + (i - 9) * 20, 200)  # carried in the hand
        else:
            coin(img, 480, 200)
        if 6 <= i < 22:
            hand(img, (300 + max(0, min(i - 9, 9)) * 20, 215))
            return True
        return False

    busy, events, _, _ = run(scene, 32, seed=6)
    check_never_busy(busy, events)
    assert [e.index for e in events][0] == 3
    assert len(events) == 2 and events[1].index - last_busy(busy) <= 4
    assert events[1].changed_zones == ("table",)


def test_slow_movement_is_not_mistaken_for_rest() -> None:
    def scene(img: np.ndarray, i: int) -> bool:
        # After settling, a coin rolls slowly (1 px a frame here, half a pixel at working size).
        x = 200 + min(max(i - 8, 0), 16) * 1.0
        coin(img, x, 240, (200, 200, 200))
        return 8 <= i < 24

    busy, events, _, _ = run(scene, 40, seed=7, noise=2.0)
    check_never_busy(busy, events)
    assert events[-1].index > last_busy(busy)


def test_a_change_of_light_does_not_block_settling() -> None:
    def scene(img: np.ndarray, i: int) -> bool:
        coin(img, 300, 200)
        if i >= 10:
            img[:] = np.clip(img.astype(np.float32) * 1.25, 0, 255).astype(np.uint8)  # a lamp switched on
        return i == 10

    busy, events, _, states = run(scene, 30, seed=8)
    assert "hand" not in states[12:]
    assert states[-1] == "settled"
    check_never_busy(busy, events)


def test_something_large_left_at_the_edge_is_taken_into_the_table() -> None:
    params = SettleParams(absorb_s=1.0)

    def scene(img: np.ndarray, i: int) -> bool:
        if i >= 6:
            cv2.rectangle(img, (0, 300), (200, 479), (235, 235, 235), -1)  # a score sheet slid in
        return i == 6

    busy, events, _, states = run(scene, 40, seed=9, params=params)
    assert states[8] == "hand"  # large, from the edge: a hand until proven otherwise
    assert states[-1] == "settled" and len(events) == 2
    assert events[1].index / FPS - 6 / FPS >= params.absorb_s


def test_zone_states_with_a_calibration() -> None:
    layout = default_layout("seven-pennies", 2)
    calibration = calibrate_manual([(0, 0), (W - 1, 0), (W - 1, H - 1), (0, H - 1)], layout.table_size_mm, layout.zones)
    detector = SettleDetector(calibration)
    mm = layout.zone("theatre").centroid()
    px = calibration.table_to_image(np.array([mm]))[0]

    def scene(img: np.ndarray, i: int) -> bool:
        coin(img, px[0] + (i - 8) * 8 if i >= 8 else px[0], px[1])
        return 8 <= i < 14

    _busy, events, _, _ = run(lambda img, i: scene(img, min(i, 10)), 11, seed=10, detector=detector)
    assert detector.zone_states["theatre"] == "moving"
    assert detector.zone_states["balcony"] == "still" and detector.zone_states["gathered:P1"] == "still"
    assert events[0].changed_zones == ("balcony", "theatre", "gathered:P1", "gathered:P2")


def test_bad_input_is_named() -> None:
    detector = SettleDetector()
    with pytest.raises(ValueError, match="frame must be BGR uint8"):
        detector.update(np.zeros((10, 10), np.uint8), 0.0)
    detector.update(np.zeros((10, 10, 3), np.uint8), 1.0)
    with pytest.raises(ValueError, match="timestamp 0.5 is earlier than the last one"):
        detector.update(np.zeros((10, 10, 3), np.uint8), 0.5)
    for field, value, message in [("still_frames", 0, "still_frames"), ("blur_px", 4, "blur_px"),
                                  ("hand_area", 1.5, "hand_area"), ("work_width", 8, "work_width")]:
        with pytest.raises(ValueError, match=message):
            SettleParams(**{field: value})


def test_reset_and_new_frame_size_start_afresh() -> None:
    detector = SettleDetector()
    still = np.full((120, 160, 3), 90, np.uint8)
    assert [detector.update(still, t / 10) is not None for t in range(5)] == [False, False, False, True, False]
    bigger = np.full((240, 320, 3), 90, np.uint8)
    assert [detector.update(bigger, 1 + t / 10) is not None for t in range(5)] == [False, False, False, True, False]
    detector.reset()
    assert detector.state == "moving" and detector.update(still, 0.0) is None


def test_input_frames_are_not_changed_and_events_hold_copies() -> None:
    detector = SettleDetector()
    frames = [np.full((120, 160, 3), 90, np.uint8) for _ in range(4)]
    copies = [f.copy() for f in frames]
    events = [e for i, f in enumerate(frames) if (e := detector.update(f, i / 10)) is not None]
    assert all(np.array_equal(a, b) for a, b in zip(frames, copies))
    assert events[0].frame is not frames[3] and np.array_equal(events[0].frame, frames[3])
    assert math.isclose(events[0].timestamp, 0.3)


def test_zone_masks_follow_the_frame_size() -> None:
    # Calibrated on 1280 x 960 frames, fed 640 x 480 ones: the zones still land in place.
    layout = default_layout("flip", 2)
    big = calibrate_manual([(0, 0), (2 * W - 1, 0), (2 * W - 1, 2 * H - 1), (0, 2 * H - 1)], layout.table_size_mm,
                           layout.zones, frame_size=(2 * W, 2 * H))
    detector = SettleDetector(big)
    mm = layout.zone("area:P2").centroid()
    px = big.table_to_image(np.array([mm]))[0] / 2

    def scene(img: np.ndarray, i: int) -> bool:
        coin(img, px[0] + 10 * i, px[1])
        return True

    run(scene, 3, seed=12, detector=detector)
    assert detector.zone_states == {"middle": "still", "area:P1": "still", "area:P2": "moving"}
