"""Finding coin circles and sampling them: the pixel half of the coin reader.

Everything here works on one frame and returns plain arrays; ``vision.coins`` composes it.

The package's modules, one job each: ``circle`` (``Circle``, coins' true sizes, the work image),
``search`` (``hough_circles``, ``fine_search``, ``suppress``: circles found), ``refine``
(``refine_circles``, ``fit_circles``: circles fitted to their edges), ``samples`` (colour and
polar samples of a coin), ``table_colour`` (the table's colour and what differs from it),
``blobs`` (``ellipse_blobs``, ``tilted_blobs``). Every name is importable from
``vision._coin_geometry`` itself.
"""

from __future__ import annotations

from vision._coin_geometry.circle import (
    APPEARANCE_KINDS as APPEARANCE_KINDS,
    COIN_DIAMETER_MM as COIN_DIAMETER_MM,
    Circle as Circle,
    FLANK_BEYOND_MIDDLE as FLANK_BEYOND_MIDDLE,
    work_image as work_image,
)
from vision._coin_geometry.search import (
    FINE_SPAN as FINE_SPAN,
    FINE_WORK_RADIUS as FINE_WORK_RADIUS,
    TILE_OVER_MARGIN as TILE_OVER_MARGIN,
    _hough as _hough,
    _spans as _spans,
    fine_search as fine_search,
    hough_circles as hough_circles,
    overlapping_circles as overlapping_circles,
    suppress as suppress,
)
from vision._coin_geometry.refine import (
    AGREED_APART as AGREED_APART,
    AGREED_FIT_BELOW as AGREED_FIT_BELOW,
    AGREED_LARGEST as AGREED_LARGEST,
    AGREED_RUN as AGREED_RUN,
    AGREED_SHARE as AGREED_SHARE,
    _agreed_circles as _agreed_circles,
    _longest_run as _longest_run,
    _refits_on_agreement as _refits_on_agreement,
    fit_circles as fit_circles,
    refine_circles as refine_circles,
)
from vision._coin_geometry.samples import (
    _crop_padded as _crop_padded,
    colour_features as colour_features,
    disc_mask as disc_mask,
    polar_grid as polar_grid,
    polar_samples as polar_samples,
)
from vision._coin_geometry.table_colour import (
    beyond_distance as beyond_distance,
    commonest_colour as commonest_colour,
    table_distance as table_distance,
)
from vision._coin_geometry.blobs import (
    ellipse_blobs as ellipse_blobs,
    tilted_blobs as tilted_blobs,
)
