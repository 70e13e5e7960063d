"""``referee read IMAGE...``: read coins and dice in photos, one JSON line per image.

With ``--calibration FILE`` the table's scale decides sizes and every object gets its zone.
With ``--game GAME --players P`` instead, the table printed by ``referee markers GAME
--players P`` is calibrated from the corner markers seen in the first photo (same camera for
the rest), and ``--save-calibration FILE`` keeps that calibration for ``referee serve`` and
later reads.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any


def add_parser(commands: Any) -> None:
    """Register the ``read`` subcommand."""
    read = commands.add_parser("read", help="read the coins and dice in photos")
    read.add_argument("images", nargs="+", metavar="IMAGE", help="photo files (JPEG, PNG, ...)")
    read.add_argument("--calibration", metavar="FILE", help="table calibration file (scale, zones)")
    read.add_argument("--game", help="calibrate from the corner markers of this game's printed table in the first photo")
    read.add_argument("--players", help="with --game: how many players (3), or their names in seating order (Ann,Bo,Cy)")
    read.add_argument("--save-calibration", metavar="FILE", help="with --game: save the calibration found (JSON)")
    read.add_argument("--profile", metavar="FILE", help="what enrolment learned of this table's coins (.npz)")
    read.add_argument("--kinds", metavar="KIND,...",
                      help="look only for these kinds of object, e.g. penny or d6 (default: every kind)")
    read.add_argument("--json", action="store_true", help="print one JSON line per image (the default is text)")
    read.set_defaults(run=run_read)


def run_read(args: argparse.Namespace) -> int:
    """Run ``referee read``; returns 0, 1 if any image could not be read, 2 for a bad option file."""
    # OpenCV and the readers load only when this subcommand runs.
    from vision.enrol import CoinProfile
    from vision.read import ReadParams, params_for_kinds, read_table

    kinds = None
    if args.kinds is not None:
        kinds = frozenset(kind.strip() for kind in args.kinds.split(",") if kind.strip())
        if not kinds:
            print(f"referee: --kinds {args.kinds!r} names no kind", file=sys.stderr)
            return 2
        try:
            params_for_kinds(ReadParams(), kinds)
        except ValueError as exc:
            print(f"referee: --kinds {args.kinds!r}: {exc}", file=sys.stderr)
            return 2
    calibration = None
    if args.calibration and args.game:
        print("referee: give --calibration FILE or --game GAME --players P, not both", file=sys.stderr)
        return 2
    if (args.players or args.save_calibration) and not args.game:
        print("referee: --players and --save-calibration go with --game", file=sys.stderr)
        return 2
    if args.calibration:
        from vision.calibration import load_calibration

        try:
            calibration = load_calibration(args.calibration)
        except ValueError as exc:
            print(f"referee: {exc}", file=sys.stderr)
            return 2
    elif args.game:
        calibration = calibrate_from_markers(args.images[0], args.game, args.players, args.save_calibration)
        if calibration is None:
            return 2
    profile = None
    if args.profile:
        try:
            profile = CoinProfile.load(args.profile)
        except (OSError, ValueError) as exc:
            print(f"referee: bad coin profile {args.profile}: {exc}", file=sys.stderr)
            return 2
    failed = 0
    for path in args.images:
        frame, problem = load_image(path)
        if frame is None:
            failed += 1
            emit(args.json, {"image": path, "error": problem, "objects": [], "notes": [problem]})
            continue
        start = time.perf_counter()
        try:
            observation = read_table(frame, calibration=calibration, profile=profile, kinds=kinds)
        except ValueError as exc:
            failed += 1
            emit(args.json, {"image": path, "error": str(exc), "objects": []})
            continue
        ms = (time.perf_counter() - start) * 1000.0
        objects = [
            {k: v for k, v in obj.to_json().items() if k in ("kind", "value", "guess", "zone", "bbox", "confidence", "flags")}
            for obj in observation.objects
        ]
        emit(
            args.json,
            {"image": path, "objects": objects, "ms": round(ms, 1), "mm_per_px": observation.mm_per_px, "notes": list(observation.notes)},
        )
    return 1 if failed else 0


def calibrate_from_markers(image: str, game: str, players: str | None, save: str | None) -> Any:
    """The calibration of ``game``'s default printed table from the corner markers in ``image``
    (saved to ``save`` when given), or ``None`` after saying on stderr what went wrong."""
    from vision.calibration import CalibrationError, calibrate
    from vision.layouts import default_layout, players_from_text

    if not players:
        print("referee: --game needs --players (how many, or their names in seating order)", file=sys.stderr)
        return None
    try:
        layout = default_layout(game, players_from_text(players))
    except ValueError as exc:
        print(f"referee: {exc}", file=sys.stderr)
        return None
    frame, problem = load_image(image)
    if frame is None:
        print(f"referee: {problem}", file=sys.stderr)
        return None
    try:
        calibration = calibrate(frame, layout)
    except CalibrationError as exc:
        print(f"referee: cannot calibrate from {image}: {exc}", file=sys.stderr)
        return None
    if save:
        try:
            calibration.save(save)
        except OSError as exc:
            print(f"referee: cannot save the calibration to {save}: {exc.strerror or exc}", file=sys.stderr)
            return None
    return calibration


def load_image(path: str) -> tuple[Any, str]:
    """The image at ``path`` as a BGR frame, or ``None`` and why it could not be read (a
    picture over ``hardware.image_file.MAX_PIXELS`` is refused before it is decoded; a
    truncated JPEG is named as such)."""
    from hardware.image_file import ImageFileError, decode_image

    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError as exc:
        return None, f"cannot read image {path}: {exc.strerror or exc}"
    try:
        return decode_image(data, path), ""
    except ImageFileError as exc:
        return None, str(exc)


def emit(as_json: bool, record: dict[str, Any]) -> None:
    """Print one image's result: a JSON line, or short text."""
    if as_json:
        print(json.dumps(record), flush=True)
        return
    if "error" in record:
        print(f"{record['image']}: error: {record['error']}", flush=True)
        return
    reads = ", ".join(f"{o['kind']} {_face(o)} ({o['confidence']:.2f})" for o in record["objects"])
    print(f"{record['image']}: {len(record['objects'])} objects in {record['ms']} ms: {reads}", flush=True)


def _face(read: dict[str, Any]) -> str:
    """A read's face in the text form: the face ruled on, else the guess with a ``?`` (``4?``),
    else ``?``."""
    if read["value"] is not None:
        return str(read["value"])
    return "?" if read.get("guess") is None else f"{read['guess']}?"
