"""How long `tablewatch stats` takes on a casino's year of hands: a hand store's rollup filled with synthetic
hands (tables, dealers, a pool of players, procedure errors) and each report timed.

    python -m tablewatch.bench.stats_speed --url postgresql://postgres@127.0.0.1:5432/test --hands 1000000
    python -m tablewatch.bench.stats_speed --url /tmp/hands.sqlite --hands 100000

The rows go straight into the rollup's tables (COPY on PostgreSQL): the figure is the reports' time, not the
time to play the hands. The tables are dropped at the end.
"""

from __future__ import annotations

import sqlite3
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import click
import numpy as np
from rich.console import Console
from rich.table import Table

from tablewatch.history.rollup import Rollup
from tablewatch.history.store import POSTGRES_SCHEMES

TABLES, DEALERS, PLAYERS, SEATS = 60, 40, 20_000, 6
RULES = ("TDA-29", "TDA-39", "PROC-BURN", "TDA-22A", "TDA-5")
CHUNK = 50_000


@click.command()
@click.option("--url", default="postgresql://postgres@127.0.0.1:5432/test", show_default=True,
              help="A PostgreSQL URL, or a SQLite file to create.")
@click.option("--hands", "hand_count", default=1_000_000, show_default=True, type=click.IntRange(1, 50_000_000))
@click.option("--seed", default=0, show_default=True)
def main(url: str, hand_count: int, seed: int) -> None:
    """Fill a rollup with HANDS synthetic hands and time each report."""
    name = f"tw_bench_{uuid.uuid4().hex[:8]}"
    db, execute, copy, mark = _connect(url)
    rollup = Rollup(execute, hands_table=name, mark=mark)
    console = Console(width=120)
    try:
        rollup.create()
        started = time.perf_counter()
        for part, rows in _synthetic(hand_count, np.random.default_rng(seed)):
            copy(f"{name}_{part}", rows)
        execute(f"ANALYZE {name}_facts", ())
        execute(f"ANALYZE {name}_players", ())
        filled = time.perf_counter() - started
        reports: dict[str, Callable[[], Any]] = {
            "per table": lambda: rollup.paces("table"), "per dealer": lambda: rollup.paces("dealer"),
            "per player, every table": rollup.players, "per player, one table": lambda: rollup.players("T001"),
        }
        table = Table(title=f"{hand_count:,} hands ({hand_count * SEATS:,} player rows) filled in {filled:.0f} s")
        table.add_column("report")
        table.add_column("rows", justify="right")
        table.add_column("seconds", justify="right")
        for report, ask in reports.items():
            tick = time.perf_counter()
            rows = ask()
            table.add_row(report, f"{len(rows):,}", f"{time.perf_counter() - tick:.2f}")
        console.print(table)
    finally:
        for part in ("facts", "players", "errors"):
            execute(f"DROP TABLE IF EXISTS {name}_{part}", ())
        db.close()


def _connect(url: str) -> tuple[Any, Callable[..., Any], Callable[[str, Iterator[str]], None], str]:
    if url.startswith(POSTGRES_SCHEMES):
        import psycopg

        pg = psycopg.connect(url, autocommit=True)

        def pg_copy(table: str, lines: Iterator[str]) -> None:
            with pg.cursor() as cursor, cursor.copy(f"COPY {table} FROM STDIN") as copy:
                for block in lines:
                    copy.write(block)

        return pg, pg.execute, pg_copy, "%s"
    lite = sqlite3.connect(url, isolation_level=None)

    def sqlite_copy(table: str, lines: Iterator[str]) -> None:
        with lite:
            for block in lines:
                rows = [line.split("\t") for line in block.splitlines()]
                lite.executemany(f"INSERT INTO {table} VALUES ({', '.join('?' * len(rows[0]))})", rows)

    return lite, lite.execute, sqlite_copy, "?"


def _synthetic(count: int, rng: np.random.Generator) -> Iterator[tuple[str, Iterator[str]]]:
    """(rollup part, blocks of tab-separated rows): hands of 60 tables over a year, 40 dealers, players drawn
    from a pool, one procedure error in about 1 hand of 50."""
    yield "facts", _blocks(count, lambda lo, hi: _facts(lo, hi, rng))
    yield "players", _blocks(count, lambda lo, hi: _players(lo, hi, rng))
    yield "errors", _blocks(count, lambda lo, hi: _errors(lo, hi, rng))


def _blocks(count: int, make: Callable[[int, int], str]) -> Iterator[str]:
    for lo in range(0, count, CHUNK):
        yield make(lo, min(count, lo + CHUNK))


def _facts(lo: int, hi: int, rng: np.random.Generator) -> str:
    hands = np.arange(lo, hi)
    start = rng.uniform(0, 365 * 86400, hands.size)
    first = start + rng.uniform(8, 20, hands.size)
    last = first + rng.uniform(20, 90, hands.size)
    end = last + rng.uniform(5, 25, hands.size)
    columns = (hands, start, end, first, last)  # the rollup's column order
    return "".join(f"T{i % TABLES + 1:03d}\t{i}\t{s:.1f}\t{e:.1f}\t{f:.1f}\t{la:.1f}\tdealer {i * 7 % DEALERS}\t1\n"
                   for i, s, e, f, la in zip(*(column.tolist() for column in columns), strict=True))


def _players(lo: int, hi: int, rng: np.random.Generator) -> str:
    hands = np.repeat(np.arange(lo, hi), SEATS)
    seats = np.tile(np.arange(SEATS), hi - lo)
    players = (np.repeat(rng.integers(0, PLAYERS, hi - lo), SEATS) + seats * (PLAYERS // SEATS)) % PLAYERS
    vpip = rng.random(hands.size) < 0.25
    pfr = vpip & (rng.random(hands.size) < 0.7)
    showdown = rng.random(hands.size) < 0.1
    won = showdown & (rng.random(hands.size) < 0.5)
    aggressive, calls = rng.integers(0, 3, hands.size), rng.integers(0, 3, hands.size)
    net = rng.normal(0, 500, hands.size).round()
    columns = (hands, players, vpip.astype(int), pfr.astype(int), aggressive, calls, showdown.astype(int),
               won.astype(int), net)
    return "".join(f"T{i % TABLES + 1:03d}\t{i}\tplayer {p}\t{v}\t{r}\t{a}\t{c}\t{s}\t{w}\t{n:.0f}\n"
                   for i, p, v, r, a, c, s, w, n in zip(*(column.tolist() for column in columns), strict=True))


def _errors(lo: int, hi: int, rng: np.random.Generator) -> str:
    hands = np.arange(lo, hi)[rng.random(hi - lo) < 0.02]
    rules = rng.integers(0, len(RULES), hands.size)
    return "".join(f"T{i % TABLES + 1:03d}\t{i}\t{RULES[r]}\t1\n" for i, r in zip(hands.tolist(), rules.tolist(),
                                                                                    strict=True))


if __name__ == "__main__":
    main()
