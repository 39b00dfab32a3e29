"""How many real hands the simulator plays: every hand of PHH files, plain and with each violation it allows.

    python -m tablewatch.sim.coverage shared/data/hands/high_stakes/*.phh --violations --sample 200
    tablewatch sim coverage FILES... [--violations] [--sample N]

Each hand is simulated (the timeline only, no rendering) at the benchmark's stakes: amounts in cents,
chips of 1, 5, 25, 100, 500, 2500 and 10000 cents. With ``--violations`` each hand is simulated again
once per violation it can carry (a missing flop burn needs a flop, an undercall a call facing a bet).
Failures are counted by their message with the numbers taken out, with a few hands to look at.
"""

from __future__ import annotations

import re
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from tablewatch.sim.plan import HandPlan, phh_hand_count, plan_phh
from tablewatch.sim.replay import Replay, replay
from tablewatch.sim.scenario import LAYOUT_SEATS, HandSpec, PhhSource, Scenario, ScenarioError
from tablewatch.sim.session import PHH_CHIP_COLOURS, Simulation

CENTS = 100
CHIP_VALUES = (1, 5, 25, 100, 500, 2500, 10000)  # the benchmark's chip set (tablewatch.bench.scenarios)


@dataclass
class Coverage:
    """Counts for one PHH file."""

    file: Path
    hands: int = 0
    plain_failed: int = 0
    injected: Counter[str] = field(default_factory=Counter)  # violation type → simulations tried
    injected_failed: Counter[str] = field(default_factory=Counter)
    failures: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))  # pattern → examples

    def fail(self, pattern: str, example: str) -> None:
        self.failures[pattern].append(example)


def hand_scenario(path: Path, hand: int, *, violations: Iterable[dict[str, Any]] = (), layout: str = "auto",
                  seed: int = 0) -> Scenario:
    """Hand ``hand`` of ``path`` in cents with the benchmark's chips (as ``tablewatch bench`` plays it)."""
    chips = [{"value": v, "colour": c} for v, c in zip(CHIP_VALUES, PHH_CHIP_COLOURS, strict=False)]
    layout = table_layout(path, hand, layout)
    data = {"table": "T01", "layout": layout, "seed": seed, "chips": chips,
            "hands": [{"phh": {"file": str(path), "hand": hand, "unit": CENTS}, "violations": list(violations)}]}
    return Scenario.model_validate(data)


def table_layout(path: Path, hand: int, layout: str = "auto") -> str:
    """``layout``, or for ``auto`` the smallest template with the hand's own seat numbers (as phh_scenario)."""
    if layout != "auto":
        return layout
    top = max(_plan(path, hand, seat_count=10).seats)
    return "oval6" if top <= 6 else "oval9" if top <= 9 else "oval10"


def _plan(path: Path, hand: int, *, seat_count: int) -> HandPlan:
    return plan_phh(HandSpec(phh=PhhSource(file=path, hand=hand, unit=CENTS)), hand_no=1, seat_count=seat_count)


@dataclass(frozen=True)
class Shape:
    """A planned hand and its dry run: what it offers for violations."""

    plan: HandPlan
    run: Replay


def _betting(s: Shape) -> list[int]:
    return [a.index for a in s.plan.acts if a.verb != "sm"]


def _string_raise(s: Shape) -> dict[str, Any] | None:
    raises = [a.index for a in s.plan.acts if a.verb == "cbr"]
    return {"type": "string_raise", "action": raises[-1]} if raises else None


def _undercall(s: Shape) -> dict[str, Any] | None:
    calls = [a.index for a in s.plan.acts if a.verb == "cc" and s.run.to_call[a.index] > 1]
    return {"type": "undercall", "action": calls[0]} if calls else None


def _exposed_early(s: Shape) -> dict[str, Any] | None:
    """The turn card shown early needs a betting action on the flop to show it during."""
    on_flop = [i for i in _betting(s) if s.run.streets[i] == 1]
    return {"type": "board_card_exposed_early", "street": "turn"} if on_flop and s.run.dealt >= 2 else None


def _out_of_turn(s: Shape) -> dict[str, Any] | None:
    """The second player to act announces, before the first acts, what he then does in turn (as the bench does)."""
    acts = _betting(s)
    if len(acts) < 2:
        return None
    first, second = (s.plan.acts[i] for i in acts[:2])
    if first.player == second.player:
        return None
    word = {"f": "fold", "cbr": "raise"}.get(second.verb, "call" if s.run.to_call[second.index] else "check")
    return {"type": "out_of_turn", "action": first.index, "seat": s.plan.seats[second.player], "word": word}


def _wrong_push(s: Shape) -> dict[str, Any] | None:
    folders = [s.plan.seats[a.player] for a in s.plan.acts if a.verb == "f"]
    return {"type": "wrong_pot_push", "to_seat": folders[0]} if folders else None


def _pocketed(s: Shape) -> dict[str, Any] | None:
    """$5 pocketed after the first action by the first seat that never needs it in the hand (not one all in)."""
    for player, seat in enumerate(s.plan.seats):
        if s.run.spare(player, 0) >= 500:
            return {"type": "chips_pocketed", "seat": seat, "chips": {500: 1}, "after_action": 0}
    return None


def _when(kind: str, dealt: int, **params: Any) -> Callable[[Shape], dict[str, Any] | None]:
    return lambda s: {"type": kind, **params} if s.run.dealt >= dealt else None


def _seat_first(kind: str, **params: Any) -> Callable[[Shape], dict[str, Any] | None]:
    return lambda s: {"type": kind, "seat": s.plan.seats[0], **params}


# One of each violation type, with the benchmark's parameters where it injects that type.
INJECTORS: tuple[Callable[[Shape], dict[str, Any] | None], ...] = (
    _string_raise,
    _when("missing_burn", 1, street="flop"),
    _pocketed,
    _undercall,
    _wrong_push,
    _when("four_card_flop", 1),
    lambda s: {"type": "unknown_chip", "seat": s.plan.seats[-1], "denomination": 500},
    _exposed_early,
    _out_of_turn,
    _when("double_burn", 3, street="river"),
    _seat_first("card_exposed_in_deal", card=1),
    _seat_first("chips_hidden", after_action=0),
)


def violation_options(shape: Shape) -> list[dict[str, Any]]:
    """Every violation type the hand can carry, one each."""
    return [v for v in (inject(shape) for inject in INJECTORS) if v is not None]


def pattern(message: str) -> str:
    """A failure message with the hand-specific parts (paths, numbers, cards) taken out, to count alike."""
    text = message.splitlines()[0]
    text = re.sub(r"\S+\.phh", "FILE", text)
    text = re.sub(r"(?<!\w)(?:[2-9TJQKA][cdhs])+(?!\w)", "CARDS", text)
    return re.sub(r"\d+", "N", text)


def check_hand(path: Path, hand: int, cov: Coverage, *, violations: bool, layout: str) -> None:
    cov.hands += 1
    where = f"{path.name}:{hand}"
    try:
        Simulation(hand_scenario(path, hand, layout=layout, seed=hand))
    except Exception as exc:  # every failure is counted; an unexpected type is named
        cov.plain_failed += 1
        cov.fail(pattern(_message(exc)), where)
        return
    if not violations:
        return
    plan = _plan(path, hand, seat_count=LAYOUT_SEATS[table_layout(path, hand, layout)])  # the seats as simulated
    try:
        shape = Shape(plan, replay(plan))
    except Exception as exc:  # pokerkit refuses what the simulator played: a bug in the dry run
        cov.fail(f"[dry run] {pattern(_message(exc))}", where)
        return
    for v in violation_options(shape):
        cov.injected[v["type"]] += 1
        try:
            Simulation(hand_scenario(path, hand, violations=[v], layout=layout, seed=hand))
        except Exception as exc:
            cov.injected_failed[v["type"]] += 1
            cov.fail(f"[{v['type']}] {pattern(_message(exc))}", where)


def _message(exc: Exception) -> str:
    if isinstance(exc, ScenarioError | ValidationError):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


def sample(count: int, size: int | None) -> list[int]:
    """``size`` hand numbers spread evenly over 1..count (all of them when ``size`` is None)."""
    if size is None or size >= count:
        return list(range(1, count + 1))
    return sorted({1 + (i * count) // size for i in range(size)})


def report(results: list[Coverage], *, examples: int = 5) -> str:
    lines = []
    for cov in results:
        tried, failed = sum(cov.injected.values()), sum(cov.injected_failed.values())
        lines.append(f"{cov.file.name}: {cov.hands} hands, {cov.plain_failed} fail plain; "
                     f"{tried} with a violation, {failed} fail")
        for kind in sorted(cov.injected):
            lines.append(f"    {kind:26s} {cov.injected_failed[kind]:5d} failed of {cov.injected[kind]:5d}")
    merged: dict[str, list[str]] = defaultdict(list)
    for cov in results:
        for pat, where in cov.failures.items():
            merged[pat] += where
    lines.append(f"failures by message ({sum(map(len, merged.values()))} in all):")
    for pat, where in sorted(merged.items(), key=lambda kv: -len(kv[1])):
        lines.append(f"  {len(where):5d}  {pat}")
        lines.append(f"         e.g. {', '.join(where[:examples])}")
    return "\n".join(lines)


def run(files: Iterable[Path], *, violations: bool, size: int | None, layout: str, progress: int,
        echo: Callable[[str], Any] = print) -> list[Coverage]:
    """Check every (or ``size`` sampled) hand of each file; ``echo`` gets a progress line every ``progress`` hands."""
    results = []
    start = time.perf_counter()
    for path in files:
        cov = Coverage(file=path)
        for i, hand in enumerate(sample(phh_hand_count(path), size), start=1):
            check_hand(path, hand, cov, violations=violations, layout=layout)
            if progress and i % progress == 0:
                echo(f"  {path.name}: {i} hands, {cov.plain_failed} plain failures, "
                     f"{sum(cov.injected_failed.values())} with violations ({time.perf_counter() - start:.0f} s)")
        results.append(cov)
    return results


if __name__ == "__main__":
    from tablewatch.sim.cli import coverage

    coverage()
