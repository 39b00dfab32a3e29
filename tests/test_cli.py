"""The options every command shares: how much it logs."""

from __future__ import annotations

import logging
import warnings
from collections.abc import Iterator

import pytest
from click.testing import CliRunner

from tablewatch.cli import cli, configure_logging


@pytest.fixture(autouse=True)
def restore_logging() -> Iterator[None]:
    level = logging.getLogger().level
    yield
    logging.getLogger().setLevel(level)


@pytest.mark.parametrize(("level", "verbose", "quiet", "expected"), [
    ("warning", 0, False, logging.WARNING), ("warning", 1, False, logging.INFO), ("warning", 2, False, logging.DEBUG),
    ("info", 5, False, logging.DEBUG), ("DEBUG", 0, True, logging.ERROR),
])
def test_log_level_verbose_and_quiet_set_the_root_level(level: str, verbose: int, quiet: bool, expected: int) -> None:
    configure_logging(level, verbose=verbose, quiet=quiet)
    assert logging.getLogger().level == expected


def test_the_log_level_comes_from_the_command_line_or_the_environment() -> None:
    runner = CliRunner()
    assert runner.invoke(cli, ["--log-level", "info", "rfid", "--help"]).exit_code == 0
    assert logging.getLogger().level == logging.INFO
    assert runner.invoke(cli, ["rfid", "--help"], env={"TABLEWATCH_LOG_LEVEL": "error"}).exit_code == 0
    assert logging.getLogger().level == logging.ERROR
    refused = runner.invoke(cli, ["--log-level", "loud", "rfid", "--help"])
    assert refused.exit_code != 0 and "loud" in refused.output


def test_pokerkits_notices_on_what_a_table_does_are_not_printed() -> None:
    from pokerkit import Automation, Mode, NoLimitTexasHoldem

    with warnings.catch_warnings(record=True) as caught:
        configure_logging("warning", verbose=0, quiet=False)
        state = NoLimitTexasHoldem.create_state(  # heads-up, every step but the players' actions automated
            tuple(Automation), True, 0, (1, 2), 2, (200, 200), 2, mode=Mode.CASH_GAME)
        state.check_or_call()  # the small blind calls
        state.fold()  # the big blind folds with nothing to call: allowed at a table
    assert not [w for w in caught if "no reason for this player to fold" in str(w.message)]
