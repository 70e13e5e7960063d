"""One spelling per camera, so that a match is resumed however its ``--camera`` was written."""

from __future__ import annotations

from hardware.sources import parse_camera


def camera_identity(text: str) -> str:
    """The canonical form of a ``--camera`` value: ``pi``, ``webcam:N`` (``webcam`` is
    ``webcam:0``) or ``replay:`` and the folder's absolute, resolved path
    (``replay:fixtures/games/sp_t1`` and ``replay:/abs/fixtures/games/sp_t1/`` are one camera).

    :raises ValueError: for a malformed value, naming the accepted forms.
    """
    spec = parse_camera(text)
    if spec.kind == "pi":
        return "pi"
    if spec.kind == "webcam":
        return f"webcam:{spec.index}"
    assert spec.path is not None
    return f"replay:{spec.path.expanduser().resolve()}"
