"""Find coins, tell their denomination and read heads or tails.

``find_coins(frame)`` is the whole reader. It composes small steps:

1. ``find_coin_circles``: circles from a Hough transform on a reduced frame, one per coin,
   touching and overlapping coins included; a coin lying over another is marked stacked.
   Coins as light as the cloth, with no outline in grey, are then looked for by their colour
   where a patch of the frame unlike the cloth is left unexplained (``vision.colour_coins``),
   and, without a known scale, in the reduced frame's chroma, where a speckled or grained
   background's grey edges hide a coin's outline (``CoinParams.chroma_search``).
2. ``colour_features``: each coin's colour relative to the table (copper, silver, brass);
   ``against_table``: relative to the printed table's white where its markers are seen
   (``vision.white_reference``), else to grey in part where the table is strongly coloured.
3. The appearance model (``vision._coin_model``): kind and face from a polar image of the
   coin, so any rotation reads the same.
4. ``denominations``: size, colour and appearance together. With a known scale the true
   diameter decides; without one the scale that best explains every coin at once is found.

A read is *confident* when its confidence is at least :data:`CONFIDENT`; below that the
referee must ask. Faces are ``None`` below ``CoinParams.face_min``.

The package's modules, one job each: ``params`` (``CoinParams``, the confidence floor),
``frames`` (checking a frame, its reduced views), ``circles`` (``find_coin_circles``: every
coin's circle, by outline, colour, chroma and beneath others), ``scale`` (sizes against a scale,
and the scale that explains the coins), ``colour`` (colours against the table and the printed
white), ``kinds`` (``denominations``: size, colour and appearance together), ``appearance`` (the
appearance model's read), ``reader`` (``find_coins``, ``measure_coins``), ``on_edge`` (coins
standing on edge or tilted), ``drawing`` (``draw_coins``). Every name is importable from
``vision.coins`` itself.
"""

from __future__ import annotations

from vision.coins.params import (
    CONFIDENT as CONFIDENT,
    CoinParams as CoinParams,
    NOT_COIN as NOT_COIN,
)
from vision.coins.frames import (
    FrameViews as FrameViews,
    frame_views as frame_views,
    validate_frame as validate_frame,
)
from vision.coins.circles import (
    LARGEST_OVER_SMALLEST as LARGEST_OVER_SMALLEST,
    _checked_circles as _checked_circles,
    _coins_seen_by_colour as _coins_seen_by_colour,
    _coins_seen_in_chroma as _coins_seen_in_chroma,
    _with_coins_beneath as _with_coins_beneath,
    find_coin_circles as find_coin_circles,
)
from vision.coins.scale import (
    _scale_loglik as _scale_loglik,
    estimate_scale as estimate_scale,
    refine_scale as refine_scale,
    size_loglik as size_loglik,
)
from vision.coins.colour import (
    DEFAULT_COLOURS as DEFAULT_COLOURS,
    SILVER as SILVER,
    against_table as against_table,
    colour_loglik as colour_loglik,
)
from vision.coins.kinds import (
    _only as _only,
    _reorder as _reorder,
    denominations as denominations,
)
from vision.coins.appearance import (
    appearance as appearance,
    profile_fits_model as profile_fits_model,
)
from vision.coins.reader import (
    find_coins as find_coins,
    measure_coins as measure_coins,
)
from vision.coins.on_edge import (
    _kind_by_length as _kind_by_length,
    _lone_coins_on_edge as _lone_coins_on_edge,
    coins_on_edge as coins_on_edge,
    tilted_coins as tilted_coins,
)
from vision.coins.drawing import (
    draw_coins as draw_coins,
)
from vision._coin_geometry import (  # helpers this module has always offered
    hough_circles as hough_circles,
    refine_circles as refine_circles,
)
from vision._coin_model import load_model as load_model
from vision.colour_coins import chroma_circles as chroma_circles
from vision.print_erase import erase_print as erase_print
