"""A long run of a recorded session: does ``tablewatch run``'s memory stay flat, and does it lose no hand?

    python -m tablewatch.bench.soak RECORDING_DIR [--minutes 10] [--fast] [-o OUT]

``tablewatch run`` plays the recording (``sim record``'s folder, its truth moved away meanwhile) for at most
``--minutes`` of wall time, at the recorded pace (``--fast``: as fast as it goes); its resident memory is read
every few seconds from ``/proc``. Printed: the memory in the second tenth of the run (after the start) and in
the last, its peak, and the hands the run wrote against the truth's hands in the part of the session it played.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

from tablewatch.bench.through_run import truth_hidden
from tablewatch.events import HandStarted, load_events

SAMPLE_S = 5.0


def rss_mb(pid: int | str = "self") -> float | None:
    """A process's resident memory (MB) from ``/proc`` (Linux); None once it has gone, or elsewhere."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def soak(recording: Path, out: Path, *, minutes: float, fast: bool) -> dict[str, object]:
    samples: list[tuple[float, float]] = []
    started = time.monotonic()
    with truth_hidden(recording):
        run = subprocess.Popen([sys.executable, "-m", "tablewatch", "run", str(recording / "table.toml"), "--out",
                                str(out), "--duration", str(minutes * 60), *(["--fast"] * fast)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while run.poll() is None:
            rss = rss_mb(run.pid)
            if rss is not None:
                samples.append((time.monotonic() - started, rss))
            time.sleep(SAMPLE_S)
    return _summary(recording, out, samples, wall_s=time.monotonic() - started, code=run.returncode)


def _summary(recording: Path, out: Path, samples: list[tuple[float, float]], *, wall_s: float,
             code: int) -> dict[str, object]:
    run_events = load_events((out / "events.jsonl").read_text(encoding="utf-8")) if (out / "events.jsonl").exists() \
        else []
    played_until = max((e.ts for e in run_events), default=0.0)
    truth = [e for e in load_events((recording / "truth" / "events.jsonl").read_text(encoding="utf-8"))
             if isinstance(e, HandStarted) and e.ts < played_until - 60]  # hands the run had the time to finish
    tenth = max(1, len(samples) // 10)  # the first tenth is the start (models loading): memory is compared after it
    return {"exit_code": code, "wall_s": round(wall_s), "table_s": round(played_until),
            "rss_second_tenth_mb": round(max(r for _, r in samples[tenth:2 * tenth]), 1) if samples else None,
            "rss_last_tenth_mb": round(max(r for _, r in samples[-tenth:]), 1) if samples else None,
            "rss_peak_mb": round(max(r for _, r in samples), 1) if samples else None,
            "samples": len(samples),
            "hands_in_truth": len(truth),
            "hands_written": len(list((out / "hands").glob("*.phh"))),
            "hands_started": sum(isinstance(e, HandStarted) for e in run_events)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("recording", type=Path)
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--fast", action="store_true")
    parser.add_argument("-o", "--out", type=Path, default=Path("out/soak"))
    args = parser.parse_args(argv)
    shutil.rmtree(args.out, ignore_errors=True)  # a run's logs append: an earlier soak's must not count
    print(json.dumps(soak(args.recording, args.out, minutes=args.minutes, fast=args.fast), indent=2))


if __name__ == "__main__":
    main()
