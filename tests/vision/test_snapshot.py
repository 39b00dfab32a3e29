"""The snapshot reader's geometry on synthetic tables (known truth), its chip sets, and its errors."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from tablewatch.cli import cli
from tablewatch.images import ImageError
from tablewatch.vision.snapshot import faces, seats, shapes
from tablewatch.vision.snapshot.chipset import ChipSetError, default_chip_set, parse_chip_set
from tablewatch.vision.snapshot.discs import find_discs, name_discs
from tablewatch.vision.snapshot.still import load_still
from tablewatch.vision.snapshot.table import find_table
from tests.support.images import huge_png
from tests.vision.snapshot_scene import CARD_PX, CHIP_RADIUS_PX, Scene, card_sprite, lay_card, lay_chip, table_scene


@pytest.fixture(scope="module")
def scene() -> Scene:
    return table_scene()


@pytest.fixture(scope="module")
def found(scene: Scene, tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """The geometry steps run once on the synthetic table (through a JPEG file, as a photo comes)."""
    path = tmp_path_factory.mktemp("scene") / "table.jpg"
    cv2.imwrite(str(path), scene.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    still = load_still(path)
    table = find_table(still.geometry)
    grey = cv2.cvtColor(still.geometry, cv2.COLOR_BGR2GRAY)
    segments = shapes.line_segments(grey, table.z, table.mask)
    width = shapes.card_width(segments, max(grey.shape))
    assert width is not None
    cards = shapes.find_cards(segments, width, table.objects, table.mask)
    shapes.stack_cards(cards)
    scale = still.geometry.shape[1] / scene.image.shape[1]  # scene px -> geometry px
    discs = find_discs(still.geometry, table, width, [c.corners for c in cards])
    return {"path": path, "still": still, "table": table, "width": width, "cards": cards, "scale": scale,
            "discs": discs}


def test_the_table_is_found_without_markers(scene: Scene, found: dict[str, object]) -> None:
    table, scale = found["table"], found["scale"]
    x0, y0, x1, y1 = (v * scale for v in scene.table)  # type: ignore[operator]
    truth = np.zeros(table.mask.shape, np.uint8)  # type: ignore[attr-defined]
    cv2.rectangle(truth, (round(x0), round(y0)), (round(x1), round(y1)), 1, -1)
    mask = table.mask  # type: ignore[attr-defined]
    iou = (mask & truth).sum() / (mask | truth).sum()
    assert iou > 0.95
    assert table.found_by == "surface"  # type: ignore[attr-defined]


def test_the_card_size_comes_from_the_edges(found: dict[str, object]) -> None:
    expected = CARD_PX[0] * found["scale"]  # type: ignore[operator]
    assert found["width"] == pytest.approx(expected, rel=0.06)


def test_each_card_is_one_rectangle(scene: Scene, found: dict[str, object]) -> None:
    cards: list[shapes.CardShape] = found["cards"]  # type: ignore[assignment]
    scale: float = found["scale"]  # type: ignore[assignment]
    width: float = found["width"]  # type: ignore[assignment]
    truth = [c.mean(axis=0) * scale for c in scene.cards]
    centres = [np.array(c.centre) for c in cards]
    assert len(cards) == len(truth)
    for t in truth:  # each laid card is found exactly once, at its place
        assert sum(np.linalg.norm(c - t) < 0.2 * width for c in centres) == 1
    for c in cards:  # a card found is a card's size and shape
        assert c.width == pytest.approx(width, rel=0.1)
        assert np.linalg.norm(c.corners[3] - c.corners[0]) / c.width == pytest.approx(shapes.ASPECT, rel=0.1)


def test_the_card_on_top_is_told_from_the_one_under_it(scene: Scene, found: dict[str, object]) -> None:
    cards: list[shapes.CardShape] = found["cards"]  # type: ignore[assignment]
    scale: float = found["scale"]  # type: ignore[assignment]

    def nearest(k: int) -> int:
        centre = scene.cards[k].mean(axis=0) * scale
        return int(np.argmin([np.linalg.norm(np.array(c.centre) - centre) for c in cards]))

    under, over = nearest(5), nearest(6)  # the fanned hand: card 6 was laid on card 5
    assert over in cards[under].covered_by
    assert under not in cards[over].covered_by


def test_chips_are_discs_and_never_cards(scene: Scene, found: dict[str, object]) -> None:
    discs = [d for d in found["discs"] if d.kind == "chip"]  # type: ignore[attr-defined]
    scale: float = found["scale"]  # type: ignore[assignment]
    cards: list[shapes.CardShape] = found["cards"]  # type: ignore[assignment]
    assert len(discs) == len(scene.chips)
    for x, y, _colour in scene.chips:
        assert any(np.hypot(d.x - x * scale, d.y - y * scale) < 0.3 * CHIP_RADIUS_PX * scale for d in discs)
    for x, y, _colour in scene.chips:  # no card rectangle lies on a chip
        for card in cards:
            inside = cv2.pointPolygonTest(card.polygon().reshape(-1, 1, 2), (x * scale, y * scale), False)
            assert inside < 0
    named = name_discs(discs, found["still"].geometry, default_chip_set(), None)  # type: ignore[attr-defined]
    assert sorted(d.colour for d in named) == sorted(c for _x, _y, c in scene.chips)


def test_a_chip_sized_disc_on_a_card_is_not_a_chip(tmp_path: Path) -> None:
    scene = table_scene(seed=1)
    centre = scene.cards[2].mean(axis=0)  # the board's middle card: a big round mark on it, chip-sized
    cv2.circle(scene.image, (round(centre[0]), round(centre[1])), round(CHIP_RADIUS_PX), (30, 30, 200), -1)
    path = tmp_path / "mark.jpg"
    cv2.imwrite(str(path), scene.image)
    still = load_still(path)
    table = find_table(still.geometry)
    grey = cv2.cvtColor(still.geometry, cv2.COLOR_BGR2GRAY)
    segments = shapes.line_segments(grey, table.z, table.mask)
    width = shapes.card_width(segments, max(grey.shape))
    cards = shapes.find_cards(segments, width or 0, table.objects, table.mask)
    discs = find_discs(still.geometry, table, width, [c.corners for c in cards])
    scale = still.geometry.shape[1] / scene.image.shape[1]
    assert not any(np.hypot(d.x - centre[0] * scale, d.y - centre[1] * scale) < CHIP_RADIUS_PX * scale
                   for d in discs)
    assert sum(d.kind == "chip" for d in discs) == len(scene.chips)


def test_an_index_is_found_only_in_a_paper_corner() -> None:
    face, _ = card_sprite("K", scale=4)
    back, _ = card_sprite(back=True, scale=4)
    corners = np.array([[0, 0], [face.shape[1], 0], [face.shape[1], face.shape[0]], [0, face.shape[0]]], np.float64)
    up = faces.rectify(face, corners)
    down = faces.rectify(back, corners)
    for which in (0, 1):
        box = faces.find_index(faces.corner_zone(up, which))
        assert box is not None
        width_mm = (box[2] - box[0]) / faces.PX_PER_MM
        assert faces.INDEX_MM[0][0] <= width_mm <= faces.INDEX_MM[0][1]
        assert faces.find_index(faces.corner_zone(down, which)) is None  # a back's pattern is no index
    blank = np.full_like(up, 250)
    assert faces.find_index(faces.corner_zone(blank, 0)) is None  # a corner with no print
    paper = faces.paper_colour(up)  # the reader takes the paper from the faces it read in the photo
    assert faces.shows_back(down, paper) and not faces.shows_back(up, paper)


def _zone(seed: int = 0) -> np.ndarray:
    """A blank index zone of slightly noisy paper, in the reader's own pixels."""
    zw, zh = (round(v * faces.PX_PER_MM) for v in faces.INDEX_ZONE_MM)
    noise = np.random.default_rng(seed).normal(0, 1.5, (zh, zw, 3))
    zone: np.ndarray = np.clip(np.array([235, 238, 240]) + noise, 0, 255).astype(np.uint8)
    return zone


def _diamond(zone: np.ndarray, centre: tuple[int, int], colour: tuple[int, int, int]) -> None:
    x, y = centre
    points = np.array([[x, y - 18], [x + 13, y], [x, y + 18], [x - 13, y]], np.int32)
    cv2.fillPoly(zone, [points], colour)


def test_a_faded_rank_over_a_bold_red_suit_is_still_an_index() -> None:
    # a washed-out photo: the rank's ink has faded to a pale pink, the suit's red is as saturated as ever
    zone = _zone()
    cv2.putText(zone, "7", (22, 78), cv2.FONT_HERSHEY_SIMPLEX, 2.0, (200, 200, 238), 5)
    _diamond(zone, (40, 110), (40, 30, 220))
    box = faces.find_index(zone)
    assert box is not None
    assert box[1] < 40 and box[3] > 120  # from the rank's top to the suit's foot


def test_a_blurred_rank_broken_into_pieces_is_one_glyph() -> None:
    zone = _zone(1)
    for top in (26, 38, 50, 62):  # a rank's stroke broken at the ink threshold into four pieces a millimetre apart
        cv2.rectangle(zone, (30, top), (44, top + 6), (40, 40, 40), -1)
    _diamond(zone, (38, 110), (40, 40, 40))
    box = faces.find_index(zone)
    assert box is not None
    assert box[1] <= 26 and box[3] >= 128


def test_stretching_a_red_index_keeps_the_paper_white_and_the_ink_red() -> None:
    zone = _zone(2)
    _diamond(zone, (38, 110), (60, 60, 225))
    stretched = faces._stretch(zone, zone).astype(np.float32)
    paper = stretched[5:60, 5:20].reshape(-1, 3)
    assert paper.mean(axis=0).min() > 235  # white, not tinted
    assert paper.std(axis=0).max() < 8  # the paper's noise is not blown up in the channel the ink hardly darkens
    b, g, r = stretched[110, 38]
    assert r > 200 and g < 80 and b < 80


def test_the_index_zone_follows_the_card(found: dict[str, object]) -> None:
    corners = np.array([[100, 100], [163, 100], [163, 188], [100, 188]], np.float32)
    zone = faces.zone_polygon(corners, 0)
    assert zone[0].tolist() == [100, 100]
    assert zone[2] == pytest.approx([100 + faces.INDEX_ZONE_MM[0], 100 + faces.INDEX_ZONE_MM[1]])
    opposite = faces.zone_polygon(corners, 1)
    assert opposite[0].tolist() == [163, 188]


def test_board_and_hands(scene: Scene, found: dict[str, object]) -> None:
    cards: list[shapes.CardShape] = found["cards"]  # type: ignore[assignment]
    placed = [seats.placed(c.corners) for c in cards]
    board = seats.find_board(placed, [True] * len(cards))
    assert len(board) == 5
    xs = [placed[i].centre[0] for i in board]
    assert xs == sorted(xs)  # left to right
    hands = seats.find_hands(placed, set(board))
    assert sorted(len(h) for h in hands) == [2, 2]
    middle = np.mean([p.centre for p in placed], axis=0)
    centres = [np.mean([placed[i].centre for i in h], axis=0) for h in hands]
    order = seats.seat_order(centres, middle, np.mean([placed[i].centre for i in board], axis=0))
    # the board at the bottom: the right-hand side comes first
    assert centres[order[0]][0] > centres[order[1]][0]


def test_the_whole_reader_on_a_synthetic_table(found: dict[str, object], tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["snapshot", str(found["path"]), "--json", "--annotate", str(tmp_path),
                                      "--chips", "red=5,blue=25,green=100,black=500"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert payload["chips"] == {"black": 1, "blue": 1, "green": 1, "red": 2}
    assert payload["chips_total"] == 2 * 5 + 25 + 100 + 500
    assert len(payload["board"]) == 5
    assert sum(p["face_down"] for p in payload["players"]) == 2
    picture = tmp_path / "table.snapshot.jpg"
    assert cv2.imread(str(picture)) is not None


def test_chip_sets() -> None:
    inline = parse_chip_set("white=1, red=5,blue=10")
    assert [c.name for c in inline.colours] == ["white", "red", "blue"]
    assert inline.value_of("red") == 5 and inline.has_values
    assert inline.name((240.0, 128.0, 128.0)) == "white"
    assert inline.name((90.0, 170.0, 150.0)) == "red"
    with pytest.raises(ChipSetError, match="colour=value"):
        parse_chip_set("red")
    with pytest.raises(ChipSetError, match="not a number"):
        parse_chip_set("red=five")
    with pytest.raises(ChipSetError, match="not a named colour"):
        parse_chip_set("teal=5")
    with pytest.raises(ChipSetError, match="twice"):
        parse_chip_set("red=5,red=10")
    default = default_chip_set()
    assert not default.has_values
    assert default.name((20.0, 128.0, 128.0)) == "black"
    assert default.name((130.0, 100.0, 115.0)) == "green"  # teal: green is the set's nearest hue


def test_a_chip_set_file(tmp_path: Path) -> None:
    path = tmp_path / "chips.toml"
    path.write_text('[[chip]]\ncolour = "teal"\nvalue = 25\nbgr = [120, 110, 20]\n'
                    '[[chip]]\ncolour = "red"\nvalue = 5\n', encoding="utf-8")
    chip_set = parse_chip_set(path)
    assert chip_set.value_of("teal") == 25
    teal = cv2.cvtColor(np.uint8([[[120, 110, 20]]]), cv2.COLOR_BGR2Lab).reshape(3).astype(float)
    assert chip_set.name(teal) == "teal"
    assert chip_set.name((240.0, 128.0, 128.0)) == "other"  # the set has no white
    (tmp_path / "bad.toml").write_text("chip = 3\n", encoding="utf-8")
    with pytest.raises(ChipSetError, match=r"\[\[chip\]\]"):
        parse_chip_set(tmp_path / "bad.toml")
    with pytest.raises(ChipSetError, match="not found"):
        parse_chip_set(tmp_path / "missing.toml")


def test_bad_images_are_refused_clearly(tmp_path: Path) -> None:
    huge = tmp_path / "huge.png"
    huge.write_bytes(huge_png())
    with pytest.raises(ImageError, match="megapixels"):
        load_still(huge)
    text = tmp_path / "notes.jpg"
    text.write_text("not a picture", encoding="utf-8")
    with pytest.raises(ImageError, match="not a readable image"):
        load_still(text)
    with pytest.raises(ImageError, match="not found"):
        load_still(tmp_path / "missing.jpg")


def test_the_command_says_what_is_wrong(tmp_path: Path) -> None:
    huge = tmp_path / "huge.png"
    huge.write_bytes(huge_png())
    result = CliRunner().invoke(cli, ["snapshot", str(huge)])
    assert result.exit_code == 1 and "megapixels" in result.output
    result = CliRunner().invoke(cli, ["snapshot", str(tmp_path / "missing.jpg")])
    assert result.exit_code == 1 and "not found" in result.output
    empty = tmp_path / "empty"
    empty.mkdir()
    result = CliRunner().invoke(cli, ["snapshot", str(empty)])
    assert result.exit_code == 1 and "no images" in result.output
    result = CliRunner().invoke(cli, ["snapshot", str(huge), "--chips", "purple=x"])
    assert result.exit_code == 1 and "not a number" in result.output


def test_one_bad_image_among_several(tmp_path: Path) -> None:
    scene = table_scene(seed=2)
    good = tmp_path / "a.jpg"
    cv2.imwrite(str(good), scene.image)
    bad = tmp_path / "b.jpg"
    bad.write_text("not a picture", encoding="utf-8")
    result = CliRunner().invoke(cli, ["snapshot", str(tmp_path), "--json"])
    assert result.exit_code == 1
    payload = json.loads(result.stdout)
    assert [p.get("error") is None for p in payload] == [True, False]
    assert "1 of 2 images" in result.output


def test_a_lone_card_turned_unlike_the_rest_is_found(tmp_path: Path) -> None:
    scene = table_scene(seed=3)
    lay_card(scene, (1000, 650), 37.0, rank="5")
    lay_chip(scene, (1150, 700), "blue")
    path = tmp_path / "lone.jpg"
    cv2.imwrite(str(path), scene.image)
    still = load_still(path)
    table = find_table(still.geometry)
    grey = cv2.cvtColor(still.geometry, cv2.COLOR_BGR2GRAY)
    segments = shapes.line_segments(grey, table.z, table.mask)
    width = shapes.card_width(segments, max(grey.shape))
    cards = shapes.find_cards(segments, width or 0, table.objects, table.mask)
    scale = still.geometry.shape[1] / scene.image.shape[1]
    target = np.array([1000, 650]) * scale
    assert sum(np.linalg.norm(np.array(c.centre) - target) < 0.2 * (width or 0) for c in cards) == 1


def test_markers_and_the_dealer_button(tmp_path: Path) -> None:
    """With ArUco markers on the table, its region is theirs; a larger white disc is the button, not a chip."""
    from tablewatch.vision.snapshot.reader import SnapshotReader

    scene = table_scene(seed=4)
    x0, y0, x1, y1 = scene.table
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    side = 70
    for k, (mx, my) in enumerate(((x0 + 20, y0 + 20), (x1 - 20 - side, y0 + 20), (x1 - 20 - side, y1 - 20 - side),
                                  (x0 + 20, y1 - 20 - side))):
        marker = cv2.aruco.generateImageMarker(dictionary, k, side - 20)
        scene.image[my:my + side, mx:mx + side] = 255
        scene.image[my + 10:my + side - 10, mx + 10:mx + side - 10] = marker[..., None]
    button = (1000, 700)
    radius = round(0.55 * CARD_PX[0])
    cv2.circle(scene.image, (button[0] + 2, button[1] + 2), radius, (120, 130, 140), -1, cv2.LINE_AA)
    cv2.circle(scene.image, button, radius, (245, 245, 245), -1, cv2.LINE_AA)
    cv2.putText(scene.image, "D", (button[0] - 18, button[1] + 18), cv2.FONT_HERSHEY_SIMPLEX, 1.6, (20, 20, 20), 4)
    path = tmp_path / "markers.jpg"
    cv2.imwrite(str(path), scene.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    shot = SnapshotReader().read(path)
    assert shot.table_found_by == "markers"
    assert shot.button is not None and np.hypot(shot.button[0] - button[0], shot.button[1] - button[1]) < 10
    assert shot.chip_counts() == {"black": 1, "blue": 1, "green": 1, "red": 2}
