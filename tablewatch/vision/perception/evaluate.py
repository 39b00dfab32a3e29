"""Score ``Perception`` on the simulator: render a scenario, run it, compare with the ground-truth events.

    python -m tablewatch.vision.perception.evaluate tablewatch/sim/scenarios/demo.yaml [--fps 10]
    python -m tablewatch.vision.perception.evaluate --phh FILE.phh --hand 3
    python -m tablewatch.vision.perception.evaluate --phh FILE.phh --hand 1 --hand 2 --deck simplistic --felt grey

Prints, per event kind, precision and recall (a detection matches a true event of the same kind, seat
and board slot within ``--tolerance`` seconds, each used once); for bets the share with the exact number
of forward motions and with the exact chip value; for board cards the identity accuracy; and the frames
per second of perception alone (rendering excluded).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from tablewatch.calibration.chips import from_simulator
from tablewatch.events import BetMotion, BoardCardDealt, Event
from tablewatch.sim.assets import HELD_OUT_DECKS, deck_names
from tablewatch.sim.scenario import FELTS, ScenarioError, load_scenario
from tablewatch.sim.session import Simulation, phh_scenario
from tablewatch.vision.perception.perception import Perception, PerceptionError

KINDS = ("CardDealt", "CardBurned", "BoardCardDealt", "CardsMucked", "CardsTabled", "CardExposed", "BetMotion", "Tap",
         "PotGathered", "PotPushed", "HandInZone", "StackObscured", "ChipsLeftTable")


@dataclass
class Score:
    counts: dict[str, list[int]] = field(default_factory=dict)  # kind → [true positives, detected, true]
    motions: list[bool] = field(default_factory=list)
    values: list[bool] = field(default_factory=list)
    identity: list[bool] = field(default_factory=list)
    frames: int = 0
    seconds: float = 0.0

    def add(self, other: Score) -> None:
        for kind, (tp, det, true) in other.counts.items():
            c = self.counts.setdefault(kind, [0, 0, 0])
            c[0], c[1], c[2] = c[0] + tp, c[1] + det, c[2] + true
        self.motions += other.motions
        self.values += other.values
        self.identity += other.identity
        self.frames += other.frames
        self.seconds += other.seconds


def match(truth: Sequence[Event], seen: Sequence[Event], *, tolerance: float = 0.5) -> Score:
    """Greedy one-to-one matching per kind by time (closest first), same seat and slot."""
    score = Score()
    for kind in KINDS:
        ts = [e for e in truth if e.kind == kind]
        ds = [e for e in seen if e.kind == kind]
        pairs = sorted(((abs(a.ts - b.ts), i, j) for i, a in enumerate(ts) for j, b in enumerate(ds)
                        if abs(a.ts - b.ts) <= tolerance and _same(a, b)), key=lambda p: p[0])
        used_t, used_d = set(), set()
        for _, i, j in pairs:
            if i in used_t or j in used_d:
                continue
            used_t.add(i)
            used_d.add(j)
            a, b = ts[i], ds[j]
            if isinstance(a, BetMotion) and isinstance(b, BetMotion):
                score.motions.append(a.motions == b.motions)
                score.values.append(a.chips.value == b.chips.value)
            if isinstance(a, BoardCardDealt) and isinstance(b, BoardCardDealt):
                score.identity.append(a.card == b.card)
        score.counts[kind] = [len(used_t), len(ds), len(ts)]
    return score


def _same(a: Event, b: Event) -> bool:
    if a.seat != b.seat:
        return False
    if isinstance(a, BoardCardDealt) and isinstance(b, BoardCardDealt):
        return a.slot == b.slot
    return getattr(a, "zone", None) == getattr(b, "zone", None)


def evaluate_simulation(sim: object, *, fps: float = 10.0, resolution: str = "720p", hires: str | None = None,
                        seconds: float | None = None, tolerance: float = 0.5) -> tuple[Score, list[Event]]:
    """Render ``sim`` (a ``tablewatch.sim.session.Simulation``), run perception, score it.

    ``hires``: a higher resolution of the same camera (``2160p``) rendered only when a card's identity is
    read (as a 4K camera's full frame would be cropped), motion staying on ``resolution``.
    """
    from tablewatch.calibration.layout import load_layout

    scenario = sim.scenario  # type: ignore[attr-defined]
    perception = Perception(layout=load_layout(scenario.layout), table=scenario.table,
                            chips=from_simulator(scenario.chips), deck=scenario.deck,
                            seats=_seated(sim) or None)
    stop = int(seconds * fps) if seconds else None
    spent, frames, seen = 0.0, 0, []
    last = 0.0
    big = sim.renderer(resolution=hires) if hires else None  # type: ignore[attr-defined]
    for frame in sim.frames(resolution=resolution, fps=fps, stop=stop, labels=False):  # type: ignore[attr-defined]
        t0 = time.perf_counter()
        later = (lambda t=frame.t: big.render(t, labels=False).image) if big is not None else None
        seen += perception.process(frame.image, frame.t, hires=later)
        spent += time.perf_counter() - t0
        frames, last = frames + 1, frame.t
    seen += perception.flush(last + 5.0)
    end = last + 0.01
    truth = [e for e in sim.events if e.ts <= end - 0.6 or seconds is None]  # type: ignore[attr-defined]
    score = match(truth, seen, tolerance=tolerance)
    score.frames, score.seconds = frames, spent
    return score, seen


def _seated(sim: object) -> list[int]:
    """The seats with a player in any hand of the run (the table knows who sits down)."""
    seats: set[int] = set()
    for event in sim.events:  # type: ignore[attr-defined]
        if event.kind == "HandStarted":
            seats.update(event.seats)  # type: ignore[attr-defined]
    return sorted(seats)


def format_score(score: Score) -> str:
    lines = [f"{'kind':<16}{'true':>6}{'seen':>6}{'match':>7}{'precision':>11}{'recall':>8}"]
    for kind in KINDS:
        tp, det, true = score.counts.get(kind, [0, 0, 0])
        if not det and not true:
            continue
        p = f"{tp / det:.2f}" if det else "-"
        r = f"{tp / true:.2f}" if true else "-"
        lines.append(f"{kind:<16}{true:>6}{det:>6}{tp:>7}{p:>11}{r:>8}")

    def share(xs: list[bool]) -> str:
        return f"{sum(xs)}/{len(xs)} = {100 * sum(xs) / len(xs):.0f} %" if xs else "n/a (none matched)"

    lines.append(f"forward-motion count exact: {share(score.motions)} of matched bets")
    lines.append(f"chip value exact:           {share(score.values)} of matched bets")
    lines.append(f"board card identity:        {share(score.identity)} of matched board cards")
    fps = score.frames / score.seconds if score.seconds else 0.0
    lines.append(f"perception speed:           {fps:.1f} frames/s ({score.frames} frames, rendering excluded)")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tablewatch.vision.perception.evaluate",
                                     description="Score perception against the simulator's ground truth.")
    parser.add_argument("scenarios", nargs="*", help="scenario YAML files")
    parser.add_argument("--phh", help="a PHH file: play its hands (see --hand)")
    parser.add_argument("--hand", type=int, action="append", help="hand number in --phh (repeatable)")
    parser.add_argument("--fps", type=float, default=10.0)
    parser.add_argument("--resolution", default="720p", help="the frames motion is analysed on")
    parser.add_argument("--hires", help="read card identity from this resolution (e.g. 2160p), rendered on demand")
    parser.add_argument("--seconds", type=float, help="only the first SECONDS of each run")
    parser.add_argument("--tolerance", type=float, default=0.5, help="time tolerance of a match (s)")
    parser.add_argument("--deck", choices=deck_names(), help="deal this card art instead of the scenarios' "
                        f"(held out of every training set: {', '.join(HELD_OUT_DECKS)})")
    parser.add_argument("--felt", choices=sorted(FELTS), help="this felt instead of the scenarios' (held out: grey)")
    args = parser.parse_args(argv)

    if not args.scenarios and not args.phh:
        parser.error("give a scenario file or --phh FILE --hand N")
    total = Score()
    try:
        scenarios = [(str(p), load_scenario(p)) for p in args.scenarios]
        if args.phh:
            scenarios += [(f"{args.phh} hand {h}", phh_scenario(args.phh, h)) for h in (args.hand or [1])]
        changes = {key: value for key, value in (("deck", args.deck), ("felt", args.felt)) if value}
        sims = [(name, Simulation(scenario.model_copy(update=changes))) for name, scenario in scenarios]
        for name, sim in sims:
            score, _ = evaluate_simulation(sim, fps=args.fps, resolution=args.resolution, hires=args.hires,
                                           seconds=args.seconds, tolerance=args.tolerance)
            print(f"== {name}  ({sim.duration:.1f} s at {args.fps:g} fps, {args.resolution})")
            print(format_score(score))
            total.add(score)
    except (ScenarioError, PerceptionError, FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if len(sims) > 1:
        print("== all")
        print(format_score(total))
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["KINDS", "Score", "evaluate_simulation", "format_score", "main", "match"]
