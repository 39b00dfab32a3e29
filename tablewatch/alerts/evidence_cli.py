"""``tablewatch evidence``: prune the evidence folder, keep alerts' evidence from pruning, verify a case-file bundle."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

import click

from tablewatch.alerts.bundle import verify_bundle
from tablewatch.alerts.retention import KeepList, KeepListError, RetentionConfig, prune

FOLDER = click.Path(exists=True, file_okay=False, path_type=Path)


def _limit(ctx: click.Context, param: click.Parameter, value: str) -> float | None:
    """A positive number, or ``none`` for no limit."""
    if value.lower() == "none":
        return None
    try:
        number = float(value)
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a number (or 'none')", ctx, param) from None
    if not number > 0:  # also NaN
        raise click.BadParameter(f"{value!r} must be above 0 (or 'none' for no limit)", ctx, param)
    return number


@click.group()
def evidence() -> None:
    """Evidence stills and clips: retention, the keep list, case-file bundles."""


@evidence.command(name="prune")
@click.argument("folder", type=FOLDER)
@click.option("--max-age-days", default="30", callback=_limit, metavar="DAYS|none", show_default=True,
              help="remove alerts' evidence older than this ('none': any age)")
@click.option("--max-size-gb", default="none", callback=_limit, metavar="GB|none", show_default=True,
              help="then remove the oldest until the folder holds at most this (GB of 10^9 bytes)")
@click.option("--dry-run", is_flag=True, help="say what would be removed, remove nothing")
def prune_command(folder: Path, max_age_days: float | None, max_size_gb: float | None, dry_run: bool) -> None:
    """Remove old evidence from FOLDER, sparing the alerts on its keep list (kept.json)."""
    config = RetentionConfig(max_age_days=max_age_days, max_size_gb=max_size_gb)
    try:
        report = prune(folder, config, kept=KeepList.beside(folder), dry_run=dry_run)
    except (KeepListError, OSError) as exc:
        raise click.ClickException(str(exc)) from exc
    for path in report.removed:
        click.echo(f"{'would remove' if dry_run else 'removed'} {path.name}")
    click.echo(report.summary())
    if report.failed:
        raise SystemExit(1)


@evidence.command()
@click.argument("folder", type=FOLDER)
@click.argument("alert_ids", metavar="ID...", nargs=-1, required=True)
def keep(folder: Path, alert_ids: tuple[str, ...]) -> None:
    """Keep these alerts' evidence (al- ids), or hands' recordings (hd- ids), in FOLDER whatever its age or the
    folder's size."""
    added = _change(KeepList.beside(folder).keep, alert_ids)
    click.echo(f"kept {len(alert_ids)} alert(s) ({len(added)} new) in {KeepList.beside(folder).path}")


@evidence.command()
@click.argument("folder", type=FOLDER)
@click.argument("alert_ids", metavar="ID...", nargs=-1, required=True)
def release(folder: Path, alert_ids: tuple[str, ...]) -> None:
    """Let retention remove these alerts' evidence (or hands' recordings) again."""
    released = _change(KeepList.beside(folder).release, alert_ids)
    unknown = sorted(set(alert_ids) - released)
    click.echo(f"released {len(released)} alert(s)" + (f"; not kept: {', '.join(unknown)}" if unknown else ""))


def _change(change: Callable[[Iterable[str]], frozenset[str]], alert_ids: tuple[str, ...]) -> frozenset[str]:
    try:
        return change(alert_ids)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="ID") from exc
    except KeepListError as exc:
        raise click.ClickException(str(exc)) from exc


@evidence.command()
@click.argument("bundle", type=click.Path(exists=True, file_okay=False, path_type=Path))
def verify(bundle: Path) -> None:
    """Check a case-file bundle against its manifest: exit 0 when intact, 1 with the problems."""
    problems = verify_bundle(bundle)
    if not problems:
        click.echo(f"{bundle}: intact")
        return
    for problem in problems:
        click.echo(f"{bundle.name}: {problem}")
    raise SystemExit(1)
