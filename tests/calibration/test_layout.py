"""Layouts: the shipped templates, zone look-up for points and boxes, and validation errors."""

from __future__ import annotations

import tomllib
from pathlib import Path

import cv2
import numpy as np
import pytest
import yaml

from tablewatch import events
from tablewatch.calibration.layout import (
    BUTTON_CLEAR_MM,
    BUTTON_GAP_MM,
    LAYOUTS_DIR,
    LayoutError,
    TableLayout,
    available_layouts,
    button_disc,
    layout_to_toml,
    load_layout,
)
from tablewatch.calibration.templates import SPECS, build_template


@pytest.mark.parametrize("name", ["oval10", "oval9", "oval6"])
def test_templates_load_with_every_seat_zone_and_line(name: str) -> None:
    layout = load_layout(name)
    seats = SPECS[name].seats
    assert layout.seat_numbers == list(range(1, seats + 1))
    for n in layout.seat_numbers:
        assert {f"seat{n}.stack", f"seat{n}.bet"} <= set(layout.zones)
        assert len(layout.polygon(f"seat{n}.line")) >= 2
    assert {"pot", "board", "burn", "muck", "tray", "dealer"} <= set(layout.zones)
    assert [f"board.{k}" for k in range(5)] == [z for z in layout.zones if z.startswith("board.")]
    assert len(layout.markers) == 6


@pytest.mark.parametrize("name", sorted(SPECS))
def test_shipped_files_are_what_the_generator_builds(name: str) -> None:
    assert (LAYOUTS_DIR / f"{name}.toml").read_text(encoding="utf-8") == layout_to_toml(build_template(name))


def test_ten_seat_table_is_about_2600_by_1300_mm(oval10: TableLayout) -> None:
    x0, y0, x1, y1 = oval10.extent
    assert x1 - x0 == pytest.approx(2600, abs=1)
    assert y1 - y0 == pytest.approx(1300, abs=1)


@pytest.mark.parametrize(
    ("point", "zone"),
    [
        ((0, 0), "board.2"),
        ((-180, 0), "board.0"),
        ((180, 20), "board.4"),
        ((-135, 60), "board"),  # between the slot and the board's edge
        ((-310, 0), "burn"),
        ((310, 0), "muck"),
        ((0, 150), "pot"),
        ((0, 480), "tray"),
        ((-350, 350), "dealer"),
        ((-250, -450), "seat5.stack"),
        ((-250, -300), "seat5.bet"),
        ((250, -300), "seat6.bet"),
        ((0, -450), "felt"),  # the gap between seats 5 and 6
        ((0, -590), "rail"),
        ((0, -700), "off_table"),
        ((-1240, 0), "rail"),  # marker 0 sits on the rail
        ((-1150, 0), "felt"),  # the gap between seats 2 and 3 at the end of the table
        ((-1100, -200), "seat3.stack"),
        ((1100, 200), "seat9.stack"),
        ((-600, 460), "seat1.stack"),
        ((600, 300), "seat10.bet"),
    ],
)
def test_zone_at_known_points(oval10: TableLayout, point: tuple[float, float], zone: str) -> None:
    assert oval10.zone_at(*point) == zone


def test_zones_at_agrees_with_zone_at(oval10: TableLayout) -> None:
    rng = np.random.default_rng(1)
    points = rng.uniform([-1400, -750], [1400, 750], size=(400, 2))
    assert oval10.zones_at(points) == [oval10.zone_at(x, y) for x, y in points]


def test_seat_zones_follow_seat_order_clockwise_from_the_dealers_left(oval10: TableLayout) -> None:
    centres = [oval10.polygon(f"seat{n}.stack").mean(axis=0) for n in oval10.seat_numbers]
    # Seen from above (y towards the dealer, drawn downwards) the angle about the centre grows clockwise.
    angles = np.unwrap([np.arctan2(c[1], c[0]) for c in centres])
    assert np.all(np.diff(angles) > 0)
    assert centres[0][0] < 0 < centres[-1][0]  # seat 1 left of the dealer, seat 10 right
    assert all(c[1] > 0 for c in (centres[0], centres[-1]))  # both on the dealer's side


def test_zones_for_box_gives_the_share_of_the_box_in_each_zone(oval10: TableLayout) -> None:
    # A card-sized box straddling board slots 0 and 1: 60 % in slot 0, 30 % in slot 1, all of it in the board.
    shares = oval10.zones_for_box(-200, -50, -100, 50)
    assert shares == pytest.approx({"board": 1.0, "board.0": 0.6, "board.1": 0.3})
    # A box half over the rail's outer edge.
    shares = oval10.zones_for_box(-50, 600, 50, 700)
    assert shares["off_table"] == pytest.approx(0.5, abs=0.01)
    with pytest.raises(ValueError, match="Empty box"):
        oval10.zones_for_box(10, 10, 0, 20)


def test_zones_for_polygon_across_a_betting_line(oval10: TableLayout) -> None:
    # seat 5's line runs along y = -380 on the straight side: a chip box centred on it is half bet, half stack.
    shares = oval10.zones_for_polygon([(-270, -400), (-230, -400), (-230, -360), (-270, -360)])
    assert shares == pytest.approx({"seat5.stack": 0.5, "seat5.bet": 0.5}, abs=0.01)


def test_beyond_line_is_the_bet_side(oval10: TableLayout) -> None:
    assert oval10.beyond_line(5, -250, -300)  # in the bet area
    assert not oval10.beyond_line(5, -250, -450)  # in the stack area
    assert oval10.beyond_line(3, -900, 0)  # curved line at the end of the table
    assert not oval10.beyond_line(3, -1100, 0)


def test_zone_names_match_the_event_vocabulary(oval10: TableLayout) -> None:
    vocabulary = events.__doc__ or ""
    for name in ("seat3.stack", "seat3.bet", "pot", "board", "burn", "muck", "tray", "dealer", "off_table"):
        assert f"``{name}``" in vocabulary
        assert name in oval10.zones or name == "off_table"


def test_polygon_of_unknown_zone_names_the_zones(oval10: TableLayout) -> None:
    with pytest.raises(KeyError, match=r"no zone 'seat11\.bet'"):
        oval10.polygon("seat11.bet")
    with pytest.raises(KeyError, match="no seat 11"):
        oval10.polygon("seat11.line")


# --- validation ---------------------------------------------------------------------------------------


def _data(name: str = "oval10") -> dict:
    return tomllib.loads((LAYOUTS_DIR / f"{name}.toml").read_text(encoding="utf-8"))


def _error(data: dict) -> str:
    with pytest.raises(ValueError) as info:
        TableLayout.model_validate(data)
    return str(info.value)


def test_overlapping_zones_are_refused() -> None:
    data = _data()
    data["zones"]["muck"] = [[-100, -40], [100, -40], [100, 40], [-100, 40]]  # on top of the board
    message = _error(data)
    assert "zones 'board' and 'muck' overlap" in message
    assert "'board.1' and 'muck' overlap" in message


def test_a_board_slot_may_lie_inside_the_board_but_not_outside() -> None:
    data = _data()
    data["zones"]["board.4"] = [[200, -55], [280, -55], [280, 55], [200, 55]]
    message = _error(data)
    assert "board slot 'board.4' is not inside 'board'" in message


def test_a_seat_without_a_betting_line_is_refused() -> None:
    data = _data()
    data["seats"][2]["line"] = [[0, 0]]
    assert "seat 3 has no betting line" in _error(data)


def test_a_seat_without_its_bet_zone_is_refused() -> None:
    data = _data()
    del data["zones"]["seat4.bet"]
    assert "seat 4 has no bet zone (seat4.bet)" in _error(data)


def test_unknown_zone_names_are_refused_with_the_known_names() -> None:
    data = _data()
    data["zones"]["seat3.chips"] = data["zones"].pop("seat3.stack")
    data["zones"]["jackpot"] = [[-20, -20], [20, -20], [20, 20]]
    message = _error(data)
    assert "unknown zone name 'seat3.chips'" in message
    assert "unknown zone name 'jackpot'" in message
    assert "known names: seatN.stack, seatN.bet, pot" in message


def test_zones_of_a_missing_seat_and_missing_required_zones_are_refused() -> None:
    data = _data("oval6")
    data["zones"]["seat7.stack"] = [[-20, -20], [20, -20], [20, 20]]
    del data["zones"]["burn"]
    message = _error(data)
    assert "zone 'seat7.stack' belongs to seat 7, which the layout does not have" in message
    assert "the required zone 'burn' is missing" in message


def test_a_zone_beyond_the_rail_is_refused() -> None:
    data = _data()
    data["zones"]["tray"] = [[-200, 600], [200, 600], [200, 700], [-200, 700]]
    assert "zone 'tray' reaches beyond the rail" in _error(data)


def test_marker_problems_are_refused() -> None:
    data = _data()
    data["markers"][1]["id"] = 0
    data["markers"][2]["id"] = 77
    message = _error(data)
    assert "marker id 0 is used more than once" in message
    assert "marker id 77 is outside DICT_4X4_50 (0…49)" in message


def test_a_typo_in_a_key_is_an_error_naming_it(tmp_path: Path) -> None:
    text = (LAYOUTS_DIR / "oval6.toml").read_text(encoding="utf-8").replace("dealer_position", "dealer_pos", 1)
    path = tmp_path / "venue.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(LayoutError) as info:
        load_layout(path)
    assert str(path) in str(info.value)
    assert "dealer_pos: Extra inputs are not permitted" in str(info.value)


def test_a_venue_can_edit_a_yaml_copy(tmp_path: Path) -> None:
    data = _data("oval9")
    data["name"] = "club-table-4"
    data["zones"]["pot"] = [[-250, 90], [250, 90], [250, 200], [-250, 200]]
    path = tmp_path / "club.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    layout = load_layout(path)
    assert layout.name == "club-table-4"
    assert layout.zone_at(0, 220) == "felt"
    assert layout.zone_at(0, 150) == "pot"


def test_unknown_template_and_missing_file_name_the_choices(tmp_path: Path) -> None:
    with pytest.raises(LayoutError, match=r"Unknown layout 'oval11'.*oval10, oval6, oval9"):
        load_layout("oval11")
    with pytest.raises(LayoutError, match="no such layout file"):
        load_layout(tmp_path / "missing.toml")
    broken = tmp_path / "broken.toml"
    broken.write_text("name = [unclosed", encoding="utf-8")
    with pytest.raises(LayoutError, match="not valid toml"):
        load_layout(broken)
    assert available_layouts() == ["oval10", "oval6", "oval9"]


# --- button spots -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["oval10", "oval9", "oval6"])
def test_template_button_spots_lie_on_the_felt_in_front_of_each_seat_clear_of_every_zone(name: str) -> None:
    layout = load_layout(name)
    for seat in layout.seat_numbers:
        spot = layout.button_spot(seat)
        assert layout.seat(seat).button == spot  # the templates give their own
        assert {layout.zone_at(*p) for p in button_disc(spot, BUTTON_CLEAR_MM - 1)} == {"felt"}
        nearest = min(layout.seat_numbers, key=lambda s: np.hypot(*np.subtract(layout.button_spot(s),
                                                                                 layout.seat(seat).player)))
        assert nearest == seat  # nearer its own player than any other seat's spot is


def test_a_layout_without_button_spots_loads_with_one_just_beyond_each_bet_zone() -> None:
    data = _data("oval9")
    for seat in data["seats"]:
        del seat["button"]
    layout = TableLayout.model_validate(data)
    for seat in layout.seat_numbers:
        spot = layout.button_spot(seat)
        assert layout.zone_at(*spot) == "felt"
        bet = layout.polygon(events.bet_zone(seat)).astype(np.float32).reshape(-1, 1, 2)
        gap = -cv2.pointPolygonTest(bet, spot, True)
        assert BUTTON_CLEAR_MM < gap < 2 * BUTTON_GAP_MM  # the puck on the felt just before the seat's bet
    assert "button =" not in layout_to_toml(layout)


def test_a_button_spot_on_a_zone_is_refused() -> None:
    data = _data("oval6")
    data["seats"][2]["button"] = [0.0, -40.0]  # on the board
    assert "seat 3's button spot (0, -40) mm is not 40 mm clear of zone 'board'" in _error(data)
    data["seats"][2]["button"] = [0.0, -1000.0]
    assert "seat 3's button spot (0, -1000) mm is not on the felt" in _error(data)
