"""Build the referee service an app needs when none is handed to ``create_app``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def build_service(config: Mapping[str, Any]) -> Any:
    """The service for ``REFEREE_CAMERA``: ``replay:demo`` (the embedded default game), or any
    camera ``referee serve`` accepts, with the match log at ``REFEREE_DB``.

    :raises ConfigError: for a camera with no match to resume and no game named.
    """
    import tempfile
    from pathlib import Path

    camera = str(config["REFEREE_CAMERA"])
    db = config.get("REFEREE_DB") or str(Path(tempfile.mkdtemp(prefix="referee-")) / "matches.db")
    if camera == "replay:demo":
        from web.demo_games import DEFAULT_GAME, open_demo

        return open_demo(DEFAULT_GAME, db)
    from web.bootstrap import open_table

    return open_table(camera, db, config.get("REFEREE_GAME"), config.get("REFEREE_PLAYERS"),
                      config.get("REFEREE_OPTIONS"), config.get("REFEREE_FIRST"))
