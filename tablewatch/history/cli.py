"""``tablewatch stats``: the poker room's figures from captured hands, in the terminal, as JSON or CSV."""

from __future__ import annotations

import csv
import io
import json
import re
import sys
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click
from pokerkit import HandHistory
from rich.console import Console
from rich.table import Table

from tablewatch.history.stats import HandFacts, PaceStats, PlayerStats, by_dealer, by_player, by_table, read_facts
from tablewatch.history.store import HandStore, StoreError, is_store_url, open_store

PHH_SUFFIXES = (".phh", ".phhs")
SQLITE_MAGIC = b"SQLite format 3\x00"
SECTION = re.compile(r"^\[\d+\]\s*$", re.MULTILINE)  # a multi-hand file's "[1]", "[2]"…


@click.command(name="stats")
@click.argument("sources", nargs=-1, required=True, metavar="SOURCE...")
@click.option("--by", "grouping", type=click.Choice(["table", "dealer", "player"]), default="table",
              show_default=True, help="Figures per table or per dealer (pace, time per hand, procedure errors), or "
              "per player (VPIP, PFR…).")
@click.option("--table", "table_id", default=None, help="Only this table's hands.")
@click.option("--since", type=click.DateTime(), default=None,
              help="Only hands started from this moment on (UTC; e.g. 2026-12-01 or 2026-12-01T18:00:00).")
@click.option("--until", type=click.DateTime(), default=None, help="Only hands started before this moment (UTC).")
@click.option("--json", "as_json", is_flag=True, help="One JSON list of rows on stdout.")
@click.option("--csv", "as_csv", is_flag=True, help="CSV rows on stdout.")
def stats(sources: tuple[str, ...], grouping: str, table_id: str | None, since: datetime | None,
          until: datetime | None, as_json: bool, as_csv: bool) -> None:
    """Statistics of the hands in SOURCE: a hand store (a table's hands.sqlite, sqlite:///…, postgresql://…),
    PHH files, or folders of them (a run's hands/).

    Per table or per dealer (named on the console: `dealer NAME`): hands, hands per hour, seconds per hand and
    where they go (the deal, the betting, the showdown and push), procedure errors per 100 hands by rule. Per
    player (by name, else by table and seat): hands, VPIP, PFR, post-flop aggression, showdowns seen and won,
    net chips. A hand store answers from its rollup (kept as hands are saved) when it covers every hand.
    --since and --until keep the hands a live table stamped with their date (a replay's hands have none).
    """
    window = Window(_unix(since), _unix(until))
    groups = _from_the_rollup(sources, grouping, table_id, window)
    problems: list[str] = []
    if groups is None:
        facts, problems = read_facts(_histories(sources, table_id))
        facts = [hand for hand in facts if (table_id is None or hand.table == table_id) and window.holds(hand)]
        groups = (by_player(facts) if grouping == "player" else
                  by_dealer(facts) if grouping == "dealer" else by_table(facts))
    rows = [group.row() for group in groups]
    if as_json:
        click.echo(json.dumps(rows, indent=1))
    elif as_csv:
        click.echo(_csv(rows), nl=False)
    else:
        hands = sum(row["hands"] for row in rows) if grouping != "player" else None
        _print(rows, f"{hands} hands" if hands is not None else f"{len(rows)} players")
    for problem in problems:
        click.echo(f"left out: {problem}", err=True)


@dataclass(frozen=True)
class Window:
    since: float | None
    until: float | None

    def holds(self, hand: HandFacts) -> bool:
        if self.since is None and self.until is None:
            return True
        ts = hand.started_ts
        return (hand.dated and ts is not None and (self.since is None or ts >= self.since)
                and (self.until is None or ts < self.until))


def _unix(moment: datetime | None) -> float | None:
    return None if moment is None else moment.replace(tzinfo=UTC).timestamp()


def _from_the_rollup(sources: tuple[str, ...], grouping: str, table_id: str | None,
                     window: Window) -> list[PaceStats] | list[PlayerStats] | None:
    """The figures of one hand store from its rollup; None for other sources, or a rollup that lacks hands."""
    if len(sources) != 1 or not _is_store(sources[0]):
        return None
    store = _open(sources[0])
    try:
        if store.rollup.hands() != store.count():
            return None
        times = {"since": window.since, "until": window.until}
        if grouping == "player":
            return store.rollup.players(table_id, **times)
        return store.rollup.paces(grouping, table_id, **times)
    finally:
        store.close()


def _histories(sources: tuple[str, ...], table_id: str | None) -> Iterator[tuple[str, HandHistory]]:
    for source in sources:
        for name, text in _texts(source, table_id):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # venue files carry non-standard fields
                    hands = list(HandHistory.loads_all(text)) if SECTION.search(text) else [HandHistory.loads(text)]
            except Exception as exc:  # pokerkit raises many types for a malformed file
                raise click.ClickException(f"{name}: not a readable PHH file ({exc})") from exc
            single = len(hands) == 1
            yield from ((name if single else f"{name}#{i}", hh) for i, hh in enumerate(hands, start=1))


def _texts(source: str, table_id: str | None) -> Iterator[tuple[str, str]]:
    """(name, PHH text) of each hand file or stored hand in ``source``."""
    path = Path(source)
    if _is_store(source):
        store = _open(source)
        try:
            yield from store.phh_texts(table_id)
        finally:
            store.close()
        return
    files = sorted(p for p in path.iterdir() if p.suffix in PHH_SUFFIXES) if path.is_dir() else [path]
    for file in files:
        try:
            yield file.name, file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise click.ClickException(f"{file}: cannot read ({exc})") from exc


def _is_store(source: str) -> bool:
    return is_store_url(source) or _is_sqlite(Path(source))


def _open(source: str) -> HandStore:
    try:
        return open_store(source)
    except StoreError as exc:
        raise click.ClickException(str(exc)) from exc


def _is_sqlite(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return handle.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return False


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
