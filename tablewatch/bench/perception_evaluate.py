"""Score ``Perception`` on the simulator: render a scenario, run it, compare with the ground-truth events.

    python -m tablewatch.bench.perception_evaluate tablewatch/sim/scenarios/demo.yaml [--fps 10]
    python -m tablewatch.bench.perception_evaluate --phh FILE.phh --hand 3
    python -m tablewatch.bench.perception_evaluate --phh FILE.phh --hand 1 --hand 2 --deck simplistic --felt grey
    python -m tablewatch.bench.perception_evaluate tablewatch/sim/scenarios/demo.yaml --objects --hires 2160p
    python -m tablewatch.bench.perception_evaluate tablewatch/sim/scenarios/demo.yaml --resolution 2160p --jpeg

Prints, per event kind, precision and recall (a detection matches a true event of the same kind, seat
and board slot within ``--tolerance`` seconds, each used once); for bets the share with the exact number
of forward motions and with the exact chip value; for board cards the identity accuracy; and the frames
per second of perception alone (rendering excluded). With ``--objects``, also frame by frame against the
simulator's labels: the hands over the felt found (and their owners), and the chip tops in full view read
by denomination; with ``--detector`` too, the same for the table-objects detector on the same analysed planes
(its hands have no owner). With ``--jpeg``, every frame reaches perception JPEG-compressed, as a Motion-JPEG camera
sends it: decoded only when analysed, reduced as far as the plane allows (``tablewatch run``'s way).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from tablewatch.calibration.chips import ChipColours, painted_chip_colours
from tablewatch.calibration.decks import deck_names
from tablewatch.events import BetMotion, BoardCardDealt, Event, HandStarted
from tablewatch.sim.labels import Label
from tablewatch.sim.render import Frame
from tablewatch.sim.scenario import FELTS, HELD_OUT_DECKS, ScenarioError, load_scenario
from tablewatch.sim.session import Simulation, phh_scenario
from tablewatch.vision.detector import DetectorError
from tablewatch.vision.perception.perception import Perception, PerceptionError
from tablewatch.vision.sources import jpeg_frame
from tablewatch.vision.table_objects import TableObjectDetector

KINDS = ("CardDealt", "CardBurned", "BoardCardDealt", "CardsMucked", "CardsTabled", "CardExposed", "BetMotion", "Tap",
         "PotGathered", "PotPushed", "HandInZone", "StackObscured", "ChipsLeftTable")


HAND_MATCH_MM = 80.0  # a hand seen within this of a true hand's middle found it (a hand is about 104 × 80 mm)
CHIPS_EVERY = 10  # chip tops are scored on every this many analysed frames (resting chips change slowly)
CHIP_IN_VIEW = 0.9  # share of a chip top visible (not under a hand or another chip) for it to be scored
CHIP_MATCH_MM = 20.0  # a detected chip top this near a true one's middle is read as it (a chip is 39 mm across)


@dataclass
class ObjectScore:
    """Per analysed frame, against the simulator's labels: hands over the felt, and chip tops in full view
    read by denomination (what the stack watch and bet values rest on)."""

    hands_true: int = 0
    hands_found: int = 0  # true hands with a hand seen within HAND_MATCH_MM
    hands_owner: int = 0  # ... and given to the right seat or the dealer
    hands_seen: int = 0
    hands_false: int = 0  # hands seen near no true hand
    chips: Counter[tuple[int, int | None]] = field(default_factory=Counter)  # (true value, value read) → count

    def add(self, other: ObjectScore) -> None:
        for name in ("hands_true", "hands_found", "hands_owner", "hands_seen", "hands_false"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.chips.update(other.chips)


@dataclass
class Score:
    counts: dict[str, list[int]] = field(default_factory=dict)  # kind → [true positives, detected, true]
    motions: list[bool] = field(default_factory=list)
    values: list[bool] = field(default_factory=list)
    identity: list[bool] = field(default_factory=list)
    objects: ObjectScore | None = None
    detector: ObjectScore | None = None  # the table-objects detector on the same frames (``--detector``)
    frames: int = 0
    seconds: float = 0.0

    def add(self, other: Score) -> None:
        for kind, (tp, det, true) in other.counts.items():
            c = self.counts.setdefault(kind, [0, 0, 0])
            c[0], c[1], c[2] = c[0] + tp, c[1] + det, c[2] + true
        self.motions += other.motions
        self.values += other.values
        self.identity += other.identity
        if other.objects is not None:
            self.objects = self.objects or ObjectScore()
            self.objects.add(other.objects)
        if other.detector is not None:
            self.detector = self.detector or ObjectScore()
            self.detector.add(other.detector)
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


def score_objects(perception: Perception, labels: Sequence[Label], *, actors: dict[int, str],
                  chip_values: dict[int, int], chips: bool = True) -> ObjectScore:
    """The hands and chip tops of one analysed frame against its labels (``actors``: arm object id → actor,
    ``chip_values``: chip object id → value; ``chips``: score the chips too). A label's place is its box
    centre through the calibration: where the camera shows it, as perception sees it."""
    assert perception.analysed is not None and perception.look is not None
    seen = [(arm.palm_mm, arm.actor) for arm in perception.analysed[2]]
    return _score(perception, labels, seen, perception.chip_value_at if chips else None, actors=actors,
                  chip_values=chip_values)


def score_detector(perception: Perception, detector: TableObjectDetector, labels: Sequence[Label], *,
                   actors: dict[int, str], chip_values: dict[int, int], chips: bool = True) -> ObjectScore:
    """The same for the table-objects detector on the same analysed plane: its hands (no owner: the
    detector sees a hand, not whose it is) and the denomination of the chip top it finds at each label."""
    assert perception.analysed is not None and perception.plane is not None
    objects = detector.detect(perception.analysed[1], perception.plane.to_mm)
    seen = [(o.centre_mm, None) for o in objects if o.kind == "hand"]
    tops = [o for o in objects if o.kind == "chip"]

    def read(at: tuple[float, float]) -> int | None:
        near = min(tops, key=lambda o: math.dist(o.centre_mm, at), default=None)
        return near.value if near is not None and math.dist(near.centre_mm, at) <= CHIP_MATCH_MM else None

    return _score(perception, labels, seen, read if chips else None, actors=actors, chip_values=chip_values)


def _score(perception: Perception, labels: Sequence[Label], seen: Sequence[tuple[tuple[float, float], str | None]],
           read_chip: Callable[[tuple[float, float]], int | None] | None, *, actors: dict[int, str],
           chip_values: dict[int, int]) -> ObjectScore:
    """Hands seen (palm, owner) matched one to one with the true hands over the felt; chips read by ``read_chip``."""
    assert perception.plane is not None
    plane, score = perception.plane, ObjectScore()
    hands = [(actors[lb.oid], _centre_mm(perception, lb)) for lb in labels if lb.oid in actors]
    pairs = sorted((math.dist(palm, at), i, j) for i, (_, at) in enumerate(hands) for j, (palm, _) in enumerate(seen))
    found: dict[int, int] = {}
    for d, i, j in pairs:
        if d <= HAND_MATCH_MM and i not in found and j not in found.values():
            found[i] = j
    for i, (actor, at) in enumerate(hands):
        if plane.on_felt(at):
            score.hands_true += 1
            score.hands_found += i in found
            score.hands_owner += i in found and seen[found[i]][1] == actor
    score.hands_seen, score.hands_false = len(seen), len(seen) - len(found)
    if read_chip is not None:
        for lb in labels:
            if lb.oid in chip_values and lb.visible >= CHIP_IN_VIEW:
                score.chips[(chip_values[lb.oid], read_chip(_centre_mm(perception, lb)))] += 1
    return score


def _centre_mm(perception: Perception, label: Label) -> tuple[float, float]:
    x0, y0, x1, y1 = label.box
    assert perception.plane is not None
    x, y = perception.plane.calibration.px_to_mm([((x0 + x1 - 1) / 2, (y0 + y1 - 1) / 2)])[0]
    return float(x), float(y)


def evaluate_simulation(sim: Simulation, *, fps: float = 10.0, resolution: str = "720p", hires: str | None = None,
                        seconds: float | None = None, tolerance: float = 0.5, objects: bool = False,
                        jpeg: bool = False, detector: TableObjectDetector | None = None,
                        hand_finder: bool = True, frames: Iterable[Frame] | None = None,
                        chips: ChipColours | None = None) -> tuple[Score, list[Event]]:
    """Render ``sim`` (a ``tablewatch.sim.session.Simulation``), run perception, score it.

    ``hires``: a higher resolution of the same camera (``2160p``) rendered only when a card's identity is
    read (as a 4K camera's full frame would be cropped), motion staying on ``resolution``.
    ``objects``: also score every analysed frame's hands and chip tops against the labels (slower).
    ``jpeg``: hand perception each frame JPEG-compressed (encoding not timed), as a Motion-JPEG camera sends it.
    ``detector``: with ``objects``, score the table-objects detector on the same analysed planes too.
    ``hand_finder``: perception's hand finder (``HandFinder``) is on, as by default.
    ``frames``: these frames (at ``fps``, from the start, with labels when ``objects``) instead of the 2D renderer's,
    e.g. ``tablewatch.sim.pbr``'s; ``chips``: the chip colours perception knows (default: the scenario's paints).
    """
    from tablewatch.calibration.layout import load_layout

    scenario = sim.scenario
    perception = Perception(layout=load_layout(scenario.layout_name), table=scenario.table,
                            chips=chips or painted_chip_colours(scenario.chips), deck=scenario.deck,
                            seats=occupied_seats(sim) or None, hand_finder=hand_finder)
    stop = int(seconds * fps) if seconds else None
    if frames is None:
        frames = sim.frames(resolution=resolution, fps=fps, stop=stop, labels=objects)
    spent, count, seen = 0.0, 0, []
    last = 0.0
    big = sim.renderer(resolution=hires) if hires else None
    world = sim.run.world
    actors = {arm.oid: actor for actor, arm in world.arms.items()}
    chip_values = {chip.oid: chip.value for chip in world.chips}
    object_score, analysed = (ObjectScore() if objects else None), 0
    detector_score = ObjectScore() if objects and detector is not None else None
    for frame in frames:
        picture = jpeg_frame(frame.image, index=count, ts=frame.t) if jpeg else frame.image
        t0 = time.perf_counter()
        later = (lambda t=frame.t: big.render(t, labels=False).image) if big is not None else None
        seen += perception.process(picture, frame.t, hires=later)
        spent += time.perf_counter() - t0
        count, last = count + 1, frame.t
        if object_score is not None and perception.look is not None and perception.analysed is not None \
                and perception.analysed[0] == frame.t:
            analysed += 1
            object_score.add(score_objects(perception, frame.labels, actors=actors, chip_values=chip_values,
                                           chips=analysed % CHIPS_EVERY == 0))
            if detector is not None and detector_score is not None:
                detector_score.add(score_detector(perception, detector, frame.labels, actors=actors,
                                                  chip_values=chip_values, chips=analysed % CHIPS_EVERY == 0))
    seen += perception.flush(last + 5.0)
    end = last + 0.01
    truth = [e for e in sim.events if e.ts <= end - 0.6 or seconds is None]
    score = match(truth, seen, tolerance=tolerance)
    score.frames, score.seconds, score.objects, score.detector = count, spent, object_score, detector_score
    return score, seen


def occupied_seats(sim: Simulation) -> list[int]:
    """The seats with a player in any hand of the run (the table knows who sits down)."""
    seats: set[int] = set()
    for event in sim.events:
        if isinstance(event, HandStarted):
            seats.update(event.seats)
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
    if score.objects is not None:
        lines += format_objects(score.objects)
    if score.detector is not None:
        lines.append("table-objects detector on the same planes (hands have no owner from it):")
        lines += ["  " + line for line in format_objects(score.detector)]
    fps = score.frames / score.seconds if score.seconds else 0.0
    lines.append(f"perception speed:           {fps:.1f} frames/s ({score.frames} frames, rendering excluded)")
    return "\n".join(lines)


def format_objects(o: ObjectScore) -> list[str]:
    def pct(n: int, d: int) -> str:
        return f"{n}/{d} = {100 * n / d:.1f} %" if d else "n/a"

    right = sum(n for (true, read), n in o.chips.items() if true == read)
    unread = sum(n for (_, read), n in o.chips.items() if read is None)
    lines = [f"hands over the felt found:  {pct(o.hands_found, o.hands_true)} of frame-hands "
             f"(right owner {pct(o.hands_owner, o.hands_true)}); {o.hands_false} of {o.hands_seen} seen near none",
             f"chip tops by denomination:  {pct(right, o.chips.total())} of chip tops in full view, every "
             f"{CHIPS_EVERY}th frame "
             f"({unread} read as no chip)"]
    wrong = Counter({k: n for k, n in o.chips.items() if k[0] != k[1]})
    if wrong:
        misread = ", ".join(f"{t} → {r}: {n}" for (t, r), n in wrong.most_common(8))
        lines.append(f"  misread (true → read: count): {misread}")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tablewatch.bench.perception_evaluate",
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
    parser.add_argument("--objects", action="store_true", help="also score hands and chip denominations in every "
                        "analysed frame against the simulator's labels")
    parser.add_argument("--jpeg", action="store_true", help="hand perception JPEG-compressed frames, decoded only "
                        "when analysed and reduced as far as the plane allows (as from a Motion-JPEG camera)")
    parser.add_argument("--felt", choices=sorted(FELTS), help="this felt instead of the scenarios' (held out: grey)")
    parser.add_argument("--detector", action="store_true", help="with --objects, also score the table-objects "
                        "detector (tablewatch/vision/weights/table-objects-*.onnx) on the same analysed planes")
    parser.add_argument("--without-hand-finder", action="store_true", help="perception without its hand finder "
                        "(the table-objects detector finding hands the motion path misses), to compare")
    args = parser.parse_args(argv)

    if not args.scenarios and not args.phh:
        parser.error("give a scenario file or --phh FILE --hand N")
    total = Score()
    try:
        scenarios = [(str(p), load_scenario(p)) for p in args.scenarios]
        if args.phh:
            scenarios += [(f"{args.phh} hand {h}", phh_scenario(args.phh, h)) for h in (args.hand or [1])]
        detector = TableObjectDetector() if args.detector else None
        changes = {key: value for key, value in (("deck", args.deck), ("felt", args.felt)) if value}
        sims = [(name, Simulation(scenario.model_copy(update=changes))) for name, scenario in scenarios]
        for name, sim in sims:
            score, _ = evaluate_simulation(sim, fps=args.fps, resolution=args.resolution, hires=args.hires,
                                           seconds=args.seconds, tolerance=args.tolerance, objects=args.objects,
                                           jpeg=args.jpeg, detector=detector, hand_finder=not args.without_hand_finder)
            print(f"== {name}  ({sim.duration:.1f} s at {args.fps:g} fps, {args.resolution}"
                  f"{', JPEG' if args.jpeg else ''})")
            print(format_score(score))
            total.add(score)
    except (ScenarioError, PerceptionError, DetectorError, FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if len(sims) > 1:
        print("== all")
        print(format_score(total))
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["KINDS", "Score", "evaluate_simulation", "format_score", "main", "match"]
