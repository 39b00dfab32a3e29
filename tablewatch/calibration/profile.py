"""The table profile: one TOML file per table with its layout, camera calibration, chip colours and the dealer
button's look (a standard white 3 in puck unless measured or given; profiles written before it get that).

``tablewatch calibrate`` writes it; the monitor reads it with ``load_profile`` and gets the layout and
the pixel ↔ mm mapping from it (``profile.layout()``, ``profile.calibration``).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from pydantic import Field

from tablewatch.calibration import tomlio
from tablewatch.calibration.button import ButtonLook
from tablewatch.calibration.camera import TableCalibration
from tablewatch.calibration.chips import ChipColours
from tablewatch.calibration.layout import TableLayout, load_layout
from tablewatch.config import ConfigError, StrictModel, load_config


class TableProfile(StrictModel):
    table: str = Field(min_length=1, description="Table id, e.g. T01.")
    layout: str = Field(description="A layout template name (oval10) or the path of a layout file.")
    created: str = Field(default="", description="When the calibration was made (ISO 8601, UTC).")
    source: str = Field(default="", description="The image or video it was made from.")
    calibration: TableCalibration
    chips: ChipColours | None = None
    button: ButtonLook = Field(default_factory=ButtonLook, description="The dealer button puck's look.")

    def load_layout(self) -> TableLayout:
        return load_layout(self.layout)


def new_profile(
    *, table: str, layout: str, calibration: TableCalibration, chips: ChipColours | None = None, source: str = "",
    button: ButtonLook | None = None,
) -> TableProfile:
    created = datetime.now(UTC).replace(microsecond=0).isoformat()
    return TableProfile(
        table=table, layout=layout, created=created, source=source, calibration=calibration, chips=chips,
        button=button or ButtonLook(),
    )


def save_profile(profile: TableProfile, path: str | Path) -> None:
    header = (
        f"tablewatch table profile for {profile.table}: written by `tablewatch calibrate`.\n"
        "calibration.homography maps undistorted image pixels to table millimetres (see calibration/layout.py)."
    )
    Path(path).write_text(tomlio.dumps(profile.model_dump(mode="json"), header=header), encoding="utf-8")


def load_profile(path: str | Path) -> TableProfile:
    """Read a profile; raise ConfigError naming the file, key and problem."""
    return load_config(path, TableProfile)


__all__ = ["ButtonLook", "ConfigError", "TableProfile", "load_profile", "new_profile", "save_profile"]
