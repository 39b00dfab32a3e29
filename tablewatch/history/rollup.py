"""The hand store's statistics rollup: each hand's facts (``stats.hand_facts``) kept in SQL tables as the hand is
saved, so ``tablewatch stats`` over a year of hands is a few GROUP BY queries, not a replay of every hand history.

``{hands}_facts``: one row a hand (times, dealer, pot, the pause before it); ``{hands}_players``: one row a player
a hand (VPIP, PFR…); ``{hands}_errors``: one row a rule broken in a hand, by the dealer or a player (found ``n``
times);
``{hands}_player_days``: each player's sums per table and UTC day, kept up to date at each save, so a player
report over every table reads a row per player and day instead of one per hand. The same SQL runs on SQLite and
PostgreSQL (only the parameter mark differs). A store whose rollup was made by another version of this layout
gets an empty one: ``tablewatch stats`` then reads its hand histories until ``--rebuild`` refills it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from pokerkit import HandHistory

from tablewatch.events import Party
from tablewatch.history.stats import (
    BREAK_S,
    NO_DATE,
    NO_DEALER,
    QUARTER_S,
    STREETS,
    HandFacts,
    PaceStats,
    PlayerStats,
    hand_facts,
    in_sequence,
)

Execute = Callable[[str, Sequence[Any]], Any]  # a DB-API execute: returns a cursor

VERSION = 3
DAY_S = 86_400
UNDATED = -1  # the day of a replay's hands in {hands}_player_days
_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS {t}_facts (
        table_id TEXT NOT NULL, hand_no BIGINT NOT NULL, started_ts DOUBLE PRECISION, ended_ts DOUBLE PRECISION,
        first_action_ts DOUBLE PRECISION, last_action_ts DOUBLE PRECISION, dealer TEXT, dated INTEGER NOT NULL,
        pot DOUBLE PRECISION NOT NULL, quarter BIGINT, gap_s DOUBLE PRECISION, preflop_s DOUBLE PRECISION,
        flop_s DOUBLE PRECISION, turn_s DOUBLE PRECISION, river_s DOUBLE PRECISION, dealer_errors INTEGER NOT NULL,
        player_violations INTEGER NOT NULL, PRIMARY KEY (table_id, hand_no))""",
    "CREATE INDEX IF NOT EXISTS {t}_facts_by_time ON {t}_facts (table_id, started_ts)",
    """CREATE TABLE IF NOT EXISTS {t}_players (
        table_id TEXT NOT NULL, hand_no BIGINT NOT NULL, player TEXT NOT NULL, vpip INTEGER NOT NULL,
        pfr INTEGER NOT NULL, aggressive INTEGER NOT NULL, calls INTEGER NOT NULL, showdown INTEGER NOT NULL,
        won INTEGER NOT NULL, net DOUBLE PRECISION NOT NULL, seat INTEGER, PRIMARY KEY (table_id, hand_no, player))""",
    """CREATE TABLE IF NOT EXISTS {t}_errors (
        table_id TEXT NOT NULL, hand_no BIGINT NOT NULL, rule_id TEXT NOT NULL, party TEXT NOT NULL,
        n INTEGER NOT NULL, PRIMARY KEY (table_id, hand_no, rule_id, party))""",
    """CREATE TABLE IF NOT EXISTS {t}_player_days (
        player TEXT NOT NULL, table_id TEXT NOT NULL, day BIGINT NOT NULL, hands BIGINT NOT NULL,
        vpip BIGINT NOT NULL, pfr BIGINT NOT NULL, aggressive BIGINT NOT NULL, calls BIGINT NOT NULL,
        showdown BIGINT NOT NULL, won BIGINT NOT NULL, net DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (player, table_id, day))""",
)
PARTS = ("facts", "players", "errors", "player_days")
_SUMS = ("hands", "vpip", "pfr", "aggressive", "calls", "showdown", "won", "net")


class Rollup:
    def __init__(self, execute: Execute, *, hands_table: str, mark: str) -> None:
        self.execute, self.t, self.mark = execute, hands_table, mark

    def table_names(self) -> list[str]:
        """Every SQL table the rollup keeps (for dropping a scratch store)."""
        return [f"{self.t}_{part}" for part in (*PARTS, "rollup")]

    def create(self) -> None:
        """The rollup's tables; those of another layout are dropped (and the rollup then covers no hand)."""
        self.execute(f"CREATE TABLE IF NOT EXISTS {self.t}_rollup (version INTEGER NOT NULL)", ())
        row = self.execute(f"SELECT MAX(version) FROM {self.t}_rollup", ()).fetchone()
        if row is None or row[0] != VERSION:
            for part in PARTS:
                self.execute(f"DROP TABLE IF EXISTS {self.t}_{part}", ())
            self.execute(f"DELETE FROM {self.t}_rollup", ())
            self.execute(f"INSERT INTO {self.t}_rollup VALUES ({self.mark})", (VERSION,))
        for statement in _SCHEMA:
            self.execute(statement.format(t=self.t), ())

    def refill(self, texts: Iterable[tuple[str, str]]) -> list[str]:
        """The rollup emptied and refilled from (name, PHH text) of every stored hand, oldest first (call inside
        one transaction); a line for each hand pokerkit can't replay."""
        for part in PARTS:
            self.execute(f"DELETE FROM {self.t}_{part}", ())
        problems = []
        for name, phh in texts:
            try:
                facts = hand_facts(HandHistory.loads(phh))
            except Exception as exc:  # pokerkit raises many types for a hand it can't replay
                problems.append(f"{name}: {type(exc).__name__}: {exc}")
                continue
            self.replace((facts.table, facts.hand_no), facts)
        return problems

    def replace(self, key: tuple[str, int], facts: HandFacts | None) -> None:
        """The hand's rows, in place of any it had (call inside the transaction that saves the hand); None: the
        hand has none (its history could not be replayed), and the rollup no longer covers every hand."""
        self._forget(key)
        if facts is None:
            return
        facts = self._in_sequence(facts)
        self._insert("facts", (*key, facts.started_ts, facts.ended_ts, facts.first_action_ts, facts.last_action_ts,
                               facts.dealer, int(facts.dated), facts.pot, facts.quarter, facts.gap_s,
                               *facts.street_s, len(facts.errors), len(facts.player_violations)))
        day = _day(facts.quarter)
        for p in facts.players:
            sums = (int(p.vpip), int(p.pfr), p.postflop_aggressive, p.postflop_calls, int(p.saw_showdown),
                    int(p.won_at_showdown), p.net)
            self._insert("players", (*key, p.player, *sums, p.seat))
            self._add_to_day(p.player, key[0], day, (1, *sums))
        for party, rules in ((Party.DEALER, facts.errors), (Party.PLAYER, facts.player_violations)):
            for rule in sorted(set(rules)):
                self._insert("errors", (*key, rule, str(party), rules.count(rule)))

    def _forget(self, key: tuple[str, int]) -> None:
        """The hand's rows gone, and its players' sums taken off their days."""
        old = self.execute(
            f"SELECT p.player, f.quarter, {', '.join(f'p.{c}' for c in _SUMS[1:])} FROM {self.t}_players p "
            f"JOIN {self.t}_facts f USING (table_id, hand_no) WHERE table_id = {self.mark} AND hand_no = {self.mark}",
            key).fetchall()
        for player, quarter, *sums in old:
            self._add_to_day(player, key[0], _day(quarter), (-1, *(-value for value in sums)))
        for part in PARTS[:3]:
            self.execute(f"DELETE FROM {self.t}_{part} WHERE table_id = {self.mark} AND hand_no = {self.mark}", key)

    def _in_sequence(self, facts: HandFacts) -> HandFacts:
        """``facts`` after its table's dated hand before (``stats.in_sequence``): the pause, the seats' sessions."""
        if not facts.dated or facts.started_ts is None:
            return facts
        row = self.execute(
            f"SELECT hand_no, COALESCE(ended_ts, started_ts) FROM {self.t}_facts WHERE table_id = {self.mark} AND "
            f"dated = 1 AND started_ts < {self.mark} ORDER BY started_ts DESC LIMIT 1",
            (facts.table, facts.started_ts)).fetchone()
        if row is None:
            return in_sequence(facts, None, {})
        seated = self.execute(f"SELECT seat, player FROM {self.t}_players WHERE table_id = {self.mark} AND "
                              f"hand_no = {self.mark} AND seat IS NOT NULL", (facts.table, row[0])).fetchall()
        return in_sequence(facts, row[1], {int(seat): player for seat, player in seated})

    def _add_to_day(self, player: str, table: str, day: int, sums: tuple[Any, ...]) -> None:
        columns = ", ".join(_SUMS)
        added = ", ".join(f"{c} = {self.t}_player_days.{c} + excluded.{c}" for c in _SUMS)
        marks = ", ".join([self.mark] * (3 + len(_SUMS)))
        self.execute(f"INSERT INTO {self.t}_player_days (player, table_id, day, {columns}) VALUES ({marks}) "
                     f"ON CONFLICT (player, table_id, day) DO UPDATE SET {added}", (player, table, day, *sums))

    def _insert(self, part: str, row: tuple[Any, ...]) -> None:
        marks = ", ".join([self.mark] * len(row))
        self.execute(f"INSERT INTO {self.t}_{part} VALUES ({marks})", row)

    def hands(self) -> int:
        return int(self.execute(f"SELECT COUNT(*) FROM {self.t}_facts", ()).fetchone()[0])

    def players(self, table: str | None = None, *, dealer: str | None = None, since: float | None = None,
                until: float | None = None) -> list[PlayerStats]:
        """Per player: from the players' days where the window is whole UTC days and no dealer is asked for, else
        from the hands' rows."""
        if dealer is None and all(t is None or t % DAY_S == 0 for t in (since, until)):
            tests = [(f"table_id = {self.mark}", table),
                     (f"day >= {self.mark}", None if since is None else int(since // DAY_S)),
                     (f"day < {self.mark}", None if until is None else int(until // DAY_S))]
            if since is not None or until is not None:
                tests.append((f"day <> {self.mark}", UNDATED))
            where, args = _where(tests)
            rows = self.execute(f"SELECT player, {', '.join(f'SUM({c})' for c in _SUMS)} FROM {self.t}_player_days "
                                f"{where} GROUP BY player HAVING SUM(hands) > 0", args)
        else:
            where, args = self._where(table, dealer, since, until)
            rows = self.execute(
                f"SELECT player, COUNT(*), SUM(vpip), SUM(pfr), SUM(aggressive), SUM(calls), SUM(showdown), "
                f"SUM(won), SUM(net) FROM {self.t}_players JOIN {self.t}_facts USING (table_id, hand_no) {where} "
                "GROUP BY player", args)
        stats = [PlayerStats(player=r[0], hands=int(r[1]), vpip=int(r[2]), pfr=int(r[3]),
                             postflop_aggressive=int(r[4]), postflop_calls=int(r[5]), showdowns=int(r[6]),
                             showdowns_won=int(r[7]), net=float(r[8])) for r in rows]
        return sorted(stats, key=lambda s: (-s.hands, s.player))

    def paces(self, grouping: str, table: str | None = None, *, dealer: str | None = None,
              since: float | None = None, until: float | None = None) -> list[PaceStats]:
        """Per table (``grouping="table"``), per dealer, or per quarter hour (``"quarter"``: named by its number,
        for ``stats.merge_into_shifts``)."""
        group = {"table": "table_id", "dealer": f"COALESCE(dealer, '{NO_DEALER}')",
                 "quarter": f"COALESCE(CAST(quarter AS TEXT), '{NO_DATE}')"}[grouping]
        where, args = self._where(table, dealer, since, until)
        timed = "ended_ts IS NOT NULL AND started_ts IS NOT NULL"
        phased = f"{timed} AND first_action_ts IS NOT NULL AND last_action_ts IS NOT NULL"
        streets = ", ".join(f"SUM({street}_s), COUNT({street}_s)" for street in STREETS)
        paces = {r[0]: PaceStats(
            name=r[0], grouping=grouping, hands=int(r[1]), timed=int(r[2]), seconds=float(r[3] or 0),
            pauses_s=float(r[4] or 0), breaks=int(r[5]), phased=int(r[6]), deal_s=float(r[7] or 0),
            betting_s=float(r[8] or 0), finish_s=float(r[9] or 0), pots=float(r[10] or 0),
            error_hands=int(r[11]), violation_hands=int(r[12]), street_s=[float(v or 0) for v in r[13::2]],
            streets_timed=[int(n) for n in r[14::2]])
            for r in self.execute(
            f"SELECT {group}, COUNT(*), SUM(CASE WHEN {timed} THEN 1 ELSE 0 END), "
            f"SUM(CASE WHEN {timed} THEN ended_ts - started_ts END), "
            f"SUM(CASE WHEN {timed} AND gap_s < {BREAK_S} THEN gap_s END), "
            f"SUM(CASE WHEN {timed} AND gap_s >= {BREAK_S} THEN 1 ELSE 0 END), "
            f"SUM(CASE WHEN {phased} THEN 1 ELSE 0 END), "
            f"SUM(CASE WHEN {phased} THEN first_action_ts - started_ts END), "
            f"SUM(CASE WHEN {phased} THEN last_action_ts - first_action_ts END), "
            f"SUM(CASE WHEN {phased} THEN ended_ts - last_action_ts END), SUM(pot), "
            "SUM(CASE WHEN dealer_errors > 0 THEN 1 ELSE 0 END), "
            f"SUM(CASE WHEN player_violations > 0 THEN 1 ELSE 0 END), {streets} "
            f"FROM {self.t}_facts {where} GROUP BY {group}", args)}
        for name, rule, party, count in self.execute(
                f"SELECT {group}, rule_id, party, COUNT(*) FROM {self.t}_errors e JOIN {self.t}_facts f "
                f"USING (table_id, hand_no) {where} GROUP BY {group}, rule_id, party", args):
            found = paces[name].errors if party == Party.DEALER else paces[name].player_violations
            found[rule] += int(count)
        if grouping == "quarter":
            return list(paces.values())
        return [paces[name] for name in sorted(paces)]

    def _where(self, table: str | None, dealer: str | None, since: float | None,
               until: float | None) -> tuple[str, Sequence[Any]]:
        """The WHERE clause on the hands' facts: one table's, one dealer's, those started from ``since`` up to
        ``until`` (dated hands only: a replay's hands have no date)."""
        tests = [(f"table_id = {self.mark}", table), (f"dealer = {self.mark}", dealer),
                 (f"started_ts >= {self.mark}", since), (f"started_ts < {self.mark}", until)]
        if since is not None or until is not None:
            tests.append((f"dated = {self.mark}", 1))
        return _where(tests)


def _day(quarter: int | None) -> int:
    """The UTC day (Unix seconds // 86,400) of a hand started in ``quarter``; ``UNDATED`` for a replay's."""
    return quarter // (DAY_S // QUARTER_S) if quarter is not None else UNDATED


def _where(tests: list[tuple[str, Any]]) -> tuple[str, Sequence[Any]]:
    """``WHERE`` and the tests whose value is given (None: not asked), with their values."""
    chosen = [(test, value) for test, value in tests if value is not None]
    if not chosen:
        return "", ()
    return "WHERE " + " AND ".join(test for test, _ in chosen), tuple(value for _, value in chosen)
