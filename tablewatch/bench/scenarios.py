"""Sessions of real hands with violations injected: what the demo and the benchmark play.

Each hand of a PHH file gets one violation from a fixed rotation, skipping those the hand can't carry
(a missing turn burn needs a hand that reaches the turn; a string raise needs a raise) and taking first
the kinds injected least so far, so that kinds few hands can carry (a double burn on the river) still get
their turns. The result is a simulator ``Scenario``, so the truth of every injected violation comes from
the simulator itself.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pokerkit import HandHistory
from pydantic import ValidationError

from tablewatch.calibration.decks import deck_names
from tablewatch.phhfile import read_hands
from tablewatch.rules.profiles import RuleProfile
from tablewatch.sim.coverage import table_layout
from tablewatch.sim.scenario import Scenario, ScenarioError
from tablewatch.sim.session import PHH_CHIP_COLOURS, Simulation

# The real hands are in dollars with cents ($623.75): chips count cents, one chip set for every hand.
CENTS = 100
CHIP_SET = [{"value": v, "colour": c} for v, c in zip((1, 5, 25, 100, 500, 2500, 10000), PHH_CHIP_COLOURS,
                                                     strict=False)]

DEMO_HANDS = Path(__file__).parent / "data" / "demo_hands.phh"


@dataclass(frozen=True)
class HandShape:
    """What a hand offers for injecting violations: streets reached, raises, calls facing a bet."""

    streets: int  # board deals: 0 preflop only, 1 flop, 2 turn, 3 river
    raises: tuple[int, ...]  # player-action indices of bets/raises
    verbs: tuple[str, ...]  # every player action's verb (cbr, cc, f, sm …), by index
    calls: tuple[int, ...]  # player-action indices of calls facing a bet
    actors: tuple[tuple[int, int], ...]  # (action index, table seat) of every betting action
    folders: tuple[int, ...]  # table seats that fold
    seats: tuple[int, ...]  # table seat of each PHH player


def hand_shape(hh: HandHistory) -> HandShape:
    seats = tuple(hh.seats) if hh.seats else tuple(range(1, len(hh.starting_stacks) + 1))
    streets, raises, calls, actors, folders, verbs = 0, [], [], [], [], []
    facing_bet = True  # preflop the blinds are a bet
    index = 0
    for raw in hh.actions:
        parts = raw.split("#")[0].split()
        if parts[:2] == ["d", "db"]:
            streets += 1
            facing_bet = False
            continue
        if parts[0] == "d":
            continue
        seat = seats[int(parts[0][1:]) - 1]
        verbs.append(parts[1])
        if parts[1] == "cbr":
            raises.append(index)
            facing_bet = True
        elif parts[1] == "cc" and facing_bet:
            calls.append(index)
        elif parts[1] == "f":
            folders.append(seat)
        if parts[1] in {"cbr", "cc", "f"}:
            actors.append((index, seat))
        index += 1
    return HandShape(streets=streets, raises=tuple(raises), verbs=tuple(verbs), calls=tuple(calls),
                     actors=tuple(actors), folders=tuple(folders), seats=seats)


Injector = Callable[[HandShape], dict[str, Any] | None]


def _string_raise(s: HandShape) -> dict[str, Any] | None:
    """On the last raise, and only if nobody calls it: the TDA ruling (the raise stands at its first motion)
    would otherwise change every action after it, and the real hand no longer applies."""
    if not s.raises or any(v != "f" for v in s.verbs[s.raises[-1] + 1:]):
        return None
    return {"type": "string_raise", "action": s.raises[-1]}


def _burn(kind: str, street: str, needed: int) -> Injector:
    return lambda s: {"type": kind, "street": street} if s.streets >= needed else None


def _four_card_flop(s: HandShape) -> dict[str, Any] | None:
    return {"type": "four_card_flop"} if s.streets >= 1 else None


def _undercall(s: HandShape) -> dict[str, Any] | None:
    return {"type": "undercall", "action": s.calls[0]} if s.calls else None


def _exposed_early(s: HandShape) -> dict[str, Any] | None:
    return {"type": "board_card_exposed_early", "street": "turn"} if s.streets >= 2 else None


def _exposed_in_deal(s: HandShape) -> dict[str, Any] | None:
    return {"type": "card_exposed_in_deal", "seat": s.seats[0], "card": 1}


OOT_WORDS = {"cc": "call", "f": "fold"}


def _out_of_turn(s: HandShape) -> dict[str, Any] | None:
    """The second player to act announces, before the first has acted, what he then does in turn (TDA-39:
    an out-of-turn action that stays binding must be the one he makes)."""
    if len(s.actors) < 2 or s.verbs[s.actors[1][0]] not in OOT_WORDS:
        return None
    index, seat = s.actors[1]
    return {"type": "out_of_turn", "action": 0, "seat": seat, "word": OOT_WORDS[s.verbs[index]]}


def _pocketed(s: HandShape) -> dict[str, Any] | None:
    return {"type": "chips_pocketed", "seat": s.seats[0], "chips": {500: 1}, "after_action": 0}


def _unknown_chip(s: HandShape) -> dict[str, Any] | None:
    return {"type": "unknown_chip", "seat": s.seats[-1], "denomination": 500}


def _wrong_push(s: HandShape) -> dict[str, Any] | None:
    return {"type": "wrong_pot_push", "to_seat": s.folders[0]} if s.folders else None


def _hidden(s: HandShape) -> dict[str, Any] | None:
    """After the first action, a player's hand stays over his biggest chips long enough for the rules to log it
    (one who folds has the time)."""
    seat = s.folders[-1] if s.folders else s.seats[-1]
    return {"type": "chips_hidden", "seat": seat, "mode": "under_hand", "after_action": 0,
            "duration": RuleProfile().stack_obscured_advisory_s + 2.0}


def _misdeal(s: HandShape) -> dict[str, Any] | None:
    return {"type": "misdeal"}


# The rotation: the demo's first hands show the most common and most costly violations first.
ROTATION: tuple[Injector, ...] = (
    _string_raise,
    _burn("missing_burn", "flop", 1),
    _pocketed,
    _undercall,
    _wrong_push,
    _four_card_flop,
    _unknown_chip,
    _exposed_early,
    _out_of_turn,
    _burn("double_burn", "river", 3),
    _exposed_in_deal,
    _hidden,
    _misdeal,
)


# The dealer's procedure errors of the rotation (the rest are players'), for a shift of dealers at their own rates.
DEALER_ERRORS: tuple[Injector, ...] = (_burn("missing_burn", "flop", 1), _burn("double_burn", "river", 3),
                                       _four_card_flop, _exposed_in_deal, _wrong_push)


def candidate_violations(shape: HandShape, turn: int, injected: Counter[str] | None = None) -> list[dict[str, Any]]:
    """The violations the hand can carry, the kinds ``injected`` least so far first, then in rotation order
    starting at position ``turn``."""
    found = (ROTATION[(turn + k) % len(ROTATION)](shape) for k in range(len(ROTATION)))
    carried = [v for v in found if v is not None]
    counts = injected or Counter()
    return sorted(carried, key=lambda v: counts[v["type"]])  # stable: rotation order kept


@dataclass
class HandSet:
    """Simulated hands ready to play, and the hands the simulator could not play (with why)."""

    sims: list[Simulation]
    skipped: list[str]


EVERY_DECK = "every"  # hand_simulations(deck=...): each shipped deck in turn


def hand_simulations(hands_file: Path, *, hands: int, seed: int, table: str = "T01", first: int = 1,
                     inject: bool = True, deck: str | None = None) -> HandSet:
    """One simulation per hand: ``hands`` hands of ``hands_file`` from hand ``first``, one violation in each.

    Each real hand has its own players and stacks, so each is simulated alone and the session plays them
    one after another at the same table (see ``tablewatch.bench.session``). A violation the simulator can't
    stage in a hand (no chip of that size in the stack) gives way to the next one in the rotation.
    ``deck``: the card art dealt (default: the scenario's, ``anglo_poker``); ``"every"`` deals each shipped
    deck in turn, hand by hand.
    """
    histories = read_hands(hands_file)
    if first < 1 or first - 1 + hands > len(histories):
        raise ValueError(f"{hands_file} has {len(histories)} hands; can't take {hands} from hand {first}.")
    result = HandSet(sims=[], skipped=[])
    injected: Counter[str] = Counter()
    for k in range(first, first + hands):
        options = candidate_violations(hand_shape(histories[k - 1]), k - first, injected) if inject else []
        dealt = deck_names()[(k - first) % len(deck_names())] if deck == EVERY_DECK else deck
        sim, why = _first_playable(hands_file, k, options, seed=seed + k, table=table, deck=dealt)
        if sim is None:
            result.skipped.append(f"hand {k}: {why}")
        else:
            result.sims.append(sim)
            injected.update(v.type for v in sim.violations)
    return result


def hand_scenario(hands_file: Path, k: int, *, violations: list[dict[str, Any]], seed: int,
                  table: str, deck: str | None = None) -> Scenario:
    """Hand ``k`` in cents with one chip set, so every hand of a session plays at the same stakes, on the
    smallest table template that has the hand's own seat numbers (so injected seats keep their meaning)."""
    data = {"table": table, "layout": table_layout(hands_file, k), "seed": seed, "chips": CHIP_SET,
            "hands": [{"phh": {"file": str(hands_file), "hand": k, "unit": CENTS}, "violations": violations}]}
    if deck is not None:
        data["deck"] = deck
    return Scenario.model_validate(data)


def _first_playable(hands_file: Path, k: int, options: list[dict[str, Any]], *, seed: int,
                    table: str, deck: str | None) -> tuple[Simulation | None, str]:
    why = ""
    for violations in [*([v] for v in options), []]:
        try:
            return Simulation(hand_scenario(hands_file, k, violations=violations, seed=seed, table=table,
                                            deck=deck)), ""
        except (ScenarioError, ValidationError) as exc:
            why = str(exc).splitlines()[0]
    return None, why
