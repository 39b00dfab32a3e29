"""A venue's own deck registered from photos (`tablewatch deck register`): each card found and flattened, the
atlas written in the shipped decks' layout, and read back as a camera's deck."""

from __future__ import annotations

import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from tablewatch.calibration.decks import FACE_H, FACE_W, load_deck
from tablewatch.calibration.decks.register import (
    DeckPhotoError,
    RegisteredCard,
    build_atlas,
    card_code,
    find_card,
    flatten_card,
    register_photo,
)
from tablewatch.cli import cli
from tests.support.card_photos import FELT_BGR, photograph, photograph_deck

POKER_ASPECT = 88 / 63


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return photograph_deck("plastic", tmp_path_factory.mktemp("plastic-photos"))


def _likeness(a: np.ndarray, b: np.ndarray) -> float:
    """Normalised correlation of two faces at half size, either way up (a card has no up)."""
    small = [cv2.resize(x[..., :3], (FACE_W // 2, FACE_H // 2), interpolation=cv2.INTER_AREA).astype(np.float32)
             for x in (a, b)]
    first, second = (x.reshape(-1) - x.mean() for x in small)
    turned = small[0][::-1, ::-1].reshape(-1) - small[0].mean()
    norm = np.linalg.norm(first) * np.linalg.norm(second)
    return float(max(first @ second, turned @ second) / norm)


@pytest.mark.parametrize(("stem", "code"), [("As", "As"), ("AS", "As"), ("10d", "Td"), ("td", "Td"), ("back", "back"),
                                            ("BACK", "back"), ("1d", None), ("Ax", None), ("joker", None)])
def test_a_photo_names_its_card(stem: str, code: str | None) -> None:
    assert card_code(stem) == code


def test_the_cards_corners_are_found_on_a_turned_tilted_photo() -> None:
    rng = np.random.default_rng(7)
    for code in ("As", "Td", "Kh", "back"):
        photo, truth = photograph(load_deck("plastic")[code], rng)
        found = find_card(photo)
        error = min(np.abs(np.roll(found, k, axis=0) - truth).max() for k in range(4))
        assert error < 4, code  # px, on a card ~300 px wide


def test_a_registered_deck_is_the_deck_photographed(photos: Path, tmp_path: Path) -> None:
    atlas = tmp_path / "venue-deck.png"
    result = CliRunner().invoke(cli, ["deck", "register", str(photos), "-o", str(atlas)])
    assert result.exit_code == 0, result.output
    assert "53 cards registered" in result.output

    registered, shipped = load_deck(str(atlas)), load_deck("plastic")
    assert set(registered) == set(shipped)
    assert all(face.shape == (FACE_H, FACE_W, 4) for face in registered.values())
    faces = [code for code in shipped if code != "back"]
    for code in faces:  # every registered face is more like its own card than like any other
        best = max(faces, key=lambda other: _likeness(registered[code], shipped[other]))
        assert best == code
    assert _likeness(registered["back"], shipped["back"]) > 0.6


def test_missing_and_doubled_cards_are_named() -> None:
    shipped = load_deck("plastic")
    cards = [RegisteredCard(code=code, photo=Path(f"{code}.jpg"), face=face[..., :3], index_found=True)
             for code, face in shipped.items() if code not in ("7c", "back")]
    with pytest.raises(DeckPhotoError, match="2 card\\(s\\) have no photo: 7c back"):
        build_atlas(cards)
    doubled = RegisteredCard(code="As", photo=Path("AS.png"), face=shipped["As"][..., :3], index_found=True)
    with pytest.raises(DeckPhotoError, match=r"As is given twice: As\.jpg and AS\.png"):
        build_atlas([*cards, doubled])


def test_every_photo_that_cant_be_used_is_named_and_nothing_is_written(photos: Path, tmp_path: Path) -> None:
    folder = tmp_path / "photos"
    folder.mkdir()
    shutil.copy(photos / "Kd.jpg", folder / "king.jpg")
    shutil.copy(photos / "Kd.jpg", folder / "Kd.jpg")
    cv2.imwrite(str(folder / "Qs.jpg"), np.full((600, 800, 3), FELT_BGR, np.uint8))
    result = CliRunner().invoke(cli, ["deck", "register", str(folder), "-o", str(tmp_path / "deck.png")])
    assert result.exit_code == 1
    assert "king.jpg: name the file by its card" in result.output and "Qs.jpg: no card found" in result.output
    assert not (tmp_path / "deck.png").exists()


def test_a_photo_that_is_no_image_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "Jh.jpg").write_bytes(b"not a jpeg")
    with pytest.raises(DeckPhotoError, match=r"not a readable image .*Jh\.jpg"):
        register_photo(tmp_path / "Jh.jpg")


def test_a_real_card_on_a_wooden_table_is_found_edge_to_edge(shared_dir: Path) -> None:
    """The five board cards of a real 6000 × 4000 photo straight down onto a wooden table, each cut out with
    some wood around it and slivers of its neighbours at the sides, as a phone photo of one card would be."""
    photo = cv2.imread(str(shared_dir / "data" / "table-photos" / "train_01.jpg"))
    for centre_x in (1860, 2390, 2890, 3390, 3890):  # 9h 8c 2h 4c Js, at y 3350
        crop = photo[2950:3750, centre_x - 270 : centre_x + 270]
        corners = find_card(crop)
        sides = np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)
        assert (sides[1] + sides[3]) / (sides[0] + sides[2]) == pytest.approx(POKER_ASPECT, rel=0.03)
        face = flatten_card(crop, corners)
        rim = np.concatenate([face[3:6, 10:-10].reshape(-1, 3), face[-6:-3, 10:-10].reshape(-1, 3)])
        assert rim.min(axis=1).mean() > 180, centre_x  # paper, not the wood (whose blue channel is dark)


def test_a_deck_file_that_is_missing_or_no_atlas_is_named(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="tablewatch deck register"):
        load_deck(str(tmp_path / "venue-deck.png"))
    cv2.imwrite(str(tmp_path / "photo.png"), np.zeros((100, 100, 3), np.uint8))
    with pytest.raises(FileNotFoundError, match="is no deck atlas"):
        load_deck(str(tmp_path / "photo.png"))
