"""What a run prints and writes at the end: the score table (terminal and JSON) and a short HTML report."""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from tablewatch.bench.score import SessionScore
from tablewatch.bench.through_run import START_TOLERANCE_S, FrameScore
from tablewatch.events import Violation

# What `bench --camera truth` measures: a diagnostic of the rules and devices, not of what runs at a table.
TRUTH_NOTE = ("DIAGNOSTIC, not a table's figure: the simulator's ground truth stands in for the camera and tells the "
              "pipeline each hand's start, button, seats and stacks; RFID through the real driver")

TABLE_DEVICES = {
    ("camera", "console", "rfid"): "camera + RFID + console",
    ("console", "rfid"): "RFID + console, no camera (the dealer keys each hand's start, button, seats and actions)",
    ("camera", "console"): "camera + console, no RFID (stacks unknown)",
}
THROUGH_RUN_NOTE = ("hands found by the run; latency on the sensors' clock (the monitor's own lag not included)")


def through_run_note(devices: Sequence[str]) -> str:
    """What the recorded table had, as the report says it."""
    return f"through `tablewatch run`: {TABLE_DEVICES.get(tuple(sorted(devices)), ' + '.join(devices))}"


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f} %"


def _ms(value: float | None) -> str:
    return "—" if value is None else f"{value:.0f} ms"


def score_table(score: SessionScore) -> Table:
    table = Table(title="Violations: injected vs alerted", title_justify="left")
    for name in ("violation", "injected", "found", "false alerts", "recall", "precision", "slowest alert"):
        table.add_column(name, justify="left" if name == "violation" else "right")
    for kind, rule in sorted(score.per_type.items()):
        table.add_row(kind, str(rule.injected), str(rule.found), str(rule.false_alerts), _pct(rule.recall),
                      _pct(rule.precision), _ms(max(rule.latencies_ms, default=None)))
    return table


def print_score(score: SessionScore, console: Console, *, through_run: Sequence[str] | None = None,
                fast: bool = False) -> None:
    """The score table and its lines; ``through_run``: the devices of the table `tablewatch run` played (``fast``:
    with ``--fast``)."""
    console.print(score_table(score))
    console.print(f"false VIOLATION alerts by rule: {score.false_by_rule or 'none'}; "
                  f"further alerts on injected incidents: {score.corroborating}; advisories: {score.advisories}")
    routine = sum(score.routine_by_rule.values())
    console.print(f"SYSTEM and ADVISORY alerts on no injected incident: {routine} in {score.hands} hands "
                  f"({routine / score.hands if score.hands else 0:.2f} a hand)"
                  + (f": {score.routine_by_rule}" if routine else ""))
    console.print(f"console notifications (one per incident, again on an escalation): {score.rings}, "
                  f"{score.routine_rings} of them on no injected incident "
                  f"({score.routine_rings / score.hands if score.hands else 0:.2f} a hand)")
    console.print(f"hands captured exactly: {score.hands_exact}/{score.hands} "
                  f"({_pct(score.hands_exact / score.hands if score.hands else None)}); "
                  f"actions right: {score.actions_right}/{score.actions} "
                  f"({_pct(score.actions_right / score.actions if score.actions else None)})")
    console.print(f"alert latency from the end of the violating motion: median {_ms(score.latency(0.5))}, "
                  f"p95 {_ms(score.latency(0.95))} ({len(score.latencies_ms)} alerts)")
    if through_run is not None and fast:
        console.print(f"speed: `run --fast` played {score.session_s:.0f} s of recording in {score.wall_s:.0f} s, "
                      f"{score.realtime_factor:.2f}× real time (start and finish of `run` included); frames in the "
                      f"video: {score.frames}")
    elif through_run is not None:
        console.print(f"speed: {score.session_s:.0f} s of recording played at its pace in {score.wall_s:.0f} s "
                      f"(start and finish of `run` included); frames in the video: {score.frames}")
    else:
        console.print(f"speed: {score.session_s:.0f} s of table time in {score.wall_s:.0f} s "
                      f"({score.realtime_factor:.2f}× real time)")
    if through_run is not None:
        console.print(f"{through_run_note(through_run)}\n[dim]{THROUGH_RUN_NOTE}[/]")
    else:
        console.print(f"[bold]{TRUTH_NOTE}[/]")
    for line in score.missed:
        console.print(f"[yellow]missed:[/] {line}")
    for line in score.inexact:
        console.print(f"[yellow]not exact:[/] {line}")
    for line in score.skipped_hands:
        console.print(f"[yellow]not simulated:[/] {line}")


def print_frame_score(frame: FrameScore, hands: int, console: Console) -> None:
    """The hands' set-up as ``tablewatch run`` found it, against the truth's."""
    def share(count: int) -> str:
        return f"{count}/{hands} ({_pct(count / hands if hands else None)})"

    console.print(f"hands found: {share(frame.hands_found)}; starts within {START_TOLERANCE_S:.0f} s: "
                  f"{share(frame.starts_right)}; buttons: {share(frame.buttons_right)}; seats: "
                  f"{share(frame.seats_right)}; seats and starting stacks: {share(frame.stacks_right)}; hands found "
                  f"that the truth hasn't: {frame.extra_hands}")
    console.print(f"start offsets (s): {frame.start_offsets_s}")
    for line in frame.wrong:
        console.print(f"[yellow]set-up:[/] {line}")


def write_score_json(score: SessionScore, path: Path) -> None:
    path.write_text(json.dumps(score.as_dict(), indent=2, sort_keys=True) + "\n", encoding="utf-8")


def write_html_report(alerts: list[Violation], hand_paths: list[Path], score: SessionScore, path: Path, *,
                      stills: dict[Any, str] | None = None) -> Path:
    """A one-page report: the score, every alert (with its still frame when there is one), the hands."""
    stills = stills or {}
    rows = []
    for v in alerts:
        still = stills.get(v)
        picture = f'<img src="{html.escape(still)}" width="320">' if still else ""
        rows.append(
            f"<tr><td>{v.ts:.1f}</td><td>{v.hand_no or '-'}</td><td>{html.escape(v.severity.value)}</td>"
            f"<td><b>{html.escape(v.rule_id)}</b> {html.escape(v.title)}</td><td>{html.escape(v.observed)}</td>"
            f"<td>{html.escape(v.ruling)}</td><td>{picture}</td></tr>"
        )
    hands = "".join(f'<li><a href="{html.escape(str(p.relative_to(path.parent)))}">{html.escape(p.name)}</a></li>'
                    for p in hand_paths)
    per_type = "".join(
        f"<tr><td>{html.escape(k)}</td><td>{r.injected}</td><td>{r.found}</td><td>{r.false_alerts}</td></tr>"
        for k, r in sorted(score.per_type.items()))
    page = f"""<!doctype html><meta charset="utf-8"><title>tablewatch report</title>
<style>body{{font-family:sans-serif;margin:2em}}td,th{{border-bottom:1px solid #ddd;padding:4px;vertical-align:top}}
table{{border-collapse:collapse}}</style>
<h1>tablewatch — simulated session</h1>
<p>{html.escape(THROUGH_RUN_NOTE)}.</p>
<p>{score.hands} hands, {score.hands_exact} captured exactly; {len(alerts)} alerts;
latency median {_ms(score.latency(0.5))}, p95 {_ms(score.latency(0.95))}.</p>
<h2>Injected violations</h2><table><tr><th>type</th><th>injected</th><th>found</th><th>false alerts</th></tr>
{per_type}</table>
<h2>Alerts</h2><table><tr><th>t (s)</th><th>hand</th><th>severity</th><th>rule</th><th>seen</th><th>ruling</th>
<th>evidence</th></tr>{''.join(rows)}</table>
<h2>Hand histories (PHH)</h2><ul>{hands}</ul>
"""
    path.write_text(page, encoding="utf-8")
    return path
