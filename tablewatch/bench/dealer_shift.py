"""A shift of several dealers, each making the dealer's procedure errors at a rate of their own: do the per-dealer
error rates ``tablewatch stats --by dealer`` reports from what ``tablewatch run`` captured come out within
sampling error of the rates injected?

    python -m tablewatch.bench.dealer_shift --phh PHH/high_stakes/ps_1000nl_.phh --hands 45 \\
        --dealers "Ann:0.1,Bo:0.3,Cy:0.6" --down 5

The dealers take turns at the table, ``--down`` hands each; the console names each one as they sit down
(``dealer NAME``), as a real dealer push does. Each hand gets one dealer's error (a missing or double burn, a
four-card flop, a card exposed in the deal, a pot pushed to the wrong seat) with the dealer's chance, drawn
from a seeded generator, where the simulator can stage one in it. The run reads the recording's video, RFID
reads and console entries only; the injections are the score's truth.
"""

from __future__ import annotations

import json
import math
import random
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import click
from pydantic import ValidationError
from rich.console import Console
from rich.table import Table

from tablewatch.bench.scenarios import DEALER_ERRORS, hand_shape
from tablewatch.bench.through_run import play
from tablewatch.events import HandStarted
from tablewatch.history.stats import PaceStats
from tablewatch.history.store import open_store
from tablewatch.phhfile import read_hands
from tablewatch.sim.record import record
from tablewatch.sim.scenario import Scenario, ScenarioError
from tablewatch.sim.session import Simulation, phh_scenario


def shift_session(hands_file: Path, *, rates: dict[str, float], hands: int, first: int, down: int,
                  seed: int) -> tuple[Simulation, list[str], Counter[str]]:
    """The session, the dealer of each hand, and the errors injected per dealer."""
    data = phh_scenario(hands_file, first, seed=seed, count=hands).model_dump(mode="json")
    histories = read_hands(hands_file)
    rng = random.Random(seed)
    names = list(rates)
    dealers = [names[(i // down) % len(names)] for i in range(hands)]
    sim = Simulation(Scenario.model_validate(data))
    for i, hand in enumerate(data["hands"]):
        if rng.random() >= rates[dealers[i]]:
            continue
        options = [v for v in (inject(hand_shape(histories[first - 1 + i])) for inject in DEALER_ERRORS) if v]
        rng.shuffle(options)
        for violation in options:
            hand["violations"] = [violation]
            try:
                sim = Simulation(Scenario.model_validate(data))
                break
            except (ScenarioError, ValidationError, ValueError):
                hand["violations"] = []
    numbers = sorted({e.hand_no for e in sim.events if isinstance(e, HandStarted)})
    injected = Counter(dealers[numbers.index(v.hand_no)] for v in sim.violations)
    return sim, dealers, injected


def sampling_error(rate: float, hands: int) -> float:
    """One standard error of a rate estimated from ``hands`` hands (binomial)."""
    return math.sqrt(rate * (1 - rate) / hands) if hands else math.inf


@click.command()
@click.option("--phh", "hands_file", type=click.Path(exists=True, dir_okay=False, path_type=Path), required=True)
@click.option("--hands", default=45, show_default=True, type=click.IntRange(1, 500))
@click.option("--first", default=1, show_default=True, type=click.IntRange(1))
@click.option("--dealers", default="Ann:0.1,Bo:0.3,Cy:0.6", show_default=True,
              help="NAME:RATE,…: each dealer's chance of a procedure error in a hand.")
@click.option("--down", default=5, show_default=True, type=click.IntRange(1), help="Hands a dealer deals in turn.")
@click.option("--seed", default=7, show_default=True)
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("out/dealer-shift"),
              show_default=True)
def main(hands_file: Path, hands: int, first: int, dealers: str, down: int, seed: int, out: Path) -> None:
    """Record a shift of several dealers, run the table on it, and compare each dealer's error rate."""
    rates = _rates(dealers)
    sim, dealt_by, injected = shift_session(hands_file, rates=rates, hands=hands, first=first, down=down, seed=seed)
    for folder in (out / "recording", out / "run"):
        shutil.rmtree(folder, ignore_errors=True)
    summary = record(sim, out / "recording", progress=False, dealers=dealt_by)
    wall_s = play(out / "recording", out / "run", length_s=summary["length_s"])
    store = open_store(out / "run" / "hands" / "hands.sqlite")
    try:
        found = {pace.name: pace for pace in store.rollup.paces("dealer")}  # what `tablewatch stats --by dealer` says
    finally:
        store.close()
    dealt = Counter(dealt_by)
    rows = [_row(name, rate, dealt[name], injected[name], found.get(name)) for name, rate in rates.items()]
    _print(rows, f"{hands} hands, {len(rates)} dealers, {down} hands a down; run {wall_s:.0f} s for "
                 f"{summary['length_s']:.0f} s of table")
    (out / "dealer-shift.json").write_text(json.dumps(rows, indent=1), encoding="utf-8")


def _rates(text: str) -> dict[str, float]:
    try:
        pairs = [part.rsplit(":", 1) for part in text.split(",")]
        rates = {name.strip(): float(rate) for name, rate in pairs}
    except ValueError as exc:
        raise click.BadParameter(f"{text!r}: expected NAME:RATE,…") from exc
    if not rates or any(not 0 <= r <= 1 for r in rates.values()):
        raise click.BadParameter(f"{text!r}: each rate between 0 and 1")
    return rates


def _row(name: str, rate: float, hands: int, injected: int, found: PaceStats | None) -> dict[str, Any]:
    """One dealer: the rate set, the rate injected, and the statistics' hands with a dealer's error (one mistake
    may break several rules: a wrong push is a misaward and a pot pushed to a hand not tabled)."""
    captured = found.hands if found is not None else 0
    with_errors = found.error_hands if found is not None else 0
    reported = with_errors / captured if captured else None
    margin = 2 * sampling_error(rate, hands)
    return {"dealer": name, "rate_set": rate, "hands_dealt": hands, "hands_captured": captured,
            "injected": injected, "rate_injected": round(injected / hands, 3) if hands else None,
            "hands_with_errors": with_errors, "rate_reported": None if reported is None else round(reported, 3),
            "two_standard_errors": round(margin, 3),
            "within": reported is not None and abs(reported - rate) <= margin,
            "errors_by_rule": dict(found.errors) if found is not None else {}}


def _print(rows: list[dict[str, Any]], title: str) -> None:
    table = Table(title=title)
    for column in ("dealer", "rate set", "hands", "injected", "rate injected", "hands with errors", "rate reported",
                   "±2 SE", "within", "hands by rule"):
        table.add_column(column)
    for r in rows:
        table.add_row(r["dealer"], f"{r['rate_set']:.2f}", f"{r['hands_captured']}/{r['hands_dealt']}",
                      str(r["injected"]), str(r["rate_injected"]), str(r["hands_with_errors"]),
                      str(r["rate_reported"]), f"{r['two_standard_errors']:.2f}", "yes" if r["within"] else "NO",
                      " ".join(f"{k}:{v}" for k, v in sorted(r["errors_by_rule"].items())))
    Console(width=160).print(table)


if __name__ == "__main__":
    main()
