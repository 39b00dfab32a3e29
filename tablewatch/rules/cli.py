"""``tablewatch replay`` and ``tablewatch bench-rules``: real hand histories through the rules layer."""

from __future__ import annotations

import gc
import json
import sys
import time
from dataclasses import dataclass, replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import click
from tqdm import tqdm

from tablewatch.events import Event
from tablewatch.phhfile import PhhError, hand_name, parse_section, phh_files, read_text, split_sections
from tablewatch.rules.profiles import PRESETS, RuleProfile, preset
from tablewatch.rules.replay import (
    NormalHand,
    ReplayResult,
    act_out,
    feed_seconds,
    normalize,
    oracle,
    replay_hand,
)


@dataclass(frozen=True, kw_only=True)
class _Loaded:
    name: str
    hand: NormalHand | None
    error: str | None


def load_file(path: Path) -> list[_Loaded]:
    """Every hand of a PHH file, normalised, named by the file's own hand numbers; a hand that cannot be read
    carries its error instead."""
    try:
        text = read_text(path)
    except PhhError as exc:
        raise click.ClickException(str(exc)) from exc
    out = []
    for section in split_sections(text):
        try:
            hh = parse_section(section, str(path))
            hand = normalize(hh, hand_name(hh, section))
            offset = next((i for i, line in enumerate(section.text.splitlines()) if line.startswith("actions")), 0)
            out.append(_Loaded(name=hand.name, hand=replace(hand, actions_line=section.line + offset), error=None))
        except Exception as exc:  # any defect of one hand is reported with it; the others still replay
            text_ = str(exc) if isinstance(exc, PhhError) else f"{type(exc).__name__}: {exc}"
            message = text_ if str(path) in text_ else f"{path}: {text_} (hand at line {section.line})"
            out.append(_Loaded(name=section.name, hand=None, error=message))
    return out


def _money(hand: NormalHand, units: int) -> str:
    value = Decimal(units) * hand.config.currency_unit
    return f"{hand.config.currency_symbol}{value}"


def _summary(result: ReplayResult) -> dict[str, Any]:
    hand, done = result.hand, result.finished
    out: dict[str, Any] = {"hand": result.name, "ok": result.ok}
    if result.error:
        out["error"] = result.error
    if hand is None or done is None:
        return out
    unit = hand.config.currency_unit
    unknown = {hand.seats[i] for i, u in enumerate(hand.unknown_stacks) if u}

    def money(units: int) -> str:
        return str(Decimal(units) * unit)

    if any(hand.players):
        out["players"] = {str(s): name for s, name in zip(hand.seats, hand.players, strict=True) if name}
    out["final_stacks"] = {str(s): (None if s in unknown else money(v)) for s, v in done.final_stacks.items()}
    out["winnings"] = {str(s): money(v) for s, v in done.winnings.items()}
    out["pots"] = [{"pot": p.pot_index, "amount": money(p.amount), "winners": list(p.winners)} for p in done.pushes]
    out["violations"] = [{"rule_id": v.rule_id, "seat": v.seat, "observed": v.observed, "ruling": v.ruling}
                         for v in done.violations]
    if result.mismatches:
        out["mismatches"] = result.mismatches
    return out


def _print_text(result: ReplayResult) -> None:
    info = _summary(result)
    if "error" in info:
        click.echo(f"hand [{result.name}]: ERROR {info['error']}")
        return
    assert result.hand is not None
    names = info.get("players", {})
    stacks = " ".join(f"s{s}{f' ({names[s]})' if s in names else ''}={v if v is not None else '?'}"
                      for s, v in info["final_stacks"].items())
    pots = "; ".join(f"pot {p['pot']} {p['amount']} -> seat {','.join(map(str, p['winners']))}" for p in info["pots"])
    status = "ok" if result.ok else "MISMATCH"
    click.echo(f"hand [{result.name}]: {status}; stacks {stacks}; {pots or 'no pot pushed (hand cut short)'}")
    for v in info["violations"]:
        who = f" ({names[str(v['seat'])]})" if str(v["seat"]) in names else ""
        click.echo(f"    {v['rule_id']} seat {v['seat']}{who}: {v['observed']} -> {v['ruling']}")
    for m in result.mismatches:
        click.echo(f"    mismatch: {m}")


@click.command(name="replay")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="One JSON document with every hand.")
@click.option("--profile", type=click.Choice(sorted(PRESETS)), default="tda", show_default=True,
              help="Rule profile (where the seeds disagree).")
@click.option("--summary", is_flag=True, help="Print only hands with problems, and the totals.")
@click.option("--no-roundtrip", is_flag=True, help="Skip writing each hand as PHH and replaying it in pokerkit.")
def replay(files: tuple[Path, ...], as_json: bool, profile: str, summary: bool, no_roundtrip: bool) -> None:
    """Replay every hand of the PHH FILES (files, folders of them, or patterns such as 'hands/*.phh') through
    tablewatch's rules layer, acted out as physical events.

    Per hand: final stacks (with the players' names where the file has them), pots and winners, rule findings,
    and any difference from pokerkit's replay. Per file and in all: hands reconstructed, mismatched, unreadable.
    """
    paths = phh_files(list(files))
    missing = [str(p) for p in paths if not p.is_file()]
    if missing or not paths:
        raise click.ClickException(f"{', '.join(missing) or ' '.join(map(str, files))}: no such file.")
    rules_profile = preset(profile)
    replayed = [_replay_file(path, rules_profile, as_json=as_json, summary=summary, roundtrip=not no_roundtrip)
                for path in paths]
    totals = [file_totals for file_totals, _ in replayed]
    every = {"files": len(totals), **{key: sum(t[key] for t in totals)
                                      for key in ("hands", "reconstructed", "mismatched", "errors", "seconds")}}
    if as_json:
        hands = [{"file": t["file"], **_summary(r)} for t, results in replayed for r in results]
        click.echo(json.dumps({"summary": every, "files": totals, "hands": hands}, indent=1))
    elif len(totals) > 1:
        click.echo(f"{every['files']} files: {every['hands']} hands, {every['reconstructed']} reconstructed exactly, "
                   f"{every['mismatched']} mismatched, {every['errors']} errors, {every['seconds']:.1f} s")
    if every["reconstructed"] != every["hands"]:
        sys.exit(1)


def _replay_file(file: Path, rules_profile: RuleProfile, *, as_json: bool, summary: bool,
                 roundtrip: bool) -> tuple[dict[str, Any], list[ReplayResult]]:
    """The file's hands replayed (each printed unless ``as_json``; with ``summary`` only those with problems)."""
    hands = load_file(file)
    results: list[ReplayResult] = []
    started = time.perf_counter()
    bar = tqdm(hands, unit="hand", disable=as_json or not sys.stderr.isatty(), file=sys.stderr)
    for k, loaded in enumerate(bar):
        if loaded.hand is None:
            result = ReplayResult(name=loaded.name, error=loaded.error)
        else:
            result = replay_hand(loaded.hand, hand_no=k + 1, profile=rules_profile, roundtrip=roundtrip)
            if result.error and str(file) not in result.error:
                result.error = f"{file}: {result.error}"
        results.append(result)
        if not as_json and (not summary or not result.ok):
            _print_text(result)
    elapsed = time.perf_counter() - started
    ok = sum(r.ok for r in results)
    errors = sum(r.error is not None for r in results)
    totals = {"file": str(file), "hands": len(results), "reconstructed": ok, "mismatched": len(results) - ok - errors,
              "errors": errors, "seconds": round(elapsed, 3)}
    if not as_json:
        click.echo(f"{file}: {len(results)} hands, {ok} reconstructed exactly, {totals['mismatched']} mismatched, "
                   f"{errors} errors, {elapsed:.1f} s")
    return totals, results


@click.command(name="bench-rules")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path, dir_okay=False, exists=True))
@click.option("--limit", type=int, default=None, help="Replay at most this many hands.")
@click.option("--rounds", default=1, show_default=True, type=click.IntRange(1, 50),
              help="Time the three this many times, one after another, and keep each one's best: on a busy machine "
              "the others' load falls on all three alike.")
def bench_rules(files: tuple[Path, ...], limit: int | None, rounds: int) -> None:
    """Hands per second, the same hands: pokerkit replaying the files alone, and tablewatch's rules layer fed each
    hand as the table's events (acted out first, untimed), with every procedure check and with the engine alone;
    what the checks cost per event."""
    loaded = [h for path in files for h in load_file(path)]
    hands = [h.hand for h in loaded if h.hand is not None][:limit]
    if not hands:
        first = next((f" ({h.error})" for h in loaded if h.error), "")
        raise click.ClickException(f"No readable hands in {', '.join(map(str, files))}{first}.")
    hands, refused = _replayable(hands)
    if not hands:
        raise click.ClickException(f"No hand of {', '.join(map(str, files))} replays in pokerkit ({refused[0]}).")
    acted = act_out(hands, [oracle(hand) for hand in hands])
    events = sum(map(len, acted))
    # The bench's own data (the hands, pokerkit's replays of them, their events: half a million objects) is no
    # garbage: set aside from the collector, its passes over it are charged to neither side's time.
    gc.collect()
    gc.freeze()
    try:
        pokerkit_s, checked_s, engine_s, checks = _best_times(hands, acted, rounds)
    finally:
        gc.unfreeze()
    n = len(hands)
    best = f", the best of {rounds} rounds" if rounds > 1 else ""
    click.echo(f"{n} hands from {len(files)} file(s), acted out as {events} table events{best}")
    click.echo(f"{'':26}{'seconds':>10}{'hands/s':>12}")
    for name, seconds in (("pokerkit", pokerkit_s), ("tablewatch", checked_s), ("tablewatch, engine alone", engine_s)):
        click.echo(f"{name:26}{seconds:>10.2f}{n / seconds:>12.0f}")
    click.echo(f"{events / checked_s:.0f} events/s with the checks; the {checks} checks cost "
               f"{(checked_s - engine_s) / events * 1e6:.0f} us per event")
    if refused:
        click.echo(f"{len(refused)} hand(s) left out: pokerkit cannot replay them (first: {refused[0]})")


def _best_times(hands: list[NormalHand], acted: list[list[Event]], rounds: int) -> tuple[float, float, float, int]:
    """Seconds for pokerkit to replay ``hands``, for the rules layer to be fed their events with every check and with
    the engine alone: each one's best of ``rounds``, timed in turn; and how many checks ran."""
    pokerkit_s = checked_s = engine_s = float("inf")
    checks = 0
    for _ in range(rounds):
        started = time.perf_counter()
        for hand in hands:
            oracle(hand)
        pokerkit_s = min(pokerkit_s, time.perf_counter() - started)
        seconds, checks = feed_seconds(hands, acted, checks=True)
        checked_s = min(checked_s, seconds)
        engine_s = min(engine_s, feed_seconds(hands, acted, checks=False)[0])
    return pokerkit_s, checked_s, engine_s, checks


def _replayable(hands: list[NormalHand]) -> tuple[list[NormalHand], list[str]]:
    """The hands pokerkit replays, and why each other one is left out (timed runs take only whole hands)."""
    good, refused = [], []
    for hand in hands:
        try:
            oracle(hand)
            good.append(hand)
        except PhhError as exc:
            refused.append(str(exc))
    return good, refused
