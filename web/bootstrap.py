"""The composition point: the one place that wires a table's source, reader, match and store.

``open_table`` opens the camera (or a replay), finds the table's calibration, resumes or starts
the match in the store, makes the reader and the settle detector, and hands them to a
``TableService``; a replay's recorded decisions get their simulated tablet
(``web.replay_tablet``), a live camera its watcher (``web.camera_watch``), ``--record`` its
recorder. Everything else in ``web`` takes its collaborators as parameters.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from hardware import sources as frame_sources  # open_source looked up at each call: replaceable
from hardware.camera_id import camera_identity
from hardware.frames import FrameSource
from hardware.reconnect import ReconnectingSource
from hardware.recorder import Recorder
from hardware.replay import ReplaySource
from referee import find_game
from referee.errors import ConfigError
from vision.calibration import Calibration, load_calibration
from vision.layouts import Layout, default_layout
from vision.settle import SettleDetector
from web.camera_reader import VisionReader, kinds_in_play, make_reader
from web.camera_watch import watch_camera
from web.learn import TableLearner, profile_path
from web.loop import Settler
from web.match_setup import create_match
from web.recording import read_recording, recorded_options, replay_layout
from web.replay_tablet import RecordedTablet
from web.service import SettleFactory, TableService
from web.store import Match, open_store

__all__ = ["create_match", "find_calibration", "open_table", "recorded_options", "settle_factory", "table_layout"]


def open_table(
    camera: str,
    db: str,
    game: str | None = None,
    players: Sequence[str] | None = None,
    options: Mapping[str, Any] | None = None,
    first: str | None = None,
    new: bool = False,
    realtime: bool = True,
    read: str = "vision",
    calibration: Calibration | None = None,
    record: str | None = None,
    answer_from_labels: bool = False,
) -> TableService:
    """The composition point: a store, the match to resume or start, the source, settle and reader.

    A replayed game (``replay:PATH``) supplies its own game, players and options from its
    ``game.json`` unless given, and its recorded tablet decisions are taken at their moments
    (``RecordedTablet``; with ``answer_from_labels`` it also answers the referee's questions
    about unsure reads with the frames' labels). The newest match still in play on ``camera`` is resumed when
    it is the same game with the same players (or no game is named) and ``new`` is false;
    a replay then skips the frames already ruled on.

    :raises ConfigError: for an unknown game, bad players or options, or nothing to resume.
    :raises ValueError: for a malformed ``camera``; :raises CameraError: for a bad replay folder.
    """
    camera = camera_identity(camera)  # the match's key: resumed however the path was spelled
    source: FrameSource = frame_sources.open_source(camera, realtime=realtime)
    live_camera = None
    if not isinstance(source, ReplaySource):
        # A live camera that vanishes is retried until it comes back (web.camera_watch).
        live_camera = source = ReconnectingSource(source, retry_first_start=False)
    raw: dict[str, Any] = source.game if isinstance(source, ReplaySource) else {}
    if game is not None:
        game = find_game(game).name  # one spelling of every game's name: the registered one
    recorded = read_recording(raw, game)  # another game played over a recording: its players and options do not apply
    game = game or recorded.game
    players = list(players or recorded.players)
    if options is None:
        options = recorded.options
    if first is None and recorded.first:
        first = recorded.first
    if calibration is None:
        calibration = find_calibration(source, raw, db)
    store = open_store(db)  # a damaged log is moved aside and rebuilt from its journal (store.notes)
    match: Match | None = None
    resumable = None if new else store.latest_playing(camera, camera_identity)
    if resumable is not None:
        info = store.info(resumable)
        if game is None or (find_game(info.game).name == game and (not players or list(info.players) == players)):
            match = store.open(resumable, set_aside=True)
    if match is None:
        if game is None or not players:
            raise ConfigError("no match to resume on this camera: name the game with --game and --players")
        match = create_match(store, game, players, options, first, camera)
    recorder = None
    if record is not None:
        if read == "labels":
            raise ConfigError("--record writes the reads it confirms: use it with --read vision")
        recorder = Recorder(source, record, {"camera": camera, **match.state.game.to_json()})
        source = recorder
    resume_after = match.last_frame() if isinstance(source, ReplaySource) else None
    if resume_after is not None and isinstance(source, ReplaySource):
        try:
            source.skip_ahead_to(resume_after)  # the frames already ruled on come at once
        except KeyError:
            resume_after = None
    layout = table_layout(source, match) if read == "vision" and calibration is None else None
    learner: TableLearner | None = None
    if read == "vision":
        try:
            learner = TableLearner(None if db == ":memory:" else profile_path(db))
        except ValueError as exc:
            raise ConfigError(f"the table's coin profile cannot be read: {exc} (delete it to start over)") from None
    reader = make_reader(read, source, calibration, layout, kinds_in_play(match.state) or None, learner)
    service = TableService(store, match, source, settle=settle_factory(calibration), read=reader,
                           camera=camera, resume_after=resume_after)
    if isinstance(reader, VisionReader) and service.loop is not None:
        loop = service.loop
        loop.status.calibration = reader.status
        loop.on_frame = reader.observe

        def show(text: str) -> None:
            loop.status.calibration = text
            service._publish()

        reader.on_status = show
    if live_camera is not None and service.loop is not None:
        watch_camera(service, live_camera)
    if isinstance(source, ReplaySource) and recorded.decisions:
        service.tablet = RecordedTablet(recorded.decisions, source, answer_from_labels)
    service.recorder = recorder
    return service


def table_layout(source: FrameSource, match: Match) -> Layout | None:
    """The layout the service calibrates on: a replay's own table (its frames' zones and
    markers), else the game's default layout for the match's players (what ``referee markers``
    printed); ``None`` for a game without one.
    """
    wrapped = getattr(source, "source", None)  # a recorder's replay
    base = wrapped if isinstance(wrapped, ReplaySource) else source
    if isinstance(base, ReplaySource):
        recorded: Layout | None = replay_layout(base)
        if recorded is not None:
            return recorded
    game = match.state.game
    try:
        return default_layout(game.name, list(game.players))
    except ValueError:
        return None


def find_calibration(source: FrameSource, recorded: Mapping[str, Any], db: str) -> Calibration | None:
    """The table's calibration: a replay's ``calibration.json`` (or its game.json's ``calibration``),
    else ``calibration.json`` beside the match log; ``None`` when there is none.

    :raises ValueError: (vision's ``CalibrationError``) for a calibration file with a bad field.
    """
    if isinstance(source, ReplaySource) and isinstance(recorded.get("calibration"), dict):
        return Calibration.from_json(recorded["calibration"])
    candidates = [source.folder / "calibration.json"] if isinstance(source, ReplaySource) else []
    if db != ":memory:":
        candidates.append(Path(db).parent / "calibration.json")
    for path in candidates:
        if path.is_file():
            return load_calibration(path)
    return None


def settle_factory(calibration: Calibration | None = None) -> SettleFactory:
    """Makes ``vision.settle.SettleDetector`` for the table's calibration."""

    def make() -> Settler:
        return SettleDetector(calibration)

    return make
