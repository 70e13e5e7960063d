"""The referee service attached to the running app (``create_app`` puts it in
``app.extensions``): one accessor the blueprints share, so ``api`` and ``dashboard`` need not
import each other."""

from __future__ import annotations

from typing import Any

from flask import current_app

EXTENSION = "referee"
"""The key of ``app.extensions`` under which ``create_app`` attaches the service."""


def service() -> Any:
    """The referee service attached to this app."""
    return current_app.extensions[EXTENSION]
