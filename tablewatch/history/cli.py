"""``tablewatch stats``: the poker room's figures from captured hands, in the terminal, as JSON or CSV, and as an
HTML report with charts."""

from __future__ import annotations

import csv
import io
import json
import sys
from dataclasses import dataclass, replace
from datetime import UTC, datetime, time
from pathlib import Path
from typing import Any, TypedDict

import click
from rich.console import Console
from rich.table import Table

from tablewatch.history.report import html_report
from tablewatch.history.rollup import Rollup
from tablewatch.history.sources import histories, is_store, open_source, utc_seconds
from tablewatch.history.stats import (
    HandFacts,
    PaceStats,
    PlayerStats,
    Shifts,
    by_dealer,
    by_player,
    by_shift,
    by_table,
    merge_into_shifts,
    read_facts,
)

WEB_FILE = "stats.json"  # read by the surveillance page (tablewatch/alerts/static/console.js)


@click.command(name="stats")
@click.argument("sources", nargs=-1, required=True, metavar="SOURCE...")
@click.option("--by", "grouping", type=click.Choice(["table", "dealer", "shift", "player"]), default="table",
              show_default=True, help="Figures per table, dealer or shift of the room (pace, time per hand, pots, "
              "errors), or per player (VPIP, PFR…).")
@click.option("--table", "table_id", default=None, help="Only this table's hands.")
@click.option("--dealer", default=None, help="Only the hands this dealer dealt (as named on the console).")
@click.option("--since", type=click.DateTime(), default=None,
              help="Only hands started from this moment on (UTC; e.g. 2026-12-01 or 2026-12-01T18:00:00).")
@click.option("--until", type=click.DateTime(), default=None, help="Only hands started before this moment (UTC).")
@click.option("--shifts", default="06:00,14:00,22:00", show_default=True,
              help="With --by shift: the local times the room's shifts start.")
@click.option("--tz", "zone", default="UTC", show_default=True, help="With --by shift: the room's time zone.")
@click.option("--json", "as_json", is_flag=True, help="One JSON list of rows on stdout.")
@click.option("--csv", "as_csv", is_flag=True, help="CSV rows on stdout.")
@click.option("--html", "html_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write an HTML report with charts to this file.")
@click.option("--web", "web_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Also write stats.json (per table, dealer and shift) to the surveillance page's folder.")
@click.option("--rebuild", is_flag=True, help="First refill a hand store's statistics rollup from its hands.")
def stats(sources: tuple[str, ...], grouping: str, table_id: str | None, dealer: str | None,
          since: datetime | None, until: datetime | None, shifts: str, zone: str, as_json: bool, as_csv: bool,
          html_path: Path | None, web_dir: Path | None, rebuild: bool) -> None:
    """Statistics of the hands in SOURCE: a hand store (a table's hands.sqlite, sqlite:///…, postgresql://…),
    PHH files, or folders of them (a run's hands/).

    Per table, dealer (named on the console: `dealer NAME`) or shift: hands, hands per hour, seconds per hand and
    where they go (the deal, the betting, the showdown and push), breaks, the mean pot, the dealers' procedure
    errors and the players' violations per 100 hands by rule. Per player (by name, else by table, seat and session):
    hands, VPIP, PFR, post-flop aggression, showdowns seen and won, net chips. A hand store answers from its
    rollup (kept as hands are saved) when it covers every hand. --since and --until keep the hands a live table
    stamped with their date (a replay's hands have none). --web writes the figures the surveillance page shows
    (run it from a timer to keep them fresh).
    """
    ask = Question(grouping, table_id, dealer, utc_seconds(since), utc_seconds(until), _shifts(shifts, zone))
    if rebuild:
        _rebuild(sources)
    groups = _from_the_rollup(sources, ask)
    problems: list[str] = []
    if groups is None:
        facts, problems = read_facts(histories(sources, table_id))
        groups = ask.groups([hand for hand in facts if ask.holds(hand)])
    rows = [group.row() for group in groups]
    if as_json:
        click.echo(json.dumps(rows, indent=1))
    elif as_csv:
        click.echo(_csv(rows), nl=False)
    else:
        _print(rows, ask.title(rows))
    if html_path is not None:
        _write(html_path, html_report(rows, ask.title(rows), grouping))
    if web_dir is not None:
        _write(web_dir / WEB_FILE, json.dumps(_for_the_page(sources, ask), indent=1))
    for problem in problems:
        click.echo(f"left out: {problem}", err=True)


@dataclass(frozen=True)
class Question:
    """What ``tablewatch stats`` was asked: the grouping and which hands."""

    grouping: str
    table: str | None
    dealer: str | None
    since: float | None
    until: float | None
    shifts: Shifts

    def holds(self, hand: HandFacts) -> bool:
        if (self.table is not None and hand.table != self.table) or (
                self.dealer is not None and hand.dealer != self.dealer):
            return False
        if self.since is None and self.until is None:
            return True
        ts = hand.started_ts
        return (hand.dated and ts is not None and (self.since is None or ts >= self.since)
                and (self.until is None or ts < self.until))

    def groups(self, facts: list[HandFacts]) -> list[PaceStats] | list[PlayerStats]:
        if self.grouping == "player":
            return by_player(facts)
        if self.grouping == "shift":
            return by_shift(facts, self.shifts)
        return by_dealer(facts) if self.grouping == "dealer" else by_table(facts)

    def ask(self, rollup: Rollup) -> list[PaceStats] | list[PlayerStats]:
        if self.grouping == "player":
            return rollup.players(self.table, dealer=self.dealer, since=self.since, until=self.until)
        paces = rollup.paces("quarter" if self.grouping == "shift" else self.grouping, self.table,
                             dealer=self.dealer, since=self.since, until=self.until)
        return merge_into_shifts(paces, self.shifts) if self.grouping == "shift" else paces

    def title(self, rows: list[dict[str, Any]]) -> str:
        if self.grouping == "player":
            return f"{len(rows)} players"
        return f"{sum(row['hands'] for row in rows)} hands"


def _shifts(text: str, zone: str) -> Shifts:
    try:
        return Shifts(starts=tuple(time.fromisoformat(part.strip()) for part in text.split(",")), zone=zone)
    except ValueError as exc:
        raise click.BadParameter(f"{text!r} / {zone!r}: {exc}", param_hint="--shifts/--tz") from exc


def _rebuild(sources: tuple[str, ...]) -> None:
    for source in sources:
        if not is_store(source):
            raise click.UsageError(f"--rebuild: {source} is not a hand store")
        store = open_source(source)
        try:
            left_out = store.rebuild_rollup()
        finally:
            store.close()
        click.echo(f"{source}: rollup rebuilt ({len(left_out)} hands pokerkit can't replay left out)", err=True)
        for problem in left_out:
            click.echo(f"left out: {problem}", err=True)


def _from_the_rollup(sources: tuple[str, ...], ask: Question) -> list[PaceStats] | list[PlayerStats] | None:
    """The figures of one hand store from its rollup; None for other sources, or a rollup that lacks hands."""
    if len(sources) != 1 or not is_store(sources[0]):
        return None
    store = open_source(sources[0])
    try:
        covered, stored = store.rollup.hands(), store.count()
        if covered != stored:
            click.echo(f"{sources[0]}: the statistics rollup covers {covered} of {stored} hands; reading the hand "
                       "histories (--rebuild refills it)", err=True)
            return None
        return ask.ask(store.rollup)
    finally:
        store.close()


class StatsPage(TypedDict):
    """The surveillance page's statistics file (``tablewatch/stats/1``: ``alerts/schemas/stats-1.json``)."""

    schema: str
    made_at: str
    table: list[dict[str, Any]]
    dealer: list[dict[str, Any]]
    shift: list[dict[str, Any]]


def _for_the_page(sources: tuple[str, ...], ask: Question) -> StatsPage:
    """The same hands per table, dealer and shift, each row's group under ``name``."""
    facts: list[HandFacts] | None = None
    rows: dict[str, list[dict[str, Any]]] = {}
    for grouping in ("table", "dealer", "shift"):
        question = replace(ask, grouping=grouping)
        groups = _from_the_rollup(sources, question) if facts is None else None  # a rollup short of hands: asked once
        if groups is None:
            facts = facts if facts is not None else [h for h in read_facts(histories(sources, ask.table))[0]
                                                     if ask.holds(h)]
            groups = question.groups(facts)
        rows[grouping] = [{"name": row.pop(grouping), **row} for row in (group.row() for group in groups)]
    return StatsPage(schema="tablewatch/stats/1", made_at=datetime.now(UTC).isoformat(), table=rows["table"],
                     dealer=rows["dealer"], shift=rows["shift"])


def _write(path: Path, text: str) -> None:
    """``text`` into ``path`` whole: written beside it, then renamed over it (a page never reads half a file)."""
    part = path.with_name(f".{path.name}.part")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        part.write_text(text, encoding="utf-8")
        part.replace(path)
    except OSError as exc:
        raise click.ClickException(f"{path}: cannot write it ({exc})") from exc
    click.echo(f"written to {path}", err=True)


def _csv(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return ""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]))
    writer.writeheader()
    for row in rows:
        writer.writerow({k: _cell(v) for k, v in row.items()})
    return out.getvalue()


def _cell(value: Any) -> Any:
    if isinstance(value, dict):
        return " ".join(f"{k}:{v}" for k, v in value.items())
    return "" if value is None else value


def _print(rows: list[dict[str, Any]], title: str) -> None:
    console = Console(width=None if sys.stdout.isatty() else 160)
    table = Table(title=title)
    for column in rows[0] if rows else ["(no hands)"]:
        table.add_column(column.replace("_", " "), overflow="fold")
    for row in rows:
        table.add_row(*(str(_cell(v)) for v in row.values()))
    console.print(table)
