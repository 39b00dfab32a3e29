"""A small TOML writer for the table profile (the standard library reads TOML but does not write it)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any


def dumps(data: Mapping[str, Any], *, header: str = "") -> str:
    """TOML text for nested dicts of str, int, float, bool and lists of those (or of dicts: arrays of tables).

    ``None`` values are left out (TOML has no null).
    """
    lines = [f"# {line}" for line in header.splitlines()]
    _table(lines, [], data)
    return "\n".join(lines).lstrip("\n") + "\n"


def _table(lines: list[str], path: list[str], data: Mapping[str, Any]) -> None:
    simple = {k: v for k, v in data.items() if v is not None and not _is_table(v) and not _is_table_array(v)}
    for key, value in simple.items():
        lines.append(f"{_key(key)} = {_value(value)}")
    for key, value in data.items():
        if _is_table(value):
            lines += ["", f"[{'.'.join(_key(p) for p in [*path, key])}]"]
            _table(lines, [*path, key], value)
        elif _is_table_array(value):
            for item in value:
                lines += ["", f"[[{'.'.join(_key(p) for p in [*path, key])}]]"]
                _table(lines, [*path, key], item)


def _is_table(value: Any) -> bool:
    return isinstance(value, Mapping)


def _is_table_array(value: Any) -> bool:
    return isinstance(value, list | tuple) and bool(value) and all(isinstance(v, Mapping) for v in value)


def _key(key: str) -> str:
    key = str(key)
    if key and all(c.isalnum() or c in "-_" for c in key):
        return key
    return _string(key)


def _string(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, Sequence):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if hasattr(value, "tolist"):  # numpy scalars and arrays
        return _value(value.tolist())
    raise TypeError(f"Cannot write {type(value).__name__} to TOML.")
