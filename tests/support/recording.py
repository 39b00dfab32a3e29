"""Playing a recording of a table's devices through ``tablewatch run`` (a subprocess, as at a table)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tablewatch.bench.through_run import truth_hidden

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "tablewatch" / "sim" / "scenarios" / "demo.yaml"
RECORDED_S = 11.0  # the demo's blinds, deal and preflop up to seat 3's raise (spoken at 9.6 s, typed at 10.4 s)


def play(recording: Path, out: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """``tablewatch run`` on the recording (with ``options``, e.g. ``--fast``), its truth taken away meanwhile
    (the run has nothing of it to read)."""
    with truth_hidden(recording):
        return subprocess.run([sys.executable, "-m", "tablewatch", "run", str(recording / "table.toml"),
                               "--out", str(out), "--duration", "120", *options], cwd=ROOT, capture_output=True,
                              text=True, timeout=180)
