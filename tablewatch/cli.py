"""The ``tablewatch`` command. Each part owns its sub-commands in ``tablewatch/<part>/cli.py``.

Sub-commands are imported only when used, so ``tablewatch rfid decode`` does not pay for OpenCV or
onnxruntime at start-up.
"""

from __future__ import annotations

import importlib

import click

# name -> "module:attribute" of a click command or group. One explicit list: nothing registers itself.
COMMANDS: dict[str, str] = {
    "run": "tablewatch.table.cli:run",
    "demo": "tablewatch.bench.cli:demo",
    "bench": "tablewatch.bench.cli:bench",
    "replay": "tablewatch.rules.cli:replay",
    "bench-rules": "tablewatch.rules.cli:bench_rules",
    "rfid": "tablewatch.devices.cli:rfid",
    "console": "tablewatch.devices.cli:console",
    "bench-rfid": "tablewatch.bench.rfid:bench_rfid",
    "sim": "tablewatch.sim.cli:sim",
    "bench-sim": "tablewatch.sim.cli:bench_sim",
    "calibrate": "tablewatch.calibration.cli:calibrate",
    "cards": "tablewatch.vision.cli:cards",
    "bench-vision": "tablewatch.bench.card_reader:bench_vision",
    "train": "tablewatch.models.cli:train",
    "evaluate": "tablewatch.models.cli:evaluate",
    "floor": "tablewatch.alerts.cli:floor",
    "broker": "tablewatch.alerts.cli:broker",
    "web": "tablewatch.alerts.cli:web",
    "bench-mqtt": "tablewatch.bench.mqtt:bench_mqtt",
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


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="tablewatch")
def cli() -> None:
    """tablewatch: a live poker table monitor."""


def main() -> None:
    cli()
