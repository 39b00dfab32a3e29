"""Training sets: random hands played by a random (legal) policy, photographed at random moments.

Each scene is a fresh scenario (seats, stacks, button, deck art, felt colour, camera pose, seed), so
images vary in everything the detector must not learn. ``--held-out`` uses only the deck and felt kept
back from training (``scenario.HELD_OUT_DECKS``, felt ``grey``) for a test set no model has seen.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import cv2
import yaml
from pokerkit import Automation, Mode, NoLimitTexasHoldem
from tqdm import tqdm

from tablewatch.sim.labels import CLASS_NAMES, yolo_lines
from tablewatch.sim.plan import order_from_button
from tablewatch.sim.scenario import HELD_OUT_DECKS, TRAIN_FELTS, Scenario, train_decks
from tablewatch.sim.session import Simulation

IMAGES_PER_SCENE = 12


def random_actions(rng: random.Random, seats: list[int], stacks: dict[int, int], button: int,
                   blinds: tuple[int, int]) -> list[str]:
    """A legal no-limit hand as scenario actions (``sN ...``), from a random policy."""
    order = order_from_button(seats, button)
    state = NoLimitTexasHoldem.create_state(
        (Automation.ANTE_POSTING, Automation.BET_COLLECTION, Automation.BLIND_OR_STRADDLE_POSTING,
         Automation.CARD_BURNING, Automation.HOLE_DEALING, Automation.BOARD_DEALING,
         Automation.HOLE_CARDS_SHOWING_OR_MUCKING, Automation.HAND_KILLING, Automation.CHIPS_PUSHING,
         Automation.CHIPS_PULLING),
        True, 0, blinds, blinds[1], tuple(stacks[s] for s in order), len(order), mode=Mode.CASH_GAME)
    actions = []
    while state.status and state.actor_index is not None:
        seat = order[state.actor_index]
        roll = rng.random()
        if roll < 0.15 and state.checking_or_calling_amount and state.can_fold():
            state.fold()
            actions.append(f"s{seat} f")
        elif roll < 0.3 and state.can_complete_bet_or_raise_to():
            low = state.min_completion_betting_or_raising_to_amount
            top = state.max_completion_betting_or_raising_to_amount
            assert low is not None and top is not None  # the state allows a bet or raise
            high = min(top, low * 3)
            amount = max(low, min(high, round(rng.uniform(low, high) / 25) * 25))
            state.complete_bet_or_raise_to(amount)
            actions.append(f"s{seat} cbr {amount}")
        else:
            state.check_or_call()
            actions.append(f"s{seat} cc")
    return actions


STACKS = (4000, 6000, 8000, 10000, 15000, 20000)


def random_scenario(rng: random.Random, *, held_out: bool = False, stacks: tuple[int, ...] = STACKS) -> Scenario:
    """A random table and hand; ``stacks``: the starting stacks drawn from (from 30,000 up, 5,000s show)."""
    n = rng.randint(3, 9)
    seats = sorted(rng.sample(range(1, 11), n))
    chosen = {s: rng.choice(stacks) for s in seats}
    button = rng.choice(seats)
    blinds = (50, 100)
    deck = rng.choice(HELD_OUT_DECKS) if held_out else rng.choice(train_decks())
    felt = "grey" if held_out else rng.choice(TRAIN_FELTS)
    violations: list[dict[str, Any]] = []
    if rng.random() < 0.3:
        violations.append({"type": "card_exposed_in_deal", "seat": rng.choice(seats), "card": rng.choice((1, 2))})
    return Scenario.model_validate({
        "table": "DS", "layout": "oval10", "seed": rng.getrandbits(31), "deck": deck, "felt": felt,
        "blinds": list(blinds), "players": [{"seat": s, "name": f"P{s}", "stack": v} for s, v in chosen.items()],
        "hands": [{"button": button, "actions": random_actions(rng, seats, chosen, button, blinds),
                   "violations": violations}],
    })


def make_dataset(out: Path, *, count: int, resolution: str = "720p", seed: int = 0, held_out: bool = False,
                 val_share: float = 0.1, card_boxes: str = "index", progress: bool = True) -> dict[str, int]:
    """Write ``count`` JPEG images with YOLO labels under ``out/images|labels/{train,val}`` and ``data.yaml``."""
    rng = random.Random(seed)
    out = out.resolve()
    for split in ("train", "val"):
        (out / "images" / split).mkdir(parents=True, exist_ok=True)
        (out / "labels" / split).mkdir(parents=True, exist_ok=True)
    boxes = 0
    made = 0
    bar = tqdm(total=count, desc="dataset", unit="img", disable=not progress)
    while made < count:
        sim = Simulation(random_scenario(rng, held_out=held_out))
        renderer = sim.renderer("overhead", resolution)
        split = "val" if rng.random() < val_share else "train"  # whole scenes per split: no near-duplicates across
        for _ in range(min(IMAGES_PER_SCENE, count - made)):
            frame = renderer.render(rng.uniform(0.5, sim.duration - 0.5), card_boxes=card_boxes)
            ok, jpg = cv2.imencode(".jpg", frame.image, [cv2.IMWRITE_JPEG_QUALITY, rng.randint(60, 95)])
            assert ok
            name = f"{made:06d}"
            (out / "images" / split / f"{name}.jpg").write_bytes(jpg.tobytes())
            h, w = frame.image.shape[:2]
            (out / "labels" / split / f"{name}.txt").write_text(yolo_lines(frame.labels, w, h))
            boxes += len(frame.labels)
            made += 1
            bar.update(1)
    bar.close()
    data = {"path": str(out), "train": "images/train", "val": "images/val", "nc": len(CLASS_NAMES),
            "names": list(CLASS_NAMES)}
    (out / "data.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return {"images": made, "labels": boxes}
