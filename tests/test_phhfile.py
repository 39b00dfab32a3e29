"""A one-hand PHH file with every optional field the standard has (and a user-defined one) reads everywhere a PHH
file is read: replay, statistics, export, the simulator; its own hand number, seats, players' names and its date
in its time zone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from pokerkit.notation import PokerStarsParser

from tablewatch.cli import cli
from tablewatch.phhfile import player_names, read_hands, seat_numbers, started_utc

EVERY_FIELD = """variant = 'NT'
ante_trimming_status = true
antes = [0, 0, 0]
blinds_or_straddles = [50, 100, 0]
min_bet = 100
starting_stacks = [10000, 10000, 10000]
actions = ['d dh p1 AsKs', 'd dh p2 7h2d', 'd dh p3 QcQd', 'p3 cbr 300', 'p1 cc', 'p2 f', 'd db 2c7d9h', 'p1 cc',
           'p3 cbr 500', 'p1 cc', 'd db Jc', 'p1 cc', 'p3 cc', 'd db 3s', 'p1 cc', 'p3 cc', 'p1 sm AsKs', 'p3 sm QcQd']
author = 'The floor'
event = 'Winter Series #4'
url = 'https://example.com/hands/4'
venue = 'Test Casino'
address = '1 Main Street'
city = 'Toronto'
region = 'Ontario'
postal_code = 'M5V 2T6'
country = 'Canada'
time = 21:30:05
time_zone = 'America/Toronto'
day = 1
month = 12
year = 2026
hand = 42
level = 7
seats = [2, 5, 9]
seat_count = 9
table = 'T07'
players = ['Ann Lee', 'Bo', 'Cy']
finishing_stacks = [9200, 9900, 10900]
winnings = [0, 0, 1700]
currency = 'USD'
currency_symbol = '$'
time_limit = 30
time_banks = [60, 60, 60]
_camera = 'overhead'
"""


@pytest.fixture
def every_field(tmp_path: Path) -> Path:
    path = tmp_path / "every.phh"
    path.write_text(EVERY_FIELD)
    return path


def test_the_fields_tablewatch_reads(every_field: Path) -> None:
    [hh] = read_hands(every_field)
    assert seat_numbers(hh) == [2, 5, 9] and player_names(hh) == {2: "Ann Lee", 5: "Bo", 9: "Cy"}
    started = started_utc(hh)
    assert started is not None and started.isoformat() == "2026-12-02T02:30:05+00:00"  # 21:30 in Toronto (EST)


def test_replay_names_the_hand_and_its_players(every_field: Path) -> None:
    result = CliRunner().invoke(cli, ["replay", str(every_field), "--json"])
    assert result.exit_code == 0, result.output
    [hand] = json.loads(result.output)["hands"]
    assert (hand["hand"], hand["ok"]) == ("42", True)
    assert hand["players"] == {"2": "Ann Lee", "5": "Bo", "9": "Cy"}
    assert hand["final_stacks"] == {"2": "9200", "5": "9900", "9": "10900"}


def test_statistics_by_player_name(every_field: Path) -> None:
    result = CliRunner().invoke(cli, ["stats", str(every_field), "--by", "player", "--json"])
    assert result.exit_code == 0, result.output
    assert {row["player"]: row["net"] for row in json.loads(result.output)} == {"Ann Lee": -800, "Bo": -100, "Cy": 900}


def test_pokerstars_export_dated_in_utc_and_read_back_by_pokerkit(every_field: Path) -> None:
    result = CliRunner().invoke(cli, ["hands", "export", str(every_field), "--format", "pokerstars", "-o", "-"])
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert text.startswith("PokerStars Hand #42: Hold'em No Limit ($50/$100) - 2026/12/02 02:30:05 UTC\n")
    [back] = PokerStarsParser()(text, error_status=True)
    assert list(back.players) == ["Ann Lee", "Bo", "Cy"] and back.hand == 42


def test_the_simulator_plays_it(every_field: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["sim", "record", "--phh", str(every_field), "--no-camera", "-o",
                                      str(tmp_path / "rec")])
    assert result.exit_code == 0, result.output
    [truth] = read_hands(tmp_path / "rec" / "truth" / "truth.phhs")
    *_, end = truth  # pokerkit's replay of the hand the simulator played
    assert list(end.stacks) == [9200, 9900, 10900]
