"""`tablewatch stats`: player figures on the 2,989 real hands checked against pokerkit's own statistics and an
independent count of the action strings; table figures from a hand store; JSON, CSV and bad input."""

from __future__ import annotations

import dataclasses
import json
import re
import sqlite3
import warnings
from collections import Counter
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest
from click.testing import CliRunner
from pokerkit import HandHistory, Statistics

from tablewatch.cli import cli
from tablewatch.events import Severity
from tablewatch.history.phh import dumps_phh
from tablewatch.history.stats import by_player, by_table, hand_facts, read_facts
from tablewatch.history.store import open_store
from tests.history.test_phh_ohh import played_hand

HIGH_STAKES = ("ps_1000nl_.phh", "ftp_1000nl_.phh", "ipn_1000nl_.phh")


@pytest.fixture(scope="module")
def real_hands(shared_dir: Path) -> list[HandHistory]:
    hands: list[HandHistory] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the files carry non-standard fields
        for name in HIGH_STAKES:
            with (shared_dir / "data" / "hands" / "high_stakes" / name).open("rb") as handle:
                hands += HandHistory.load_all(handle)
    return hands


def _vpip_pfr_by_reading_the_actions(hh: HandHistory) -> tuple[set[int], set[int]]:
    """Who put chips in voluntarily, and who raised, before the flop: read from the action strings alone. A
    'cc' with no raise before it is a check for a player who has the big blind in already (the big blind, or a
    blind posted live: a negative entry), a call for anyone else. Heads-up the button (p2) posts the small blind."""
    blinds = list(hh.blinds_or_straddles)
    if len(blinds) == 2:
        blinds.reverse()
    big = max(abs(b) for b in blinds)
    checkers = {i for i, b in enumerate(blinds) if abs(b) == big}
    vpip, pfr, raised = set(), set(), False
    for action in hh.actions:
        if action.startswith("d db"):
            break
        match = re.match(r"p(\d+) (cbr|cc)", action)
        if match is None:
            continue
        player = int(match[1]) - 1
        if match[2] == "cbr":
            vpip.add(player)
            pfr.add(player)
            raised = True
        elif raised or player not in checkers:
            vpip.add(player)
    return vpip, pfr


def test_player_figures_on_the_real_hands_agree_with_pokerkit_and_an_independent_count(
        real_hands: list[HandHistory]) -> None:
    facts, problems = read_facts((f"hand {i}", hh) for i, hh in enumerate(real_hands, start=1))
    assert len(real_hands) == 2989 and not problems
    players = {stats.player: stats for stats in by_player(facts)}

    known = [hh for hh in real_hands if all(stack.is_finite() for stack in map(Decimal, hh.starting_stacks))]
    with warnings.catch_warnings():  # pokerkit's statistics take stack differences: the iPoker hands (stacks
        warnings.simplefilter("ignore")  # unknown, written as infinite) have none
        oracle = Statistics.from_hand_history(*known)
    known_facts, _ = read_facts((f"hand {i}", hh) for i, hh in enumerate(known, start=1))
    known_players = {stats.player: stats for stats in by_player(known_facts)}
    assert len(known) >= 1900 and set(known_players) == set(oracle)
    for name, truth in oracle.items():
        assert known_players[name].hands == truth.sample_count, name
        assert known_players[name].net == pytest.approx(float(sum(truth.payoffs)), abs=0.01), name

    vpip: Counter[str] = Counter()
    pfr: Counter[str] = Counter()
    for hh in real_hands:
        voluntary, raising = _vpip_pfr_by_reading_the_actions(hh)
        vpip.update(hh.players[i] for i in voluntary)
        pfr.update(hh.players[i] for i in raising)
    assert {name: s.vpip for name, s in players.items()} == {name: vpip[name] for name in players}
    assert {name: s.pfr for name, s in players.items()} == {name: pfr[name] for name in players}
    assert all(s.showdowns_won <= s.showdowns <= s.hands for s in players.values())


def test_a_tables_hands_from_its_store_give_its_pace_and_its_procedure_errors(tmp_path: Path) -> None:
    hand = played_hand()
    store = open_store(tmp_path / "hands.sqlite")
    store.save(hand)
    store.close()
    result = CliRunner().invoke(cli, ["stats", str(tmp_path / "hands.sqlite"), "--json"])
    assert result.exit_code == 0, result.output
    [row] = json.loads(result.output)
    rules = Counter(v.rule_id for v in hand.violations if v.severity == Severity.VIOLATION)
    assert row["table"] == "T" and row["hands"] == 1 and row["errors_by_rule"] == dict(rules)
    assert row["errors_per_100_hands"] == 100.0 * sum(rules.values())
    assert row["deal_s"] + row["betting_s"] + row["finish_s"] == pytest.approx(row["seconds_per_hand"], abs=0.2)


def test_each_dealers_hands_and_procedure_errors(tmp_path: Path) -> None:
    hand = played_hand()
    store = open_store(tmp_path / "hands.sqlite")
    store.save(dataclasses.replace(hand, dealer="Ann Lee"))
    store.save(dataclasses.replace(hand, hand_no=2, dealer="Bo", violations=()))
    store.save(dataclasses.replace(hand, hand_no=3))  # before any dealer was named on the console
    store.close()
    result = CliRunner().invoke(cli, ["stats", str(tmp_path / "hands.sqlite"), "--by", "dealer", "--json"])
    assert result.exit_code == 0, result.output
    rows = {row["dealer"]: row for row in json.loads(result.output)}
    assert set(rows) == {"Ann Lee", "Bo", "(not named)"} and all(row["hands"] == 1 for row in rows.values())
    assert rows["Bo"]["errors_by_rule"] == {} and rows["Ann Lee"]["errors_by_rule"] == rows["(not named)"][
        "errors_by_rule"] != {}


def test_players_by_seat_where_the_table_knows_no_names(tmp_path: Path) -> None:
    (tmp_path / "hands").mkdir()
    store = open_store(tmp_path / "hands" / "hands.sqlite")
    store.save(played_hand())
    text = next(store.phh_texts())[1]
    store.close()
    (tmp_path / "hands" / "T-00001.phh").write_text(text)
    result = CliRunner().invoke(cli, ["stats", str(tmp_path / "hands" / "T-00001.phh"), "--by", "player", "--csv"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "player,hands,vpip_pct,pfr_pct,aggression,showdowns,showdowns_won_pct,net"
    assert [line.split(",")[0] for line in lines[1:]] == ["T seat 1", "T seat 2", "T seat 3"]
    assert all(line.split(",")[5] == "1" for line in lines[1:])  # all three at the showdown


def test_a_hand_pokerkit_cant_replay_is_left_out_and_named(tmp_path: Path, real_hands: list[HandHistory]) -> None:
    good = real_hands[0]
    broken = HandHistory.loads(good.dumps().replace("actions = [", "actions = ['p1 cbr 999999999', "))
    facts, problems = read_facts([("good", good), ("broken", broken)])
    assert [f.players[0].player for f in facts] == [hand_facts(good).players[0].player]
    assert len(problems) == 1 and problems[0].startswith("broken: ")
    assert by_table(facts)[0].hands == 1


def test_a_file_that_is_no_hand_history_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "notes.phh").write_text("this is not a hand\n")
    result = CliRunner().invoke(cli, ["stats", str(tmp_path / "notes.phh")])
    assert result.exit_code == 1 and "notes.phh: not a readable PHH file" in result.output


def test_a_store_whose_rollup_lacks_hands_is_read_from_its_histories(tmp_path: Path) -> None:
    hand = played_hand()
    path = tmp_path / "hands.sqlite"
    store = open_store(path)
    for number in (1, 2):
        store.save(dataclasses.replace(hand, hand_no=number))
    store.close()
    ask = ["stats", str(path), "--by", "player", "--json"]
    from_the_rollup = CliRunner().invoke(cli, ask).output
    with sqlite3.connect(path) as db:  # a store written before its rollup existed, or a hand pokerkit refused
        db.execute("DELETE FROM hands_facts WHERE hand_no = 2")
    from_the_histories = CliRunner().invoke(cli, ask).output
    assert json.loads(from_the_rollup) == json.loads(from_the_histories)
    assert [row["hands"] for row in json.loads(from_the_histories)] == [2, 2, 2]


@pytest.mark.parametrize("rollup", [True, False], ids=["from the rollup", "from the hand histories"])
def test_since_and_until_keep_the_hands_a_live_table_dated(tmp_path: Path, rollup: bool) -> None:
    hand = played_hand()
    path = tmp_path / "hands.sqlite"
    store = open_store(path)
    monday, tuesday = datetime(2026, 11, 30, 20, 0, tzinfo=UTC), datetime(2026, 12, 1, 20, 0, tzinfo=UTC)
    for number, day in enumerate((monday, tuesday, tuesday), start=1):
        store.save(dataclasses.replace(hand, hand_no=number, started_at=day.timestamp() + 60 * number))
    store.save(dataclasses.replace(hand, hand_no=4))  # a replay's hand: no date
    store.close()
    if not rollup:
        with sqlite3.connect(path) as db:
            db.execute("DELETE FROM hands_facts WHERE hand_no = 4")

    def hands(*window: str) -> int:
        result = CliRunner().invoke(cli, ["stats", str(path), "--json", *window])
        assert result.exit_code == 0, result.output
        return sum(row["hands"] for row in json.loads(result.output))

    assert hands() == 4
    assert hands("--since", "2026-12-01") == 2 and hands("--until", "2026-12-01") == 1
    assert hands("--since", "2026-11-30T20:00:30", "--until", "2026-12-01T20:02:30") == 2  # hands 1 and 2


def test_a_live_tables_hand_history_carries_its_date_and_time() -> None:
    started = datetime(2026, 12, 1, 21, 30, 5, tzinfo=UTC)
    text = dumps_phh([dataclasses.replace(played_hand(), started_at=started.timestamp())])
    hh = HandHistory.loads(text)
    assert (hh.year, hh.month, hh.day, str(hh.time), hh.time_zone) == (2026, 12, 1, "21:30:05", "UTC")
    facts = hand_facts(hh)
    assert facts.started_ts == pytest.approx(started.timestamp()) and facts.seconds is not None
    assert facts.ended_ts is not None and facts.ended_ts > facts.started_ts
