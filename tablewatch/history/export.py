"""``tablewatch hands export``: captured hands in one file for other tools: PHH, PokerStars text (what
PokerTracker and Hold'em Manager import) or OHH (the Open Hand History JSON, one hand a line)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TextIO

import click
from pokerkit import HandHistory

from tablewatch.history.pokerstars import ExportError, dumps_pokerstars
from tablewatch.history.sources import hand_sections, is_store, open_source, utc_seconds

PHH_SECTION = "[{n}]\n{text}\n"
POKERSTARS_GAP = "\n\n\n"  # PokerStars separates hands with blank lines


@click.group(name="hands")
def hands() -> None:
    """The captured hands, for other tools."""


@hands.command(name="export")
@click.argument("sources", nargs=-1, required=True, metavar="SOURCE...")
@click.option("--format", "form", type=click.Choice(["phh", "pokerstars", "ohh"]), default="phh", show_default=True,
              help="PHH (one multi-hand file), PokerStars text, or OHH (JSON lines; from a hand store).")
@click.option("-o", "--out", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="The file to write; - for standard output.")
@click.option("--table", "table_id", default=None, help="Only this table's hands.")
@click.option("--since", type=click.DateTime(), default=None, help="Only hands started from this moment on (UTC).")
@click.option("--until", type=click.DateTime(), default=None, help="Only hands started before this moment (UTC).")
def export(sources: tuple[str, ...], form: str, out: Path, table_id: str | None, since: datetime | None,
           until: datetime | None) -> None:
    """Write the hands of SOURCE (a hand store: hands.sqlite, sqlite:///…, postgresql://…; or PHH files and
    folders) to OUT. A hand a format can't carry (PokerStars: hold'em with known stacks and no straddle) is
    named on the standard error and left out; the rest are written."""
    window = (utc_seconds(since), utc_seconds(until))
    if form == "ohh" and not all(is_store(source) for source in sources):
        raise click.UsageError("--format ohh reads a hand store's OHH (PHH files carry none)")
    written = left_out = 0
    with _opened(out) as stream:
        for text, problem in _exported(sources, form, table_id, window):
            if problem:
                left_out += 1
                click.echo(f"left out: {problem}", err=True)
            else:
                stream.write(text)
                written += 1
    click.echo(f"{written} hands written to {out} ({form}), {left_out} left out", err=True)


def _exported(sources: tuple[str, ...], form: str, table_id: str | None,
              window: tuple[float | None, float | None]) -> Iterator[tuple[str, str]]:
    """(text, "") for each hand written, ("", why) for each left out."""
    if form == "ohh":
        for source in sources:
            for _, text in _ohh_texts(source, table_id):
                if _in_window(json.loads(text).get("ohh", {}).get("start_date_utc"), window):
                    yield text.strip() + "\n", ""
        return
    number = 0
    for name, text, hh in hand_sections(sources, table_id):
        if not _dated_within(hh, window):
            continue
        number += 1
        if form == "phh":  # the text as stored, every field of it kept
            yield PHH_SECTION.format(n=number, text=text.strip()), ""
            continue
        try:
            yield dumps_pokerstars(hh, number=number) + POKERSTARS_GAP, ""
        except ExportError as exc:
            yield "", f"{name}: {exc}"


def _ohh_texts(source: str, table_id: str | None) -> Iterator[tuple[str, str]]:
    store = open_source(source)
    try:
        yield from store.texts(table_id, form="ohh")
    finally:
        store.close()


def _dated_within(hh: HandHistory, window: tuple[float | None, float | None]) -> bool:
    """In the window by the wall-clock start a live table stamps (a hand without one is in no window)."""
    if window == (None, None):
        return True
    started = hh.user_defined_fields.get("_tablewatch_started_at")
    return started is not None and _inside(float(started), window)


def _in_window(start_date_utc: str | None, window: tuple[float | None, float | None]) -> bool:
    if window == (None, None):
        return True
    if not start_date_utc:
        return False
    return _inside(datetime.fromisoformat(start_date_utc.replace("Z", "+00:00")).timestamp(), window)


def _inside(ts: float, window: tuple[float | None, float | None]) -> bool:
    since, until = window
    return (since is None or ts >= since) and (until is None or ts < until)


@contextmanager
def _opened(path: Path) -> Iterator[TextIO]:
    """OUT opened for writing (standard output for -), closed after."""
    if str(path) == "-":
        yield sys.stdout
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        stream = path.open("w", encoding="utf-8")
    except OSError as exc:
        raise click.ClickException(f"{path}: cannot write ({exc})") from exc
    with stream:
        yield stream
