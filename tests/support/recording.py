"""Playing a recording of a table's devices through ``tablewatch run`` (a subprocess, as at a table)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tablewatch.bench.through_run import truth_hidden

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "tablewatch" / "sim" / "scenarios" / "demo.yaml"
RECORDED_S = 11.0  # the demo's blinds, deal and preflop up to seat 3's raise (spoken at 9.6 s, typed at 10.4 s)
# ps_1000nl_ hand 15 (the fields the simulator reads, copied so the test runs without shared/): seat 6 raises
# the blinds and takes them.
RAISE_TAKES_THE_BLINDS = """variant = 'NT'
ante_trimming_status = false
antes = [0, 0, 0, 0]
blinds_or_straddles = [5, 10, 0, 0]
min_bet = 10
starting_stacks = [1772.2, 185, 1000, 1301]
actions = ['d dh p1 ????', 'd dh p2 ????', 'd dh p3 ????', 'd dh p4 ????', 'p3 f', 'p4 cbr 20', 'p1 f', 'p2 f']
seats = [1, 2, 4, 6]
"""


PLAY_CAP_S = 900  # the run ends with its recording; this only stops one that hangs (a busy machine plays slowly)


def play(recording: Path, out: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """``tablewatch run`` on the recording (with ``options``, e.g. ``--fast``), its truth taken away meanwhile
    (the run has nothing of it to read)."""
    with truth_hidden(recording):
        return subprocess.run([sys.executable, "-m", "tablewatch", "run", str(recording / "table.toml"),
                               "--out", str(out), "--duration", str(PLAY_CAP_S), *options], cwd=ROOT,
                              capture_output=True, text=True, timeout=PLAY_CAP_S + 60)
