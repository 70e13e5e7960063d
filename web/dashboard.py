"""The pages a tablet opens: play (for players and spectators) and set-up."""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, redirect, render_template, url_for
from werkzeug.wrappers import Response

from referee import find_game, game_names
from referee.options import OptionSpec
from web.auth import csrf_token, is_controller
from web.service_access import service

bp = Blueprint("dashboard", __name__)


@bp.get("/")
def play() -> str:
    """The play screen: prompt, camera, legal options, scores and history."""
    view = service().view()
    return render_template("play.html", csrf_token=csrf_token(), controller=is_controller(),
                           title=view.get("title", ""))


@bp.get("/favicon.ico")
def favicon() -> Response:
    """The tab's icon, for browsers that ask for it at the root whatever the page links."""
    return redirect(url_for("static", filename="favicon.svg"), code=301)


@bp.get("/setup")
def setup() -> str:
    """Choose the game, its house rules (each explained), the players and a PIN; the form starts
    from the match on the table (its game and players)."""
    games = games_catalogue()
    view = service().view()
    players = view.get("players") or ["Jess", "Kevin"]
    return render_template("setup.html", csrf_token=csrf_token(), controller=is_controller(),
                           games=games, games_json=json.dumps(games).replace("</", "<\\/"),
                           current_game=view.get("game"), players=",".join(players), first=players[0])


def games_catalogue() -> list[dict[str, Any]]:
    """Every game with its options, for the set-up screen and ``GET /api/games``."""
    catalogue = []
    for name in game_names():
        cls = find_game(name)
        catalogue.append({
            "name": name,
            "title": cls.title,
            "min_players": cls.min_players,
            "max_players": cls.max_players,
            "options": [
                {"key": s.key, "default": s.default, "choices": _choices(s),
                 "accepted": s.accepted(), "rule": s.rule, "help": s.help}
                for s in cls.option_specs
            ],
        })
    return catalogue


def _choices(spec: OptionSpec) -> list[str]:
    """The values a picker offers: the choices, true/false for a switch, none for free text."""
    if spec.kind == "choice":
        return list(spec.choices)
    if spec.kind == "bool":
        return ["true", "false"] if spec.default else ["false", "true"]
    return []
