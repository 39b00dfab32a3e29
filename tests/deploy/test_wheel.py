"""The wheel is all a user installs: built from the checkout, installed into a virtual environment of its own
outside the checkout, its commands find their models and data (`tablewatch cards` on a real photo reads cards;
`tablewatch demo` plays a hand end to end)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PHOTO = ROOT / "tests" / "vision" / "data" / "held_out_cards.jpg"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q",
                    "-w", str(out)], check=True, cwd=out, timeout=600)
    (built,) = out.glob("tablewatch-*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtual environment with the wheel alone installed in it; the libraries it needs come from the test
    run's environment through a path entry (a .pth line is read only in a site directory, so the checkout's
    editable install does not come with them)."""
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    Path(site, "test-run-libraries.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)], check=True,
                   timeout=300)
    return python


def test_the_wheel_carries_the_models_and_data_the_commands_read(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"tablewatch/vision/weights/cards-boxes-yolo11n-320.onnx", "tablewatch/vision/weights/MODEL_CARD.md",
            "tablewatch/bench/data/demo_hands.phh"} <= names
    assert not [n for n in names if n.endswith(".pt")]  # training checkpoints stay in the source tree


def run_installed(python: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([str(python), "-m", "tablewatch", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=900)


def test_the_installed_wheel_reads_cards_on_a_real_photo(installed: Path, tmp_path: Path) -> None:
    located = subprocess.run([str(installed), "-c", "import tablewatch; print(tablewatch.__file__)"], cwd=tmp_path,
                             capture_output=True, text=True, check=True).stdout
    assert str(ROOT) not in located  # the wheel's own files, not the checkout's
    done = run_installed(installed, "cards", str(PHOTO), "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    read = json.loads(done.stdout)
    assert "/vision/weights/" in read["model"] and str(ROOT) not in read["model"]
    assert len(read["cards"]) >= 3


def test_the_installed_wheel_plays_the_demo(installed: Path, tmp_path: Path) -> None:
    done = run_installed(installed, "demo", "--hands", "1", "--no-broker", "-o", str(tmp_path / "demo"), cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert list((tmp_path / "demo").rglob("*.phh"))
