"""``tablewatch bench`` and ``demo``: the hands recorded as a table's devices capture them (``sim record``),
played by ``tablewatch run`` as at a table, and scored against the recording's truth.

The run gets no fact from the simulator: it reads the video, the RFID reads and the console entries of
the recording, and finds each hand itself (the hand framer). The truth folder is moved away while it runs.
The table may lack a camera (RFID and a console on which the dealer keys each hand's start, button, seats and
actions) or RFID (camera and console: starting stacks unknown); the score says which devices it had.

Scoring, against ``DIR/truth``:
- each truth hand is paired with the run's hand that started within it (on the session clock);
- a hand is captured when its actions, board and final stacks are the truth's (``score.py``'s comparison; at a
  table without a camera the board's cards and the hands shown are left out: no device sees them);
- its start is right within START_TOLERANCE_S of the truth hand's first sign at the table (its first chips going
  forward or card pitched: the simulator's own start comes earlier, when nothing is to be seen), its button and its
  seats' starting stacks when equal;
- violations as ``score.py`` scores them (``ACCEPTED_RULES``), hand numbers mapped through the pairing;
  latency: from when the violation could be seen to the alert's ``ts`` (the session clock of the sensor
  reading that raised it: the monitor's own lag is not included; it shows as its speed, ``run --fast``'s
  wall time against the recording's length).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pokerkit import HandHistory
from pydantic import ValidationError

from tablewatch.bench.scenarios import candidate_violations, hand_shape
from tablewatch.bench.score import (
    RULING_CHANGES_AMOUNT,
    SessionScore,
    notifications,
    phh_final_stacks,
    player_actions,
    routine_alerts,
    same_but_amount,
    score_violations,
)
from tablewatch.bench.session import SEEN_WITH_THE_BOARD, InjectedTruth, TimedAlert
from tablewatch.events import (
    BoardCardDealt,
    CardDealt,
    HandEnded,
    HandStarted,
    Severity,
    Violation,
    load_events,
)
from tablewatch.phhfile import read_hands
from tablewatch.sim.record import devices, record
from tablewatch.sim.scenario import Scenario, ScenarioError
from tablewatch.sim.session import Simulation, phh_scenario
from tablewatch.table.framer import chips_forward

START_TOLERANCE_S = 2.0  # a hand's start found this close to the truth's counts as right


def recorded_session(hands_file: Path, *, hands: int, first: int, seed: int,
                     deck: str | None = None) -> tuple[Simulation, list[str]]:
    """One continuous session of ``hands`` hands (dealt with ``deck``'s art, else the scenarios'), each with one
    violation of the bench's rotation that the simulator can stage in it (none where it can stage none); the
    violations injected, one line each."""
    data = phh_scenario(hands_file, first, seed=seed, count=hands).model_dump(mode="json")
    if deck is not None:
        data["deck"] = deck
    histories = read_hands(hands_file)
    sim = Simulation(Scenario.model_validate(data))
    injected: Counter[str] = Counter()
    for i, hand in enumerate(data["hands"]):
        for violation in candidate_violations(hand_shape(histories[first - 1 + i]), i, injected):
            hand["violations"] = [violation]
            try:
                sim = Simulation(Scenario.model_validate(data))
                injected[violation["type"]] += 1
                break
            except (ScenarioError, ValidationError, ValueError):
                hand["violations"] = []
    return sim, [f"hand {v.hand_no}: {v.type}" for v in sim.violations]


@dataclass
class FrameScore:
    """The hands' set-up as the run found it from the devices."""

    hands_found: int = 0
    starts_right: int = 0
    buttons_right: int = 0
    seats_right: int = 0
    stacks_right: int = 0  # seats and their starting stacks (none known without RFID)
    extra_hands: int = 0  # hands the run found that pair with no truth hand
    start_offsets_s: list[float] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)


@dataclass
class ThroughRunScore:
    session: SessionScore
    frame: FrameScore
    record_s: float
    injected: list[str]
    fast: bool = True  # ``run --fast``: as fast as the monitor goes (else at the recorded pace)
    devices: list[str] = field(default_factory=lambda: devices(camera=True, rfid=True))

    def as_dict(self) -> dict[str, Any]:
        return {**self.session.as_dict(), "frame": asdict(self.frame), "record_s": self.record_s,
                "injected": self.injected, "devices": self.devices, "fast": self.fast}


def through_run(hands_file: Path, out: Path, *, hands: int, first: int, seed: int, fps: float, camera: bool = True,
                rfid: bool = True, fast: bool = True, deck: str | None = None) -> ThroughRunScore:
    """Record (a table with the ``camera``, the ``rfid`` readers or both, and a console), run (``--fast`` unless
    ``fast`` is False), score; the recording in ``out/recording``, the run's output in ``out/run``."""
    started = time.perf_counter()
    sim, injected = recorded_session(hands_file, hands=hands, first=first, seed=seed, deck=deck)
    recording = out / "recording"
    for folder in (recording, out / "run"):  # an earlier bench's: its files must not join this one's (logs append)
        shutil.rmtree(folder, ignore_errors=True)
    summary = record(sim, recording, fps=fps, progress=False, camera=camera, rfid=rfid)
    record_s = time.perf_counter() - started
    wall_s = play(recording, out / "run", length_s=summary["length_s"], fast=fast)
    session, frame = score_run(recording, out / "run", session_s=summary["length_s"], wall_s=wall_s,
                               frames=summary["frames"], camera="vision" if camera else "none")
    return ThroughRunScore(session=session, frame=frame, record_s=record_s, injected=injected, fast=fast,
                           devices=summary["devices"])


@contextmanager
def truth_hidden(recording: Path) -> Iterator[None]:
    """The recording's truth moved out of it while a table runs on it: the run can't read what it must find."""
    hidden = recording.parent / f"{recording.name}-truth-hidden-during-run"
    shutil.move(recording / "truth", hidden)
    try:
        yield
    finally:
        shutil.move(hidden, recording / "truth")


def play(recording: Path, out: Path, *, length_s: float, fast: bool = True) -> float:
    """``tablewatch run`` on the recording (a subprocess, as at a table; ``--fast`` unless ``fast`` is False),
    the truth moved away meanwhile; the run's wall-clock seconds."""
    started = time.perf_counter()
    with truth_hidden(recording):
        played = subprocess.run([sys.executable, "-m", "tablewatch", "run", str(recording / "table.toml"),
                                 "--out", str(out), "--duration", str(3 * length_s + 60), *(["--fast"] * fast)],
                                capture_output=True, text=True, timeout=4 * length_s + 120)
    if played.returncode != 0:
        raise RuntimeError(f"tablewatch run failed ({played.returncode}): {played.stderr[-2000:]}")
    return time.perf_counter() - started


def score_run(recording: Path, out: Path, *, session_s: float, wall_s: float, frames: int,
              camera: str = "vision") -> tuple[SessionScore, FrameScore]:
    truth_events = load_events((recording / "truth" / "events.jsonl").read_text(encoding="utf-8"))
    run_events = load_events(_read(out / "events.jsonl"))
    truths = read_hands(recording / "truth" / "truth.phhs")
    pairs = pair_hands(truth_events, run_events)  # truth hand_no → the run's HandStarted
    frame = score_frames(truth_events, run_events, pairs)
    injected = injected_truth(recording, truth_events, pairs, [e for e in run_events if isinstance(e, HandStarted)])
    exact, actions, right, inexact = score_captured(truths, out / "hands", pairs, injected, cards=camera != "none")
    alerts = [TimedAlert(v, v.ts, 0.0) for v in load_events(_read(out / "alerts.jsonl")) if isinstance(v, Violation)]
    per_type, false_by_rule, latencies, missed, corroborating = score_violations(injected, alerts)
    rings, routine_rings = notifications(injected, alerts)
    session = SessionScore(
        camera=camera, hands=len(truths), hands_exact=exact, actions=actions, actions_right=right,
        per_type=per_type, false_by_rule=false_by_rule,
        advisories=sum(1 for a in alerts if a.violation.severity == Severity.ADVISORY), corroborating=corroborating,
        latencies_ms=latencies, missed=missed, session_s=session_s, wall_s=wall_s, frames=frames, inexact=inexact,
        routine_by_rule=routine_alerts(injected, alerts), rings=rings, routine_rings=routine_rings)
    return session, frame


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8") if path.exists() else ""


def pair_hands(truth_events: list[Any], run_events: list[Any]) -> dict[int, HandStarted]:
    """Each truth hand and the first hand the run started between the truth's start (less the tolerance)
    and its end, a misdealt deal (a hand the run ended void) aside: the truth's hand is its redeal."""
    spans = _spans(truth_events)
    void = void_hands(run_events)
    started = [e for e in run_events if isinstance(e, HandStarted) and e.hand_no not in void]
    pairs: dict[int, HandStarted] = {}
    taken: set[int] = set()
    for hand_no, (begin, end) in spans.items():
        for event in started:
            if event.hand_no not in taken and begin - START_TOLERANCE_S <= event.ts < end:
                pairs[hand_no] = event
                taken.add(event.hand_no)
                break
    return pairs


def void_hands(run_events: list[Any]) -> dict[int, HandStarted]:
    """The hands the run ended void (misdealt deals), by hand number."""
    void = {e.hand_no for e in run_events if isinstance(e, HandEnded) and e.void}
    return {e.hand_no: e for e in run_events if isinstance(e, HandStarted) and e.hand_no in void}


def _spans(events: list[Any]) -> dict[int, tuple[float, float]]:
    starts = {e.hand_no: e.ts for e in events if isinstance(e, HandStarted)}
    ends = {e.hand_no: e.ts for e in events if isinstance(e, HandEnded)}
    return {n: (t, ends.get(n, float("inf"))) for n, t in sorted(starts.items())}


def score_frames(truth_events: list[Any], run_events: list[Any], pairs: dict[int, HandStarted]) -> FrameScore:
    score = FrameScore()
    void = void_hands(run_events)
    run_hands = {e.hand_no for e in run_events if isinstance(e, HandStarted)}
    score.extra_hands = len(run_hands - set(void) - {e.hand_no for e in pairs.values()})
    begun = _first_signals(truth_events)
    for truth in (e for e in truth_events if isinstance(e, HandStarted)):
        mine = pairs.get(truth.hand_no)
        if mine is None:
            score.wrong.append(f"hand {truth.hand_no}: no hand found")
            continue
        score.hands_found += 1
        shown = begun.get(truth.hand_no, truth.ts)
        misdealt = void.get(mine.hand_no - 1)  # the hand began with the deal it voided
        offset = (misdealt or mine).ts - shown
        score.start_offsets_s.append(round(offset, 3))
        score.starts_right += abs(offset) <= START_TOLERANCE_S
        score.buttons_right += mine.button == truth.button
        score.seats_right += mine.seats == truth.seats
        stacks_right = (mine.seats, mine.stacks) == (truth.seats, truth.stacks)
        score.stacks_right += stacks_right
        if mine.button != truth.button or not stacks_right or abs(offset) > START_TOLERANCE_S:
            score.wrong.append(f"hand {truth.hand_no}: start {mine.ts:.1f}s (truth {shown:.1f}s), button "
                               f"{mine.button} (truth {truth.button}), seats/stacks {mine.seats}/{mine.stacks} "
                               f"(truth {truth.seats}/{truth.stacks})")
    return score


def _first_signals(truth_events: list[Any]) -> dict[int, float]:
    """When each truth hand first shows at the table: its first chips going forward (a blind, an ante) or its
    first card pitched. The simulator's ``HandStarted`` comes earlier, when nothing is yet to be seen."""
    first: dict[int, float] = {}
    hand_no = 0
    for event in truth_events:
        if isinstance(event, HandStarted):
            hand_no = event.hand_no
        elif hand_no not in first and (isinstance(event, CardDealt) or chips_forward(event) is not None):
            first[hand_no] = event.ts
    return first


def injected_truth(recording: Path, truth_events: list[Any], pairs: dict[int, HandStarted],
                   run_starts: list[HandStarted]) -> list[InjectedTruth]:
    """The recording's violations, each in the run's number of the hand it was injected into (0: not found);
    one done before the run saw that hand start (a chip brought in before the blinds) belongs to the hand the
    run then had in play, as its alert does."""
    boards = sorted(e.ts for e in truth_events if isinstance(e, BoardCardDealt))
    injected = []
    for v in json.loads((recording / "truth" / "violations.json").read_text(encoding="utf-8")):
        seen = v["end_ts"]
        if v["type"] in SEEN_WITH_THE_BOARD:
            seen = max(seen, next((t for t in boards if t >= v["ts"]), seen))
        paired = pairs.get(v["hand_no"])
        if paired is not None and v["ts"] < paired.ts:
            paired = next((s for s in reversed(run_starts) if s.ts <= v["ts"]), paired)
        injected.append(InjectedTruth(v["type"], v["rule_id"], paired.hand_no if paired else 0, v["ts"],
                                      v["end_ts"], tuple(v["seats"]), seen))
    return injected


def score_captured(truths: list[HandHistory], hands: Path, pairs: dict[int, HandStarted],
                   injected: list[InjectedTruth], *, cards: bool = True) -> tuple[int, int, int, list[str]]:
    """As ``score.score_hands``, each truth hand against the PHH the run wrote for its paired hand; without
    ``cards`` (no camera) the board's cards and the hands shown are not scored (no device sees them)."""
    ruled = {t.hand_no for t in injected if t.type in RULING_CHANGES_AMOUNT}
    exact = actions = right = 0
    inexact: list[str] = []
    for hand_no, truth in enumerate(truths, start=1):
        paired = pairs.get(hand_no)
        mine = _written_hand(hands, paired.hand_no) if paired else None
        ours, theirs = (player_actions(mine, cards=cards) if mine else []), player_actions(truth, cards=cards)
        actions += len(theirs)
        matches = [a == b for a, b in zip(ours, theirs, strict=False)]
        right += sum(matches)
        differ = [i for i, same in enumerate(matches) if not same]
        allowed = (paired is not None and paired.hand_no in ruled and len(differ) == 1
                   and same_but_amount(ours[differ[0]], theirs[differ[0]]))
        if mine is not None and len(ours) == len(theirs) and (not differ or allowed) \
                and phh_final_stacks(mine) == phh_final_stacks(truth):
            exact += 1
        elif mine is None:
            inexact.append(f"hand {hand_no}: not captured")
        else:
            why = next((f"action {i} is {ours[i]!r}, truth {theirs[i]!r}" for i in differ),
                       f"{len(ours)} actions, truth {len(theirs)}; final stacks {phh_final_stacks(mine)}, "
                       f"truth {phh_final_stacks(truth)}")
            inexact.append(f"hand {hand_no}: {why}")
    return exact, actions, right, inexact


def _written_hand(folder: Path, hand_no: int) -> HandHistory | None:
    paths = sorted(folder.glob(f"*-{hand_no:05d}.phh"))
    if not paths:
        return None
    with paths[0].open("rb") as handle:
        return HandHistory.load(handle)
