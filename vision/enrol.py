"""Learning this table ("learn this table"): adapt the readers to the table's own coins and dice.

At setup the players throw the table's coins, the reader shows what it found, and the
players confirm or correct each coin's kind and face on the tablet. :func:`enrol_coins`
turns those confirmed photos into a small :class:`CoinProfile`:

- the appearance model's embedding of every confirmed coin, kept as nearest-neighbour
  exemplars that sharpen (or soften) later reads of coins that look like them;
- the colour of each kind relative to this table, under this light;
- how this camera measures each kind's diameter (a dark rim or a shadow can add a few
  per cent), so sizes compare truly.

Confirmed dice make a :class:`DiceProfile` (:func:`enrol_dice`): the table's kinds of die and
how large the camera sees them, so the dice reader reads only those kinds and drops candidates
of no die's size.

The coin profile is a plain ``.npz`` file (:meth:`CoinProfile.save`, :meth:`CoinProfile.load`).
Reading works without one: the defaults are the shipped model and colours.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from vision._coin_geometry import APPEARANCE_KINDS, COIN_DIAMETER_MM, Circle
from vision.coin_profile import CoinProfile as CoinProfile
from vision.coin_profile import ColourModel
from vision.coins import DEFAULT_COLOURS, CoinParams, measure_coins, validate_frame
from vision.dice import DiceParams
from vision.markers import detect_markers
from vision.types import DIE_FACES, Detection
from vision.white_reference import printed_white

FACES = ("heads", "tails")

def enrol_coins(
    examples: Sequence[tuple[np.ndarray, Sequence[Detection]]], params: CoinParams = CoinParams()
) -> CoinProfile:
    """Learn a profile from photos and their confirmed coins.

    Each example is a frame and the coins in it as the players confirmed them: a
    ``Detection`` whose ``kind`` is right and whose ``value`` is the true face (``None``
    where they did not say). Only ``kind``, ``value``, ``center``, ``bbox`` and
    ``extra["size_radius_px"]`` and ``extra["size_rough"]`` (where the read gave them) are used.

    :raises ValueError: on a bad frame, an unknown kind or face, or no coins at all.
    """
    embs: list[np.ndarray] = []
    kinds: list[int] = []
    faces: list[int] = []
    colours_by_kind: dict[str, list[np.ndarray]] = {k: [] for k in APPEARANCE_KINDS}
    sizes: list[tuple[str, float]] = []
    fingerprint = ""
    for n, (frame, coins) in enumerate(examples):
        validate_frame(frame)
        if not coins:
            continue
        circles = []
        for c in coins:
            if c.kind not in APPEARANCE_KINDS:
                raise ValueError(f"example {n}: unknown coin kind {c.kind!r}")
            if c.value is not None and c.value not in FACES:
                raise ValueError(f"example {n}: coin face must be heads, tails or None, got {c.value!r}")
            r = (c.bbox[2] + c.bbox[3]) / 4.0
            x, y = c.center if c.center != (0.0, 0.0) else (c.bbox[0] + c.bbox[2] / 2, c.bbox[1] + c.bbox[3] / 2)
            # Sized as the reader sizes it: by its edge's middle where the read measured it.
            size = c.extra.get("size_radius_px")
            circles.append(Circle(float(x), float(y), float(r), edge_r=None if size is None else float(size)))
        # Colours against the printed table's white where its markers are in the photo, as
        # ``vision.read.read_table`` judges them.
        white = printed_white(frame, detect_markers(frame).values()) if params.colour_against_white else None
        colour, out, meta = measure_coins(frame, circles, params, white)
        fingerprint = meta.fingerprint
        # This photo's scale from its confirmed coins, then each coin's size against it; a coin
        # the read sized roughly (``extra["size_rough"]``: on part of its rim, or on its
        # colour's edge) teaches no size.
        firm = [not c.extra.get("size_rough", False) for c in coins]
        scales = [COIN_DIAMETER_MM[c.kind] / (2 * ci.size_r) for c, ci, ok in zip(coins, circles, firm) if ok]
        scale = float(np.median(scales)) if scales else 0.0
        firm_kinds = {c.kind for c, ok in zip(coins, firm) if ok}
        for i, (c, ci) in enumerate(zip(coins, circles)):
            embs.append(out.embedding[i])
            kinds.append(APPEARANCE_KINDS.index(c.kind))
            faces.append(-1 if c.value is None else FACES.index(str(c.value)))
            colours_by_kind[c.kind].append(colour[i, 1:])
            if firm[i] and len(firm_kinds) > 1:
                sizes.append((c.kind, 2 * ci.size_r * scale / COIN_DIAMETER_MM[c.kind]))
    if not embs:
        raise ValueError("enrolment needs at least one confirmed coin")
    return CoinProfile(
        embeddings=np.asarray(embs, np.float32),
        kinds=np.asarray(kinds, np.int64),
        faces=np.asarray(faces, np.int64),
        colours=_learn_colours(colours_by_kind),
        size_factor=_learn_sizes(sizes),
        model=fingerprint,
    )


def _learn_colours(samples: dict[str, list[np.ndarray]]) -> ColourModel:
    """Each kind's colour: the shipped mixture, plus this table's own where it was seen.

    The shipped mixture keeps part of its weight, so a dark penny never seen at enrolment
    is still a penny.
    """
    out: ColourModel = {}
    for kind in APPEARANCE_KINDS:
        default = DEFAULT_COLOURS[kind]
        seen = np.asarray(samples[kind], np.float64).reshape(-1, 2)
        if len(seen) < 2:
            out[kind] = list(default)
            continue
        mean = seen.mean(axis=0)
        sd = np.maximum(seen.std(axis=0) * 1.5, 1.5)
        learned = (0.6, float(mean[0]), float(mean[1]), float(sd[0]), float(sd[1]))
        out[kind] = [learned] + [(0.4 * w, ma, mb, sa, sb) for w, ma, mb, sa, sb in default]
    return out


def _learn_sizes(sizes: list[tuple[str, float]]) -> dict[str, float]:
    """Per kind median measured/true diameter, normalised over kinds and kept within 5%."""
    by_kind: dict[str, list[float]] = {}
    for kind, ratio in sizes:
        by_kind.setdefault(kind, []).append(ratio)
    if len(by_kind) < 2:
        return {}
    med = {k: float(np.median(v)) for k, v in by_kind.items() if len(v) >= 2}
    if not med:
        return {}
    norm = float(np.median(list(med.values())))
    return {k: float(np.clip(v / norm, 0.95, 1.05)) for k, v in med.items()}


@dataclass(frozen=True)
class DiceProfile:
    """What was learned of one table's dice: their kinds and how large the camera sees them.

    The dice reader then reads a die as one of these kinds only, and keeps only candidates of
    about the learned size (a lone pip, a coin's detail or a tile is then no die)."""

    kinds: tuple[str, ...]
    """The kinds of die confirmed on this table (``d6``, ``d8``)."""
    size_mm: tuple[float, float] | None = None
    """Smallest and largest box of a confirmed die, in millimetres (``None``: no scale was known)."""
    dice: int = 0
    """How many confirmed dice it was learned from."""
    margin: tuple[float, float] = (0.7, 1.4)
    """Boxes from ``margin[0]`` times the smallest to ``margin[1]`` times the largest learned
    box count as dice: the finder's box varies by about a fifth, and more at the frame's edge."""

    def dice_params(self, params: DiceParams) -> DiceParams:
        """``params`` narrowed to this table's dice (kinds already narrower are kept)."""
        kinds = self.kinds if params.kinds is None else tuple(k for k in params.kinds if k in self.kinds) or params.kinds
        size = params.size_mm
        if self.size_mm is not None:
            size = (max(size[0], self.size_mm[0] * self.margin[0]), min(size[1], self.size_mm[1] * self.margin[1]))
            if size[0] >= size[1]:
                size = params.size_mm
        return replace(params, kinds=kinds, size_mm=size)

    def save(self, path: str | Path) -> None:
        """Write the profile as JSON."""
        Path(path).write_text(json.dumps({"version": 1, "kinds": list(self.kinds), "dice": self.dice,
                                          "size_mm": None if self.size_mm is None else list(self.size_mm)}))

    @classmethod
    def load(cls, path: str | Path) -> DiceProfile:
        """Read a profile written by :meth:`save`.

        :raises ValueError: naming the missing or bad field.
        :raises FileNotFoundError: if there is no such file.
        """
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise ValueError(f"dice profile {path}: not JSON ({exc})") from None
        except UnicodeDecodeError:
            raise ValueError(f"dice profile {path}: not JSON (not UTF-8 text)") from None
        kinds = data.get("kinds") if isinstance(data, dict) else None
        if not isinstance(kinds, list) or not kinds or any(k not in DIE_FACES for k in kinds):
            raise ValueError(f"dice profile {path}: field 'kinds' must list some of {', '.join(DIE_FACES)}")
        size = data.get("size_mm")
        if size is not None and not (isinstance(size, list) and len(size) == 2
                                     and all(isinstance(v, (int, float)) and v > 0 for v in size)
                                     and size[0] <= size[1]):
            raise ValueError(f"dice profile {path}: field 'size_mm' must be null or [smallest, largest] in mm")
        dice = data.get("dice", 0)
        if not isinstance(dice, int) or isinstance(dice, bool) or dice < 0:
            raise ValueError(f"dice profile {path}: field 'dice' must be a count of dice, got {dice!r}")
        return cls(kinds=tuple(kinds), size_mm=None if size is None else (float(size[0]), float(size[1])), dice=dice)


def enrol_dice(examples: Sequence[tuple[float | None, Sequence[Detection]]]) -> DiceProfile:
    """Learn a dice profile from the confirmed dice of some throws.

    Each example is the frame's scale in mm per pixel (``None`` when unknown) and the dice in
    it as the players confirmed them: a ``Detection`` whose ``kind`` is right and whose
    ``value`` is the face they gave. Sizes are learned only where the scale was known.

    :raises ValueError: for a kind that is no die, a face the kind does not have, or no dice.
    """
    kinds: set[str] = set()
    sizes: list[float] = []
    count = 0
    for n, (mm_per_px, dice) in enumerate(examples):
        for d in dice:
            if d.kind not in DIE_FACES:
                raise ValueError(f"example {n}: {d.kind!r} is no die kind ({', '.join(DIE_FACES)})")
            if isinstance(d.value, bool) or not (isinstance(d.value, int) and 1 <= d.value <= DIE_FACES[d.kind]):
                raise ValueError(f"example {n}: a {d.kind} shows 1 to {DIE_FACES[d.kind]}, got {d.value!r}")
            kinds.add(d.kind)
            count += 1
            if mm_per_px is not None and mm_per_px > 0:
                sizes.append(max(d.bbox[2], d.bbox[3]) * mm_per_px)
    if not count:
        raise ValueError("enrolment needs at least one confirmed die")
    size = (float(min(sizes)), float(max(sizes))) if sizes else None
    return DiceProfile(kinds=tuple(k for k in DIE_FACES if k in kinds), size_mm=size, dice=count)
