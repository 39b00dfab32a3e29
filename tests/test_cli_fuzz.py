"""Every command that reads a file, given random and malformed ones: never a traceback; a failure exits
non-zero with a message that names the file.

Each file is either random bytes or a good file broken: cut short, bytes spliced in, or a line replaced. The
examples are drawn from a fixed seed (the same on every run) and kept few: a few seconds in all.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablewatch.calibration.layout import LAYOUTS_DIR
from tablewatch.cli import cli
from tests.support.phh import ONE_HAND

ONE_FRAME = ["--no-video", "--max-frames", "1", "--view", "overhead_720p", "-o"]  # what a valid file costs, kept small
SCENARIOS = Path(__file__).resolve().parents[1] / "tablewatch" / "sim" / "scenarios"
PHH = ONE_HAND.encode()
LENS = (b"[camera]\nimage_size = [1280, 720]\n"
        b"camera_matrix = [[1080.0, 0.0, 640.0], [0.0, 1080.0, 360.0], [0, 0, 1]]\n"
        b"dist_coeffs = [0.0, 0.0, 0.0, 0.0, 0.0]\n")


def _png() -> bytes:
    picture = np.zeros((48, 64, 3), np.uint8)
    cv2.rectangle(picture, (8, 8), (40, 30), (40, 160, 220), -1)
    return cv2.imencode(".png", picture)[1].tobytes()


@dataclass(frozen=True)
class Command:
    """A command line that reads ``file`` (a path in a fresh folder), and a good file of its kind."""

    name: str
    suffix: str
    good: bytes
    argv: Callable[[Path, Path], list[str]]  # (file, folder) -> arguments
    examples: int = 25


def _blank_photo(folder: Path) -> str:
    path = folder / "blank.png"
    if not path.exists():
        path.write_bytes(_png())
    return str(path)


COMMANDS = [
    Command("replay", ".phh", PHH, lambda f, d: ["replay", str(f)]),
    Command("bench-rules", ".phh", PHH, lambda f, d: ["bench-rules", str(f)]),
    Command("sim coverage", ".phh", PHH, lambda f, d: ["sim", "coverage", str(f)], examples=10),
    Command("sim render --phh", ".phh", PHH, lambda f, d: ["sim", "render", "--phh", str(f), *ONE_FRAME, str(d)],
            examples=8),
    Command("sim render", ".yaml", (SCENARIOS / "demo.yaml").read_bytes(),
            lambda f, d: ["sim", "render", str(f), *ONE_FRAME, str(d)], examples=8),
    Command("run --validate", ".toml", b'table = "T7"\nconsole = "loop://"\n',
            lambda f, d: ["run", str(f), "--validate"]),
    Command("calibrate", ".png", _png(), lambda f, d: ["calibrate", str(f), "--layout", "oval10",
                                                       "-o", str(d / "out.toml")], examples=15),
    Command("calibrate --layout", ".toml", (LAYOUTS_DIR / "oval10.toml").read_bytes(),
            lambda f, d: ["calibrate", _blank_photo(d), "--layout", str(f), "-o", str(d / "out.toml")]),
    Command("calibrate --lens", ".toml", LENS,
            lambda f, d: ["calibrate", _blank_photo(d), "--layout", "oval10", "--lens", str(f),
                          "-o", str(d / "out.toml")], examples=15),
    Command("cards", ".png", _png(), lambda f, d: ["cards", str(f)], examples=10),
]


@st.composite
def broken(draw: st.DrawFn, good: bytes) -> bytes:
    """Random bytes, or ``good`` cut short, with bytes spliced in, or with one line replaced."""
    how = draw(st.sampled_from(["random", "cut", "splice", "line"]))
    if how == "random":
        return draw(st.binary(max_size=300))
    at = draw(st.integers(0, len(good)))
    if how == "cut":
        return good[:at]
    if how == "splice":
        return good[:at] + draw(st.binary(min_size=1, max_size=12)) + good[at + draw(st.integers(0, 12)):]
    lines = good.split(b"\n")
    k = draw(st.integers(0, len(lines) - 1))
    lines[k] = draw(st.text(max_size=60)).encode("utf-8", errors="replace")
    return b"\n".join(lines)


def _check(command: Command, folder: Path, content: bytes) -> None:
    path = folder / f"input{command.suffix}"
    path.write_bytes(content)
    argv = command.argv(path, Path(tempfile.mkdtemp(dir=folder)))
    result = CliRunner().invoke(cli, argv)
    shown = f"{command.name} on {content[:200]!r}:\n{result.output}"
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        f"{shown}\n{type(result.exception).__name__}: {result.exception}"
    assert "Traceback" not in result.output, shown
    if result.exit_code != 0:  # the file at fault is named: this one, or another the command was given
        named = [Path(a).name for a in argv if Path(a).is_file()]
        assert any(name in result.output for name in named), f"the message does not name the file: {shown}"


@pytest.mark.parametrize("command", COMMANDS, ids=[c.name for c in COMMANDS])
def test_a_broken_file_gets_a_message_naming_it_never_a_traceback(command: Command, tmp_path: Path) -> None:
    @settings(max_examples=command.examples, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
    @given(content=broken(command.good))
    def check(content: bytes) -> None:
        _check(command, tmp_path, content)

    check()


@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(words=st.lists(st.text(alphabet="0123456789abcdefABCDEFxz -", max_size=24), min_size=1, max_size=3))
def test_rfid_decode_of_any_hex_says_what_is_wrong(words: list[str]) -> None:
    result = CliRunner().invoke(cli, ["rfid", "decode", "--", *words])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    assert result.exit_code == 0 or "Error" in result.output, result.output
