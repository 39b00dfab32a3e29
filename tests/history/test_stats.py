"""`tablewatch stats`: player figures on the 2,989 real hands checked against pokerkit's own statistics and an
independent count of the action strings; table figures from a hand store; JSON, CSV and bad input."""

from __future__ import annotations

import dataclasses
import json
import re
import sqlite3
import warnings
from collections import Counter
from datetime import UTC, datetime, time
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from pokerkit import HandHistory, Statistics

from tablewatch.cli import cli
from tablewatch.events import BoardCardDealt, Chips, Party, PotPushed, Severity
from tablewatch.hands import FinishedHand
from tablewatch.history.phh import dumps_phh
from tablewatch.history.stats import QUARTER_S, STREETS, Shifts, by_player, by_table, hand_facts, read_facts
from tablewatch.history.store import open_store
from tablewatch.rules.checks.burns import BurnCheck
from tablewatch.rules.profiles import RuleProfile
from tests.history.test_phh_ohh import CENTS, played_hand
from tests.rules.engine_helpers import Hand

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
    found = [v for v in hand.violations if v.severity == Severity.VIOLATION]
    dealers = Counter(v.rule_id for v in found if v.by == Party.DEALER)
    players = Counter(v.rule_id for v in found if v.by == Party.PLAYER)
    assert row["table"] == "T" and row["hands"] == 1 and found
    assert row["dealer_errors_by_rule"] == dict.fromkeys(dealers, 1)  # the hands that broke each rule
    assert row["player_violations_by_rule"] == dict.fromkeys(players, 1)
    assert row["dealer_error_hands_per_100"] == (100.0 if dealers else 0.0)
    assert row["player_violation_hands_per_100"] == (100.0 if players else 0.0)
    assert row["deal_s"] + row["betting_s"] + row["finish_s"] == pytest.approx(row["seconds_per_hand"], abs=0.2)
    flop, turn, river = (burn.ts for burn in hand.burns)
    first, last = hand.actions[0].ts, hand.actions[-1].ts
    assert [row[f"{street}_s"] for street in STREETS] == [flop - first, turn - flop, river - turn, last - river]


def test_a_street_whose_burn_no_camera_saw_has_no_time(tmp_path: Path) -> None:
    store = open_store(tmp_path / "hands.sqlite")
    store.save(dataclasses.replace(played_hand(), burns=()))  # a table without a camera
    store.close()
    [row] = json.loads(CliRunner().invoke(cli, ["stats", str(tmp_path / "hands.sqlite"), "--json"]).stdout)
    assert [row[f"{street}_s"] for street in STREETS] == [None] * 4 and row["betting_s"] is not None


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
    errors = {name: {**row["dealer_errors_by_rule"], **row["player_violations_by_rule"]} for name, row in rows.items()}
    assert errors["Bo"] == {} and errors["Ann Lee"] == errors["(not named)"] != {}


def test_players_by_seat_where_the_table_knows_no_names(tmp_path: Path) -> None:
    (tmp_path / "hands").mkdir()
    store = open_store(tmp_path / "hands" / "hands.sqlite")
    store.save(played_hand())
    text = next(store.texts())[1]
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
    assert result.exit_code == 1 and "notes.phh: hand [1] line 1: not valid PHH/TOML" in result.output


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
    read = CliRunner().invoke(cli, ask)
    from_the_histories = read.stdout
    assert "the statistics rollup covers 1 of 2 hands; reading the hand histories" in read.stderr
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
        return sum(row["hands"] for row in json.loads(result.stdout))

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


def test_a_shift_is_named_by_the_day_and_local_time_it_began() -> None:
    vienna = Shifts(zone="Europe/Vienna")
    quarter = int(datetime(2026, 12, 1, 3, 30, tzinfo=UTC).timestamp()) // QUARTER_S  # 04:30 in Vienna
    assert vienna.label(quarter) == "2026-11-30 22:00"  # the night shift that began the evening before
    assert vienna.label(quarter + 6) == "2026-12-01 06:00"
    with pytest.raises(ValueError, match="quarter hour"):
        Shifts(starts=(time(6, 10),))
    with pytest.raises(ValueError, match="unknown time zone"):
        Shifts(zone="Mars/Olympus")


def an_evening(path: Path) -> FinishedHand:
    """Five hands at one table, dealt by two dealers, 30 s apart, with a 10-minute break before the fourth;
    the first three before 22:00 UTC (the day shift), the last two after (the night shift). Returns the hand."""
    hand = played_hand()
    length = hand.ended_ts - hand.started_ts if hand.ended_ts is not None else 0.0
    start = datetime(2026, 12, 1, 21, 50, tzinfo=UTC).timestamp()
    starts = [start + k * (length + 30) for k in range(3)]
    starts += [starts[-1] + length + 600, starts[-1] + 2 * length + 630]
    store = open_store(path)
    for number, (at, dealer) in enumerate(zip(starts, ["Ann", "Ann", "Ann", "Bo", "Bo"], strict=True), start=1):
        store.save(dataclasses.replace(hand, hand_no=number, started_at=at, dealer=dealer))
    store.close()
    return hand


@pytest.mark.parametrize("rollup", [True, False], ids=["from the rollup", "from the hand histories"])
def test_shifts_breaks_and_the_pace_at_the_table(tmp_path: Path, rollup: bool) -> None:
    path = tmp_path / "hands.sqlite"
    hand = an_evening(path)
    if not rollup:
        with sqlite3.connect(path) as db:
            db.execute("DELETE FROM hands_facts WHERE hand_no = 1")

    def rows(*ask: str) -> list[dict[str, Any]]:
        result = CliRunner().invoke(cli, ["stats", str(path), "--json", *ask])
        assert result.exit_code == 0, result.output
        return list(json.loads(result.stdout))

    length = hand.ended_ts - hand.started_ts if hand.ended_ts is not None else 0.0
    [table] = rows()
    assert table["breaks"] == 1 and table["hands_per_hour"] == round(5 * 3600 / (5 * length + 3 * 30), 1)
    assert table["pot_mean"] == 127.5  # each of three put in $30 before the flop and $12.50 on it
    shifts = rows("--by", "shift")
    assert [(row["shift"], row["hands"]) for row in shifts] == [("2026-12-01 14:00", 3), ("2026-12-01 22:00", 2)]
    assert [row["shift"] for row in rows("--by", "shift", "--shifts", "08:00,20:00", "--tz", "America/New_York")
            ] == ["2026-12-01 08:00"]  # 16:50 to 17:20 in New York
    assert [(row["dealer"], row["hands"], row["breaks"]) for row in rows("--by", "dealer")] == [
        ("Ann", 3, 0), ("Bo", 2, 1)]  # Bo's first hand followed the break
    assert [row["hands"] for row in rows("--by", "player", "--dealer", "Bo")] == [2, 2, 2]
    assert [row["hands"] for row in rows("--dealer", "Ann")] == [3]


def test_a_hand_saved_again_counts_once_in_its_players_days(tmp_path: Path) -> None:
    first, second = (datetime(2026, 12, day, 20, tzinfo=UTC).timestamp() for day in (1, 2))
    store = open_store(tmp_path / "hands.sqlite")
    store.save(dataclasses.replace(played_hand(), started_at=first))
    store.save(dataclasses.replace(played_hand(), started_at=second))  # the same hand, its start corrected
    midnight = datetime(2026, 12, 2, tzinfo=UTC).timestamp()
    assert [p.hands for p in store.rollup.players()] == [1, 1, 1]
    assert [p.hands for p in store.rollup.players(since=midnight)] == [1, 1, 1]
    assert store.rollup.players(until=midnight) == []
    store.close()


def test_a_rollup_of_another_layout_is_emptied_and_rebuilt_on_request(tmp_path: Path) -> None:
    path = tmp_path / "hands.sqlite"
    an_evening(path)
    ask = ["stats", str(path), "--by", "dealer", "--json"]
    before = json.loads(CliRunner().invoke(cli, ask).stdout)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE hands_rollup SET version = 1")  # as a store written by an older tablewatch
    open_store(path).close()
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT COUNT(*) FROM hands_facts").fetchone()[0] == 0
    read = CliRunner().invoke(cli, ask)
    assert "covers 0 of 5 hands" in read.stderr and json.loads(read.stdout) == before
    rebuilt = CliRunner().invoke(cli, [*ask, "--rebuild"])
    assert rebuilt.exit_code == 0 and "rollup rebuilt" in rebuilt.stderr and "covers" not in rebuilt.stderr
    assert json.loads(rebuilt.stdout) == before


def test_the_html_report_draws_its_charts_inline_and_escapes_names(tmp_path: Path) -> None:
    store = open_store(tmp_path / "hands.sqlite")
    store.save(dataclasses.replace(played_hand(), dealer="<script>alert(1)</script>"))
    store.close()
    report = tmp_path / "report.html"
    result = CliRunner().invoke(cli, ["stats", str(tmp_path / "hands.sqlite"), "--by", "dealer", "--html",
                                      str(report)])
    assert result.exit_code == 0, result.output
    page = report.read_text()
    assert page.count("<svg") == 4 and "<script>" not in page and "&lt;script&gt;alert(1)" in page
    players = CliRunner().invoke(cli, ["stats", str(tmp_path / "hands.sqlite"), "--by", "player", "--html",
                                       str(report)])
    assert players.exit_code == 0 and report.read_text().count("<svg") == 2
    unwritable = CliRunner().invoke(cli, ["stats", str(tmp_path / "hands.sqlite"), "--html", str(tmp_path)])
    assert unwritable.exit_code != 0 and "--html" in unwritable.output  # a folder is no file


def test_a_bad_shift_or_time_zone_is_a_clear_error(tmp_path: Path) -> None:
    store = open_store(tmp_path / "hands.sqlite")
    store.close()
    for option in (["--shifts", "6 am"], ["--tz", "Mars/Olympus"], ["--shifts", "06:10"]):
        result = CliRunner().invoke(cli, ["stats", str(tmp_path / "hands.sqlite"), "--by", "shift", *option])
        assert result.exit_code == 2 and "--shifts/--tz" in result.output, result.output


def test_a_procedure_checks_finding_is_in_the_hands_history_and_counted_against_the_dealer(tmp_path: Path) -> None:
    hand = Hand(CENTS, {1: 100_000, 2: 150_050, 3: 80_000}, button=3, checks=[BurnCheck(RuleProfile())])
    for seat in (3, 1, 2):
        hand.act(seat, "cc")
    hand.feed(BoardCardDealt, card="2c", slot=0)  # the flop without a burn
    finished = hand.end()
    assert [(v.rule_id, v.by) for v in finished.violations] == [("TDA-26B", Party.DEALER)]
    store = open_store(tmp_path / "hands.sqlite")
    store.save(finished)
    store.close()
    [row] = json.loads(CliRunner().invoke(cli, ["stats", str(tmp_path / "hands.sqlite"), "--json"]).stdout)
    assert row["dealer_errors_by_rule"] == {"TDA-26B": 1} and row["player_violations_by_rule"] == {}


@pytest.mark.parametrize("rollup", [True, False], ids=["from the rollup", "from the hand histories"])
def test_players_known_by_no_name_are_told_apart_by_seat_and_session(tmp_path: Path, rollup: bool) -> None:
    path = tmp_path / "hands.sqlite"
    an_evening(path)  # a 10-minute break before the fourth hand: the seats may have changed hands
    if not rollup:
        with sqlite3.connect(path) as db:
            db.execute("DELETE FROM hands_facts WHERE hand_no = 5")
    result = CliRunner().invoke(cli, ["stats", str(path), "--by", "player", "--json"])
    players = {row["player"]: row["hands"] for row in json.loads(result.stdout)}
    assert len(players) == 6 and players["T seat 1 from 2026-12-01 21:50"] == 3
    assert [hands for name, hands in players.items() if name.startswith("T seat 1 from 2026-12-01 22:")] == [2]


def test_a_hand_no_camera_saw_counts_by_its_pushes(tmp_path: Path) -> None:
    """Without a camera the showdown is ``????``, which pokerkit can't rank: the betting is read from its replay,
    the nets and the pot from the history's finishing stacks and winnings (the dealer's pushes, read by RFID)."""
    hand = Hand(CENTS, {1: 100_000, 2: 150_050, 3: 80_000}, button=3)
    for seat in (3, 1, 2):
        hand.act(seat, "cc")
    for cards in ((None, None, None), (None,), (None,)):
        hand.board(*cards)
        for seat in (1, 2, 3):
            hand.act(seat, "cc")
    hand.feed(PotPushed, seat=1, chips=Chips.of({1000: 3}), value=3000)
    store = open_store(tmp_path / "hands.sqlite")
    store.save(hand.end())
    assert store.rollup.hands() == 1  # the rollup has it
    store.close()
    rows = json.loads(CliRunner().invoke(cli, ["stats", str(tmp_path / "hands.sqlite"), "--by", "player",
                                               "--json"]).stdout)
    assert [(r["player"], r["net"], r["showdowns"], r["vpip_pct"]) for r in rows] == [
        ("T seat 1", 20.0, 1, 100.0), ("T seat 2", -10.0, 1, 0.0), ("T seat 3", -10.0, 1, 100.0)]
