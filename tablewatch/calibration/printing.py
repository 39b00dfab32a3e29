"""The layout's ArUco markers as printable pages at true size: one SVG per marker, its size in millimetres.

SVG keeps the marker's squares exact whatever the printer's resolution; printed at 100 % (no "fit to page") the
black square measures what the layout says, which calibration relies on. Each page has the quiet zone the layout
asks for, and under it (outside the quiet zone) which marker it is and where its centre goes on the table.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from tablewatch.calibration.layout import Marker, TableLayout

LABEL_MM = 14.0  # the strip under the quiet zone that says which marker the page is
BORDER_BITS = 1  # ArUco's black frame around the data bits, in modules


def marker_modules(layout: TableLayout, marker: Marker) -> np.ndarray:
    """The marker as a grid of modules (True: black), frame included, as OpenCV's ArUco dictionary draws it."""
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, layout.dictionary))
    side = dictionary.markerSize + 2 * BORDER_BITS
    image = cv2.aruco.generateImageMarker(dictionary, marker.id, side, borderBits=BORDER_BITS)
    return np.asarray(image < 128)


def marker_svg(layout: TableLayout, marker: Marker) -> str:
    """One page: the marker at ``marker.size_mm``, its quiet zone, and a label strip under them."""
    modules = marker_modules(layout, marker)
    quiet, size = layout.marker_quiet_zone_mm, marker.size_mm
    cell = size / modules.shape[0]
    width, height = size + 2 * quiet, size + 2 * quiet + LABEL_MM
    squares = "".join(f'<rect x="{quiet + c * cell:.3f}" y="{quiet + r * cell:.3f}" width="{cell:.3f}" '
                      f'height="{cell:.3f}"/>' for r, c in zip(*np.nonzero(modules), strict=True))
    x, y = marker.centre
    label = (f"{layout.name} marker {marker.id} ({layout.dictionary}, {size:g} mm): centre at x {x:g}, y {y:g} mm; "
             "print at 100 %")
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}mm" height="{height:g}mm" '
            f'viewBox="0 0 {width:g} {height:g}">'
            f'<rect width="{width:g}" height="{height:g}" fill="white"/>'
            f'<g fill="black" shape-rendering="crispEdges">{squares}</g>'
            f'<text x="{width / 2:g}" y="{width + LABEL_MM / 2:g}" font-family="sans-serif" font-size="3" '
            f'text-anchor="middle">{label}</text></svg>\n')


def write_marker_pages(layout: TableLayout, folder: Path) -> list[Path]:
    """``marker-NN.svg`` for each of the layout's markers in ``folder``; the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for marker in layout.markers:
        path = folder / f"marker-{marker.id:02d}.svg"
        path.write_text(marker_svg(layout, marker), encoding="utf-8")
        written.append(path)
    return written
