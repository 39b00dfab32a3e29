"""The ``tablewatch`` command. Each part owns its sub-commands in ``tablewatch/<part>/cli.py``.

Sub-commands are imported only when used, so ``tablewatch rfid decode`` does not pay for OpenCV or
onnxruntime at start-up.
"""

from __future__ import annotations

import importlib
import logging
import warnings

import click

# name -> "module:attribute" of a click command or group. One explicit list: nothing registers itself.
COMMANDS: dict[str, str] = {
    "run": "tablewatch.table.cli:run",
    "demo": "tablewatch.bench.cli:demo",
    "bench": "tablewatch.bench.cli:bench",
    "bench-conditions": "tablewatch.bench.cli:bench_conditions",
    "replay": "tablewatch.rules.cli:replay",
    "stats": "tablewatch.history.cli:stats",
    "hands": "tablewatch.history.export:hands",
    "bench-rules": "tablewatch.rules.cli:bench_rules",
    "rfid": "tablewatch.devices.cli:rfid",
    "console": "tablewatch.devices.cli:console",
    "bench-rfid": "tablewatch.bench.rfid:bench_rfid",
    "sim": "tablewatch.sim.cli:sim",
    "bench-sim": "tablewatch.sim.cli:bench_sim",
    "calibrate": "tablewatch.calibration.cli:calibrate",
    "markers": "tablewatch.calibration.cli:markers",
    "deck": "tablewatch.calibration.cli:deck",
    "cards": "tablewatch.vision.cli:cards",
    "snapshot": "tablewatch.vision.snapshot.cli:snapshot",
    "bench-vision": "tablewatch.bench.card_reader:bench_vision",
    "bench-snapshot": "tablewatch.bench.snapshot:bench_snapshot",
    "train": "tablewatch.models.cli:train",
    "evaluate": "tablewatch.models.cli:evaluate",
    "floor": "tablewatch.alerts.cli:floor",
    "broker": "tablewatch.alerts.cli:broker",
    "web": "tablewatch.alerts.cli:web",
    "evidence": "tablewatch.alerts.evidence_cli:evidence",
    "bench-mqtt": "tablewatch.bench.mqtt:bench_mqtt",
    "bench-central": "tablewatch.bench.central:bench_central",
    "bench-edge": "tablewatch.bench.edge:bench_edge",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attribute = target.split(":")
        try:
            module = importlib.import_module(module_name)
            command = getattr(module, attribute)
        except (ImportError, AttributeError) as exc:
            return _unavailable(cmd_name, f"{target} could not be loaded: {exc}")
        if not isinstance(command, click.Command):
            raise TypeError(f"{target} is not a click command.")
        return command


def _unavailable(name: str, why: str) -> click.Command:
    @click.command(name=name, help=f"(unavailable: {why})", context_settings={"ignore_unknown_options": True})
    @click.argument("args", nargs=-1, type=click.UNPROCESSED)
    def stub(args: tuple[str, ...]) -> None:
        raise click.ClickException(f"'{name}' is not available in this installation: {why}")

    return stub


LEVELS = ("debug", "info", "warning", "error")


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="tablewatch")
@click.option("--log-level", type=click.Choice(LEVELS, case_sensitive=False), envvar="TABLEWATCH_LOG_LEVEL",
              default="warning", show_default=True, help="Least severe log messages shown (on stderr); also "
              "$TABLEWATCH_LOG_LEVEL.")
@click.option("-v", "--verbose", count=True, help="One level more detail per -v (-v: info, -vv: debug).")
@click.option("-q", "--quiet", is_flag=True, help="Errors only.")
def cli(log_level: str, verbose: int, quiet: bool) -> None:
    """tablewatch: a live poker table monitor."""
    configure_logging(log_level, verbose=verbose, quiet=quiet)


def configure_logging(level: str, *, verbose: int = 0, quiet: bool = False) -> None:
    """One logging set-up for every command: ``level``, moved down a step per ``verbose``, or errors only."""
    index = max(0, LEVELS.index(level.lower()) - verbose)
    chosen = "error" if quiet else LEVELS[index]
    logging.basicConfig(level=chosen.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s", force=True)
    # pokerkit warns on every PHH file that carries the (standard, optional) time zone field it does not list
    warnings.filterwarnings("ignore", message="The field 'time_zone_abbreviation'", module="pokerkit")
    # and at every fold made with nothing to call: the table allows it, and the rules layer plays it as a fold
    warnings.filterwarnings("ignore", message="There is no reason for this player to fold", module="pokerkit")


def main() -> None:
    cli()
