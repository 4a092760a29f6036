"""The printed marker sheet is the calibration's contract: ids 0–3, 60 mm, upright."""

from __future__ import annotations

import numpy as np

from vision.calibrate import find_markers
from vision.markers import page_image, svg


def test_the_sheet_holds_markers_0_to_3_at_60_mm_upright() -> None:
    dpi = 150
    found = find_markers(np.asarray(page_image(dpi).convert("RGB")))
    assert sorted(found) == [0, 1, 2, 3]
    for quad in found.values():
        side_mm = np.linalg.norm(quad[1] - quad[0]) / (dpi / 25.4)
        assert abs(side_mm - 60.0) < 1.0
        assert quad[0][0] < quad[1][0] and quad[0][1] < quad[3][1]  # first corner top-left


def test_the_svg_is_a_millimetre_a4_page() -> None:
    text = svg()
    assert 'width="210.0mm" height="297.0mm"' in text
    assert text.count('fill="black"') > 4 * 12
