"""Table calibration: the homography from frame pixels to table millimetres, and the zones.

Three ways to a :class:`Calibration`:

* :func:`calibrate` finds the printed corner markers (``referee markers``) in a frame;
* :func:`calibrate_manual` takes the play area's four corners clicked by hand and its size,
  for a table without markers;
* :func:`load_calibration` reads one saved by :meth:`Calibration.save` (a small JSON file a
  person can read and edit; every field is checked on load and an error names the bad one).

While playing, :func:`track` re-finds the markers in a frame and notices a bumped camera: it
corrects the calibration when it can and reports it when it cannot.

The package's modules, one job each: ``common`` (the file's format, ``CalibrationError``),
``lens`` (``Lens``, ``fit_lens``: the camera's distortion), ``geometry`` (homography
arithmetic), ``model`` (``Calibration`` and its file, ``load_calibration``), ``making``
(``calibrate``, ``calibrate_manual``, ``fit_homography``), ``tracking`` (``track``: following a
bumped camera). Every name is importable from ``vision.calibration`` itself.
"""

from __future__ import annotations

from vision.calibration.common import (
    CalibrationError as CalibrationError,
    FORMAT as FORMAT,
    MAX_DISTORTION as MAX_DISTORTION,
    Matrix3 as Matrix3,
    SOURCES as SOURCES,
    VERSION as VERSION,
)
from vision.calibration.lens import (
    Lens as Lens,
    _centre_scale as _centre_scale,
    _local_scale as _local_scale,
    fit_lens as fit_lens,
)
from vision.calibration.geometry import (
    _apply as _apply,
    _as_matrix3 as _as_matrix3,
    _cross as _cross,
    _describe_missing as _describe_missing,
    _inv as _inv,
)
from vision.calibration.model import (
    Calibration as Calibration,
    _check_size as _check_size,
    _compact_numbers as _compact_numbers,
    _from_json as _from_json,
    _is_number as _is_number,
    _markers_from_json as _markers_from_json,
    load_calibration as load_calibration,
)
from vision.calibration.making import (
    CalibrateParams as CalibrateParams,
    calibrate as calibrate,
    calibrate_manual as calibrate_manual,
    fit_homography as fit_homography,
)
from vision.calibration.tracking import (
    TRACK_STATUSES as TRACK_STATUSES,
    TrackParams as TrackParams,
    TrackResult as TrackResult,
    _similarity_correction as _similarity_correction,
    track as track,
)
