"""Example scenarios shipped with tablewatch (``demo.yaml``, ``all_violations.yaml``)."""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent


def example(name: str) -> Path:
    """The path of a shipped scenario by name (without ``.yaml``)."""
    path = HERE / f"{name}.yaml"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in HERE.glob("*.yaml")))
        raise FileNotFoundError(f"no shipped scenario {name!r}; shipped: {known}")
    return path
