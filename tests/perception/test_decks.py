"""Perception with every shipped card deck: backs told from faces whatever their colours (a blue lattice,
a red frame, light patterns that blend into a tint of the paper at the plane's resolution), and a burn
dropped onto the burn pile seen by the strips it sticks out by."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tablewatch.calibration.chips import painted_chip_colours
from tablewatch.calibration.decks import deck_names, load_deck
from tablewatch.events import BoardCardDealt, CardBurned, CardDealt, CardExposed, Event
from tablewatch.sim.scenario import load_scenario
from tablewatch.sim.session import Simulation
from tablewatch.vision.perception.appearance import Appearance, card_look
from tests.perception.conftest import DEMO, rendered, run_window


def _demo_with(deck: str) -> Simulation:
    return Simulation(load_scenario(DEMO).model_copy(update={"deck": deck}))


def _window(sim: Simulation, t0: float, t1: float) -> list[Event]:
    return run_window(sim, rendered(sim, t0, t1))


@pytest.mark.parametrize("deck", deck_names())
def test_hole_cards_dealt_face_down_are_not_exposed(deck: str) -> None:
    sim = _demo_with(deck)
    events = _window(sim, 2.0, 6.4)
    truth = [(e.seat, e.face_up) for e in sim.events if isinstance(e, CardDealt)]

    assert [(e.seat, e.face_up) for e in events if isinstance(e, CardDealt)] == truth
    assert all(not up for _, up in truth)
    assert not [e for e in events if isinstance(e, CardExposed)]


@pytest.mark.parametrize("deck", deck_names())
def test_river_burn_onto_the_pile_and_river_card_face_up(deck: str) -> None:
    sim = _demo_with(deck)
    events = _window(sim, 27.0, 31.2)
    burns = [e for e in events if isinstance(e, CardBurned)]
    river = [e for e in events if isinstance(e, BoardCardDealt)]

    assert len(burns) == 1 and burns[0].ts == pytest.approx(29.4, abs=0.4)
    assert [(e.slot, e.face_up) for e in river] == [(4, True)]


@pytest.mark.parametrize("deck", deck_names())
def test_a_decks_back_and_faces_have_their_own_colours(deck: str) -> None:
    cards = load_deck(deck)
    look = card_look(cards, px_per_mm=0.3)
    assert len(look.back) >= 1, "every shipped back has colours that are not the paper's"
    felt = np.array([40, 110, 40], np.uint8)
    appearance = Appearance(felt_bgr=felt, chips=painted_chip_colours(), deck=cards, px_per_mm=0.3)
    back, face = (_as_the_plane_shows(cards[code]) for code in ("back", "2c"))
    is_back, is_face = appearance.card_like(back)
    assert is_back.mean() > 0.5 and is_face.mean() < 0.2
    is_back, is_face = appearance.card_like(face)
    assert is_face.mean() > 0.5 and is_back.mean() < 0.2



def _as_the_plane_shows(card: np.ndarray) -> np.ndarray:
    """A card image's pixels shrunk to the plane's 0.3 px/mm, blurred a little as a camera would."""
    small = cv2.GaussianBlur(cv2.resize(card, (19, 26), interpolation=cv2.INTER_AREA), (3, 3), 0.6)
    return small[2:-2, 2:-2, :3].reshape(-1, 3)
