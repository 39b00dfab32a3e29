"""Where the project's shared data lives (real photos, real hands): ``$TABLEWATCH_SHARED``, or the
``shared/`` folder beside the repository, as laid out for developers and CI."""

from __future__ import annotations

import os
from pathlib import Path


def shared_dir() -> Path:
    return Path(os.environ.get("TABLEWATCH_SHARED", Path(__file__).resolve().parents[2] / "shared"))
