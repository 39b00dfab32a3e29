"""The hand store's statistics rollup: each hand's facts (``stats.hand_facts``) kept in three SQL tables as the
hand is saved, so ``tablewatch stats`` over a year of hands is a few GROUP BY queries, not a replay of every
hand history.

``{hands}_facts``: one row a hand (times, dealer); ``{hands}_players``: one row a player a hand (VPIP, PFR…);
``{hands}_errors``: one row a rule a hand. The same SQL runs on SQLite and PostgreSQL (only the parameter mark
differs).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from tablewatch.history.stats import NO_DEALER, HandFacts, PaceStats, PlayerStats

Execute = Callable[[str, Sequence[Any]], Any]  # a DB-API execute: returns a cursor

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS {t}_facts (
        table_id TEXT NOT NULL, hand_no BIGINT NOT NULL, started_ts DOUBLE PRECISION, ended_ts DOUBLE PRECISION,
        first_action_ts DOUBLE PRECISION, last_action_ts DOUBLE PRECISION, dealer TEXT, dated INTEGER NOT NULL,
        PRIMARY KEY (table_id, hand_no))""",
    """CREATE TABLE IF NOT EXISTS {t}_players (
        table_id TEXT NOT NULL, hand_no BIGINT NOT NULL, player TEXT NOT NULL, vpip INTEGER NOT NULL,
        pfr INTEGER NOT NULL, aggressive INTEGER NOT NULL, calls INTEGER NOT NULL, showdown INTEGER NOT NULL,
        won INTEGER NOT NULL, net DOUBLE PRECISION NOT NULL, PRIMARY KEY (table_id, hand_no, player))""",
    "CREATE INDEX IF NOT EXISTS {t}_players_by_player ON {t}_players (player)",
    """CREATE TABLE IF NOT EXISTS {t}_errors (
        table_id TEXT NOT NULL, hand_no BIGINT NOT NULL, rule_id TEXT NOT NULL, n INTEGER NOT NULL,
        PRIMARY KEY (table_id, hand_no, rule_id))""",
)
_PARTS = ("facts", "players", "errors")


class Rollup:
    def __init__(self, execute: Execute, *, hands_table: str, mark: str) -> None:
        self.execute, self.t, self.mark = execute, hands_table, mark

    def create(self) -> None:
        for statement in _SCHEMA:
            self.execute(statement.format(t=self.t), ())

    def replace(self, key: tuple[str, int], facts: HandFacts | None) -> None:
        """The hand's rows, in place of any it had (call inside the transaction that saves the hand); None: the
        hand has none (its history could not be replayed), and the rollup no longer covers every hand."""
        for part in _PARTS:
            self.execute(f"DELETE FROM {self.t}_{part} WHERE table_id = {self.mark} AND hand_no = {self.mark}", key)
        if facts is None:
            return
        self._insert("facts", (*key, facts.started_ts, facts.ended_ts, facts.first_action_ts, facts.last_action_ts,
                               facts.dealer, int(facts.dated)))
        for p in facts.players:
            self._insert("players", (*key, p.player, int(p.vpip), int(p.pfr), p.postflop_aggressive,
                                     p.postflop_calls, int(p.saw_showdown), int(p.won_at_showdown), p.net))
        for rule, count in Counter(facts.errors).items():
            self._insert("errors", (*key, rule, count))

    def _insert(self, part: str, row: tuple[Any, ...]) -> None:
        marks = ", ".join([self.mark] * len(row))
        self.execute(f"INSERT INTO {self.t}_{part} VALUES ({marks})", row)

    def hands(self) -> int:
        return int(self.execute(f"SELECT COUNT(*) FROM {self.t}_facts", ()).fetchone()[0])

    def players(self, table: str | None = None, *, since: float | None = None,
                until: float | None = None) -> list[PlayerStats]:
        where, args = self._where(table, since, until)
        timed = since is not None or until is not None
        hands = f"{self.t}_players JOIN {self.t}_facts USING (table_id, hand_no)" if timed else \
            f"{self.t}_players"  # the join only when the hands' times are asked about
        rows = self.execute(
            f"SELECT player, COUNT(*), SUM(vpip), SUM(pfr), SUM(aggressive), SUM(calls), SUM(showdown), SUM(won), "
            f"SUM(net) FROM {hands} {where} GROUP BY player", args)
        stats = [PlayerStats(player=r[0], hands=int(r[1]), vpip=int(r[2]), pfr=int(r[3]),
                             postflop_aggressive=int(r[4]), postflop_calls=int(r[5]), showdowns=int(r[6]),
                             showdowns_won=int(r[7]), net=float(r[8])) for r in rows]
        return sorted(stats, key=lambda s: (-s.hands, s.player))

    def paces(self, grouping: str, table: str | None = None, *, since: float | None = None,
              until: float | None = None) -> list[PaceStats]:
        """Per table (``grouping="table"``) or per dealer."""
        group = "table_id" if grouping == "table" else f"COALESCE(dealer, '{NO_DEALER}')"
        where, args = self._where(table, since, until)
        timed = "ended_ts IS NOT NULL AND started_ts IS NOT NULL"
        phased = f"{timed} AND first_action_ts IS NOT NULL AND last_action_ts IS NOT NULL"
        paces = {r[0]: PaceStats(
            name=r[0], grouping=grouping, hands=int(r[1]), timed=int(r[2]), seconds=float(r[3] or 0),
            phased=int(r[4]), deal_s=float(r[5] or 0), betting_s=float(r[6] or 0), finish_s=float(r[7] or 0),
            first_start=r[8], last_end=r[9]) for r in self.execute(
            f"SELECT {group}, COUNT(*), SUM(CASE WHEN {timed} THEN 1 ELSE 0 END), "
            f"SUM(CASE WHEN {timed} THEN ended_ts - started_ts END), SUM(CASE WHEN {phased} THEN 1 ELSE 0 END), "
            f"SUM(CASE WHEN {phased} THEN first_action_ts - started_ts END), "
            f"SUM(CASE WHEN {phased} THEN last_action_ts - first_action_ts END), "
            f"SUM(CASE WHEN {phased} THEN ended_ts - last_action_ts END), "
            f"MIN(CASE WHEN {timed} THEN started_ts END), MAX(CASE WHEN {timed} THEN ended_ts END) "
            f"FROM {self.t}_facts {where} GROUP BY {group}", args)}
        for name, rule, count in self.execute(
                f"SELECT {group}, rule_id, SUM(n) FROM {self.t}_errors e JOIN {self.t}_facts f "
                f"USING (table_id, hand_no) {where} GROUP BY {group}, rule_id", args):
            paces[name].errors[rule] = int(count)
        return [paces[name] for name in sorted(paces)]

    def _where(self, table: str | None, since: float | None, until: float | None) -> tuple[str, Sequence[Any]]:
        """The WHERE clause for one table's hands and those started from ``since`` up to ``until``."""
        tests = [(f"table_id = {self.mark}", table), (f"started_ts >= {self.mark}", since),
                 (f"started_ts < {self.mark}", until)]
        chosen = [(test, value) for test, value in tests if value is not None]
        if since is not None or until is not None:
            chosen.append((f"dated = {self.mark}", 1))  # a replay's hands have no date
        if not chosen:
            return "", ()
        return "WHERE " + " AND ".join(test for test, _ in chosen), tuple(value for _, value in chosen)
