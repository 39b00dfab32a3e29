"""The hand store: SQLite (default) and the real PostgreSQL at 127.0.0.1:5432, database ``test``."""

from __future__ import annotations

import dataclasses
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from pokerkit import HandHistory

from tablewatch.history.stats import by_dealer, by_player, by_table, read_facts
from tablewatch.history.store import HandStore, StoreError, open_store
from tests.history.test_phh_ohh import played_hand
from tests.support.postgres import connect_or_skip

PG_URL = "postgresql://postgres@127.0.0.1:5432/test"


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[HandStore]:
    if request.param == "sqlite":
        hands = open_store(tmp_path / "hands.sqlite")
        yield hands
        hands.close()
        return
    connect_or_skip(PG_URL).close()
    table = f"tw_test_{uuid.uuid4().hex[:10]}"
    hands = open_store(PG_URL, table=table)
    try:
        yield hands
    finally:
        for name in (table, *hands.rollup.table_names()):
            hands.db.execute(f"DROP TABLE IF EXISTS {name}")  # type: ignore[attr-defined]
        hands.close()


def test_save_get_list_and_replace(store: HandStore) -> None:
    done = played_hand()
    store.save(done)
    store.save(done)  # idempotent per (table, hand number)
    assert store.count() == 1
    got = store.get("T", 1)
    assert got is not None and got.violations == len(done.violations)
    assert got.phh.startswith("variant = 'NT'") and got.ohh["ohh"]["table_name"] == "T"
    assert [h.hand_no for h in store.list("T")] == [1] and store.get("T", 2) is None


def test_stored_phh_replays_in_pokerkit(store: HandStore) -> None:
    from tests.history.test_phh_ohh import replay_in_pokerkit

    store.save(played_hand())
    [(_, state)] = replay_in_pokerkit(store.get("T", 1).phh)  # type: ignore[union-attr]
    assert not state.status


def test_bad_store_urls_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="Unknown hand store URL"):
        open_store("mysql://x/y")
    with pytest.raises(StoreError, match="table name"):
        open_store(tmp_path / "x.sqlite", table="hands; drop")
    with pytest.raises(StoreError, match="Cannot open the SQLite hand store"):
        open_store(tmp_path / "file.txt" / "sub" / "x.sqlite") if (tmp_path / "file.txt").write_text("x") else None
    with pytest.raises(StoreError, match="Cannot open the PostgreSQL hand store"):
        open_store("postgresql://nobody:secret@127.0.0.1:1/none")


def test_a_store_opened_in_one_thread_saves_from_the_pipelines(tmp_path: Path) -> None:
    store = open_store(tmp_path / "hands.sqlite")
    failures: list[BaseException] = []

    def save() -> None:
        try:
            store.save(played_hand())
        except BaseException as exc:  # reported to the test's thread
            failures.append(exc)

    worker = threading.Thread(target=save)
    worker.start()
    worker.join()
    assert failures == []
    assert store.count() == 1
    store.close()


def test_the_rollup_gives_the_figures_the_hand_histories_give(store: HandStore) -> None:
    hand = played_hand()
    for number, dealer in enumerate(("Ann Lee", "Bo", None, "Bo"), start=1):
        store.save(dataclasses.replace(hand, hand_no=number, dealer=dealer, started_ts=hand.started_ts + 60 * number,
                                       ended_ts=(hand.ended_ts or 0) + 60 * number))
    store.save(dataclasses.replace(hand, hand_no=2, dealer="Bo", violations=()))  # saved again: replaced
    facts, problems = read_facts((name, HandHistory.loads(text)) for name, text in store.texts())
    assert store.rollup.hands() == store.count() == 4 and not problems
    assert [p.row() for p in store.rollup.players()] == [p.row() for p in by_player(facts)]
    assert [p.row() for p in store.rollup.paces("dealer")] == [p.row() for p in by_dealer(facts)]
    assert [p.row() for p in store.rollup.paces("table", "T")] == [p.row() for p in by_table(facts)]
    assert store.rollup.paces("table", "other") == []


def test_every_hand_is_read_back_for_the_statistics(store: HandStore) -> None:
    store.save(played_hand())
    [(name, phh)] = list(store.texts())
    assert name == "T#1" and phh == store.get("T", 1).phh  # type: ignore[union-attr]
    assert [n for n, _ in store.texts("T")] == ["T#1"] and not list(store.texts("other table"))
