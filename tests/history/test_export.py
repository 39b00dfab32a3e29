"""`tablewatch hands export`: PokerStars text pokerkit's own PokerStars parser reads back to the same hands, PHH and
OHH from a hand store, and the hands a format can't carry named."""

from __future__ import annotations

import dataclasses
import json
import warnings
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest
from click.testing import CliRunner
from pokerkit import HandHistory
from pokerkit.notation import PokerStarsParser

from tablewatch.cli import cli
from tablewatch.history.phh import dumps_phh
from tablewatch.history.store import open_store
from tablewatch.phhfile import read_hands
from tests.history.test_phh_ohh import played_hand

HIGH_STAKES = ("ftp_1000nl_.phh", "ipn_1000nl_.phh", "ps_1000nl_.phh")


def _final_stacks(hh: HandHistory) -> list[Decimal]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        *_, end = hh
    return [Decimal(str(s)) for s in end.stacks]


def _the_same(original: HandHistory, back: HandHistory) -> bool:
    """Actions (the cards nobody showed aside), starting and final stacks."""
    known = [a.split("#")[0].strip() for a in original.actions if "?" not in a]
    return (known == [a for a in back.actions if "?" not in a]
            and [Decimal(str(s)) for s in original.starting_stacks] == [Decimal(str(s)) for s in back.starting_stacks]
            and _final_stacks(original) == _final_stacks(back))


@pytest.mark.slow
def test_the_real_hands_in_pokerstars_text_read_back_by_pokerkit_to_the_same_hands(shared_dir: Path,
                                                                                    tmp_path: Path) -> None:
    files = [str(shared_dir / "data/hands/high_stakes" / name) for name in HIGH_STAKES]
    result = CliRunner().invoke(cli, ["hands", "export", *files, "--format", "pokerstars", "-o",
                                      str(tmp_path / "hands.txt")])
    assert result.exit_code == 0, result.output
    left_out = [line for line in result.stderr.splitlines() if line.startswith("left out: ")]
    reasons = {line.split(": ", 2)[2] for line in left_out}
    assert reasons == {"starting stacks unknown: the PokerStars format needs each player's chips",
                       "straddles and blinds posted out of position are not written"}
    originals = [hh for name in files for hh in read_hands(Path(name))]
    written = {hh.hand: hh for hh in originals if all(Decimal(str(s)).is_finite() for s in hh.starting_stacks)
               and not any(Decimal(str(b)) < 0 for b in hh.blinds_or_straddles)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        back = list(PokerStarsParser()((tmp_path / "hands.txt").read_text(), error_status=True))
    assert len(back) == len(written) == len(originals) - len(left_out) >= 1900
    assert all(_the_same(written[hh.hand], hh) for hh in back)


def test_a_tables_hands_from_its_store_in_every_format(tmp_path: Path) -> None:
    store = open_store(tmp_path / "hands.sqlite")
    hand = played_hand()
    for number, day in enumerate((1, 2), start=1):
        store.save(dataclasses.replace(hand, hand_no=number, started_at=datetime(2026, 12, day, 20, tzinfo=UTC)
                                       .timestamp()))
    store.close()

    def export(form: str, *options: str) -> str:
        result = CliRunner().invoke(cli, ["hands", "export", str(tmp_path / "hands.sqlite"), "--format", form, "-o",
                                          str(tmp_path / f"out.{form}"), *options])
        assert result.exit_code == 0, result.output
        return (tmp_path / f"out.{form}").read_text()

    export("phh")
    assert [hh.hand for hh in read_hands(tmp_path / "out.phh")] == [1, 2]
    assert [json.loads(line)["ohh"]["game_number"] for line in export("ohh", "--since", "2026-12-02").splitlines()
            ] == ["2"]
    [back] = PokerStarsParser()(export("pokerstars", "--until", "2026-12-02"), error_status=True)
    original, _ = read_hands(tmp_path / "out.phh")
    assert _the_same(original, back) and back.hand == 1


def test_the_names_the_console_gave_in_every_format_and_in_the_statistics(tmp_path: Path) -> None:
    """Bo Chan was named at the console; the other two were not, and go by their seats."""
    store = open_store(tmp_path / "hands.sqlite")
    store.save(dataclasses.replace(played_hand(), table="T01", players={2: "Bo Chan"}))
    store.close()
    source = str(tmp_path / "hands.sqlite")
    ohh = CliRunner().invoke(cli, ["hands", "export", source, "--format", "ohh", "-o", "-"]).stdout
    assert [p["name"] for p in json.loads(ohh)["ohh"]["players"]] == ["Seat 1", "Bo Chan", "Seat 3"]
    stars = CliRunner().invoke(cli, ["hands", "export", source, "--format", "pokerstars", "-o", "-"]).output
    assert "Seat 2: Bo Chan ($1500.50 in chips)" in stars and "Seat 1: Seat 1 " in stars
    stats = CliRunner().invoke(cli, ["stats", source, "--by", "player", "--json"])
    assert stats.exit_code == 0, stats.output
    assert sorted(row["player"] for row in json.loads(stats.output))[:2] == ["Bo Chan", "T01 seat 1"]


def test_ohh_comes_from_a_hand_store_only(tmp_path: Path) -> None:
    (tmp_path / "a.phh").write_text(dumps_phh([played_hand()]))
    result = CliRunner().invoke(cli, ["hands", "export", str(tmp_path / "a.phh"), "--format", "ohh", "-o", "-"])
    assert result.exit_code == 2 and "--format ohh reads a hand store's OHH" in result.output
