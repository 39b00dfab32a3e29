"""How long `tablewatch stats` takes on a casino's year of hands: a hand store's rollup filled with synthetic
hands (tables, dealers, a pool of players, procedure errors) and each report timed.

    python -m tablewatch.bench.stats_speed --url postgresql://postgres@127.0.0.1:5432/test --hands 1000000
    python -m tablewatch.bench.stats_speed --url /tmp/hands.sqlite --hands 100000

The rows go straight into the rollup's tables (COPY on PostgreSQL; the players' days summed by one INSERT …
SELECT, as each save would have added them): the figure is the reports' time, not the time to play the hands.
The tables are dropped at the end.
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
from tablewatch.history.stats import Shifts, merge_into_shifts
from tablewatch.history.store import POSTGRES_SCHEMES

TABLES, DEALERS, PLAYERS, SEATS = 60, 40, 20_000, 6
HANDS_A_DAY = 360
ERROR_EVERY = 50
RULES = (("TDA-29", "player"), ("TDA-39", "player"), ("TDA-25", "dealer"), ("TDA-22A", "dealer"), ("TDA-5", "dealer"))
CHUNK = 50_000
NULL = "\\N"  # COPY's text format


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
        execute(f"INSERT INTO {name}_player_days SELECT p.player, p.table_id, f.quarter / 96, COUNT(*), SUM(vpip), "
                f"SUM(pfr), SUM(aggressive), SUM(calls), SUM(showdown), SUM(won), SUM(net) FROM {name}_players p "
                f"JOIN {name}_facts f USING (table_id, hand_no) GROUP BY p.player, p.table_id, f.quarter / 96", ())
        for part in ("facts", "players", "player_days"):
            execute(f"ANALYZE {name}_{part}", ())
        filled = time.perf_counter() - started
        reports: dict[str, Callable[[], Any]] = {
            "per table": lambda: rollup.paces("table"), "per dealer": lambda: rollup.paces("dealer"),
            "per shift": lambda: merge_into_shifts(rollup.paces("quarter"), Shifts()),
            "per player, every table": rollup.players, "per player, one table": lambda: rollup.players("T001"),
            "per player, one dealer's hands": lambda: rollup.players(dealer="dealer 1"),
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
        for scratch in rollup.table_names():
            execute(f"DROP TABLE IF EXISTS {scratch}", ())
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
        lite.execute("BEGIN")  # one transaction: the connection commits each statement on its own otherwise
        for block in lines:
            rows = [[None if cell == NULL else cell for cell in line.split("\t")] for line in block.splitlines()]
            if rows:  # (a block of hands may hold no procedure error)
                lite.executemany(f"INSERT INTO {table} VALUES ({', '.join('?' * len(rows[0]))})", rows)
        lite.execute("COMMIT")

    return lite, lite.execute, sqlite_copy, "?"


def _synthetic(count: int, rng: np.random.Generator) -> Iterator[tuple[str, Iterator[str]]]:
    """(rollup part, blocks of tab-separated rows): 60 tables dealing 360 hands a day each (12 hours at 30 an
    hour), 40 dealers, players from a pool of 20,000 sitting sessions of about 60 hands, a procedure error in
    about 1 hand of 50."""
    seated = _sessions(count, rng)
    yield "facts", _blocks(count, lambda lo, hi: _facts(lo, hi, rng))
    yield "players", _blocks(count, lambda lo, hi: _players(lo, hi, seated, rng))
    yield "errors", _blocks(count, _errors)


def _blocks(count: int, make: Callable[[int, int], str]) -> Iterator[str]:
    for lo in range(0, count, CHUNK):
        yield make(lo, min(count, lo + CHUNK))


def _facts(lo: int, hi: int, rng: np.random.Generator) -> str:
    hands = np.arange(lo, hi)
    turn = hands // TABLES  # the table's how-manieth hand
    start = (turn // HANDS_A_DAY) * 86400 + 10 * 3600 + (turn % HANDS_A_DAY) * 120 + rng.uniform(0, 5, hands.size)
    first = start + rng.uniform(8, 20, hands.size)
    last = first + rng.uniform(20, 70, hands.size)
    end = last + rng.uniform(5, 20, hands.size)
    pot = rng.gamma(2.0, 40.0, hands.size).round(2)
    gap = np.where(turn % HANDS_A_DAY == 0, np.nan, rng.uniform(10, 40, hands.size))  # none before a day's first
    streets = "\t".join(["{:.1f}"] * 4)  # each street's seconds (every hand reaches the river here)
    columns = (hands, start, end, first, last, pot, gap)  # the rollup's column order
    return "".join(f"T{i % TABLES + 1:03d}\t{i}\t{s:.1f}\t{e:.1f}\t{f:.1f}\t{la:.1f}\tdealer {i * 7 % DEALERS}\t1"
                   f"\t{p}\t{int(s // 900)}\t{NULL if g != g else f'{g:.1f}'}\t"
                   + streets.format(*(rng.uniform(5, 25, 4).tolist()))
                   + "\t{}\t{}\n".format(*_error_counts(i))
                   for i, s, e, f, la, p, g in zip(*(column.tolist() for column in columns), strict=True))


def _rule(hand: int) -> tuple[str, str] | None:
    """The rule broken in a hand (about 1 in 50), and by whom; the same for the hand's facts and its errors."""
    return RULES[(hand // ERROR_EVERY) % len(RULES)] if hand * 2_654_435_761 % ERROR_EVERY == 0 else None


def _error_counts(hand: int) -> tuple[int, int]:
    """(dealer's errors, players' violations) found in the hand."""
    rule = _rule(hand)
    return (int(rule is not None and rule[1] == "dealer"), int(rule is not None and rule[1] == "player"))


def _sessions(count: int, rng: np.random.Generator) -> np.ndarray:
    """Who sits in each seat of each hand: a seat's player leaves after each hand with chance 1/60, and a player
    from the pool takes the seat (each seat draws from its own part of the pool, so no one sits twice)."""
    turns = -(-count // TABLES)
    leaves = rng.random((turns, TABLES, SEATS)) < 1 / 60
    session = np.cumsum(leaves, axis=0)
    part = PLAYERS // SEATS
    drawn = rng.integers(0, part, (int(session.max()) + 1, TABLES, SEATS))
    seat = np.arange(SEATS)[None, None, :]
    players = drawn[session, np.arange(TABLES)[None, :, None], seat] + seat * part
    return players.reshape(turns * TABLES, SEATS)[:count]


def _players(lo: int, hi: int, seated: np.ndarray, rng: np.random.Generator) -> str:
    hands = np.repeat(np.arange(lo, hi), SEATS)
    players = seated[lo:hi].reshape(-1)
    vpip = rng.random(hands.size) < 0.25
    pfr = vpip & (rng.random(hands.size) < 0.7)
    showdown = rng.random(hands.size) < 0.1
    won = showdown & (rng.random(hands.size) < 0.5)
    aggressive, calls = rng.integers(0, 3, hands.size), rng.integers(0, 3, hands.size)
    net = rng.normal(0, 500, hands.size).round()
    columns = (hands, players, vpip.astype(int), pfr.astype(int), aggressive, calls, showdown.astype(int),
               won.astype(int), net)
    return "".join(f"T{i % TABLES + 1:03d}\t{i}\tplayer {p}\t{v}\t{r}\t{a}\t{c}\t{s}\t{w}\t{n:.0f}\t{NULL}\n"
                   for i, p, v, r, a, c, s, w, n in zip(*(column.tolist() for column in columns), strict=True))


def _errors(lo: int, hi: int) -> str:
    broken = ((i, _rule(i)) for i in range(lo, hi))
    return "".join(f"T{i % TABLES + 1:03d}\t{i}\t{rule[0]}\t{rule[1]}\t1\n" for i, rule in broken if rule is not None)


if __name__ == "__main__":
    main()
