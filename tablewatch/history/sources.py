"""Where hands are read from: a hand store (a table's hands.sqlite, sqlite:///…, postgresql://…), PHH files,
folders of them, or patterns; for ``tablewatch stats`` and ``tablewatch hands export``."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import click
from pokerkit import HandHistory

from tablewatch.history.store import HandStore, StoreError, is_store_url, open_store
from tablewatch.phhfile import PhhError, parse_section, phh_files, split_sections

SQLITE_MAGIC = b"SQLite format 3\x00"


def histories(sources: tuple[str, ...], table_id: str | None) -> Iterator[tuple[str, HandHistory]]:
    """(name, hand) of every hand of the sources (a store's of ``table_id`` only)."""
    return ((name, hh) for name, _, hh in hand_sections(sources, table_id))


def hand_sections(sources: tuple[str, ...], table_id: str | None) -> Iterator[tuple[str, str, HandHistory]]:
    """(name, PHH text, hand) of every hand of the sources; a hand that can't be read stops with its error."""
    for source in sources:
        for name, text in hand_texts(source, table_id):
            sections = split_sections(text)
            for section in sections:
                try:
                    hh = parse_section(section, name)
                except PhhError as exc:
                    raise click.ClickException(str(exc)) from exc
                yield (name if len(sections) == 1 else f"{name}#{section.name}"), section.text, hh


def hand_texts(source: str, table_id: str | None) -> Iterator[tuple[str, str]]:
    """(name, PHH text) of each hand file or stored hand in ``source``."""
    path = Path(source)
    if is_store(source):
        store = open_source(source)
        try:
            yield from store.texts(table_id)
        finally:
            store.close()
        return
    files = phh_files([path])
    for file in files:
        try:
            yield file.name, file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise click.ClickException(f"{file}: cannot read ({exc})") from exc


def utc_seconds(moment: datetime | None) -> float | None:
    """A ``--since``/``--until`` moment (read as UTC) in Unix seconds; None for none."""
    return None if moment is None else moment.replace(tzinfo=UTC).timestamp()


def is_store(source: str) -> bool:
    return is_store_url(source) or _is_sqlite(Path(source))


def open_source(source: str) -> HandStore:
    try:
        return open_store(source)
    except StoreError as exc:
        raise click.ClickException(str(exc)) from exc


def _is_sqlite(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return handle.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return False
