"""``tablewatch run``: one live table."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console

console = Console(highlight=False)


@click.command()
@click.argument("config_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--duration", type=float, default=None, help="Stop after this many seconds (default: until Ctrl-C).")
@click.option("--validate", is_flag=True, help="Check the configuration file and exit.")
@click.option("--out", "out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where events, alerts, hands and evidence go (default: the configuration's `out`).")
@click.option("--fast", is_flag=True, help="Play the configuration's recording ([replay]) as fast as the monitor "
              "can, with the results of the recorded pace.")
def run(config_file: Path, duration: float | None, validate: bool, out: Path | None, fast: bool) -> None:
    """Run one live table from CONFIG_FILE (TOML or YAML: readers, console, cameras, broker, game, rules).

    A configuration with a [replay] section (as `tablewatch sim record` writes) plays a recording of the
    table's devices through the real drivers, at the recorded pace (or as fast as vision and the readers go, with
    the same readings at the same moments of the recording: --fast), and exits when it ends. Each hand's start,
    seats, button, stacks and end are found from the devices (the hand framer), live or replayed.
    """
    from tablewatch.config import ConfigError
    from tablewatch.table.run import load_run_config, run_table

    try:
        config = load_run_config(config_file)
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from exc
    if out is not None:
        config = config.model_copy(update={"out": out})
    if fast and config.replay is None:
        raise click.UsageError(f"--fast plays a recording: {config_file} has no [replay] section.")
    if validate:
        console.print(f"{config_file}: valid (table {config.table}, {len(config.readers)} reader line(s), "
                      f"{len(config.cameras)} camera(s))")
        return
    run_table(config, console=console, duration=duration, fast=fast)
