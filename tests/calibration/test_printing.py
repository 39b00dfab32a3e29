"""``tablewatch markers``: the layout's markers as pages at true size, which the calibration's own detector reads."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from tablewatch.calibration.layout import load_layout
from tablewatch.calibration.markers import detect_markers
from tablewatch.cli import cli

PX_PER_MM = 4
SVG = "{http://www.w3.org/2000/svg}"


def rasterised(path: Path) -> tuple[np.ndarray, float, float]:
    """The page drawn from its own rectangles (white page, black squares), and its size in mm."""
    root = ET.parse(path).getroot()
    width, height = (float(root.get(k, "0").removesuffix("mm")) for k in ("width", "height"))
    image = np.full((round(height * PX_PER_MM), round(width * PX_PER_MM)), 255, np.uint8)
    for rect in root.iter(f"{SVG}g"):
        for square in rect.iter(f"{SVG}rect"):
            x, y, w, h = (float(square.get(k, "0")) * PX_PER_MM for k in ("x", "y", "width", "height"))
            image[round(y):round(y + h), round(x):round(x + w)] = 0
    return image, width, height


@pytest.mark.parametrize("layout_name", ["oval9", "oval6"])
def test_every_marker_page_is_read_as_its_marker_at_the_layouts_size(tmp_path: Path, layout_name: str) -> None:
    result = CliRunner().invoke(cli, ["markers", "--layout", layout_name, "-o", str(tmp_path)])
    assert result.exit_code == 0, result.output
    layout = load_layout(layout_name)
    assert sorted(p.name for p in tmp_path.glob("*.svg")) == [f"marker-{m.id:02d}.svg" for m in layout.markers]
    for marker in layout.markers:
        image, width, _ = rasterised(tmp_path / f"marker-{marker.id:02d}.svg")
        found = detect_markers(image, dictionary=layout.dictionary)
        assert list(found) == [marker.id]
        side_mm = np.linalg.norm(found[marker.id][1] - found[marker.id][0]) / PX_PER_MM
        assert side_mm == pytest.approx(marker.size_mm, abs=1.0)
        assert width == pytest.approx(marker.size_mm + 2 * layout.marker_quiet_zone_mm)


def test_an_unknown_layout_is_named() -> None:
    result = CliRunner().invoke(cli, ["markers", "--layout", "hexagon"])
    assert result.exit_code != 0 and "hexagon" in result.output
