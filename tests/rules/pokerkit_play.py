"""Hands of any pokerkit game played to the end by pokerkit itself, each action drawn at random among those it
allows: PHH text for the variants no shared hand history covers (stud, stud hi-lo, razz). pokerkit is the
oracle: the hands are legal by construction, and tablewatch must replay them to pokerkit's result. One thing
pokerkit allows the TDA does not: a player who has acted raising over an all-in of less than half a bet (TDA-34B
keeps the betting closed to him); no hand here does it."""

from __future__ import annotations

import random
import warnings

import pokerkit
from pokerkit import Automation, HandHistory

AUTOMATIONS = (Automation.ANTE_POSTING, Automation.BET_COLLECTION, Automation.BLIND_OR_STRADDLE_POSTING,
               Automation.CARD_BURNING, Automation.HOLE_CARDS_SHOWING_OR_MUCKING, Automation.HAND_KILLING,
               Automation.CHIPS_PUSHING, Automation.CHIPS_PULLING)
STUD_GAMES = {"F7S": pokerkit.FixedLimitSevenCardStud,
              "F7S/8": pokerkit.FixedLimitSevenCardStudHighLowSplitEightOrBetter,
              "FR": pokerkit.FixedLimitRazz}
STACKS = (60, 300, 1000, 2000)  # 60: all in within a street or two of antes 5, bring-in 10, bets 20/40
WEIGHTS = {"pb": 5, "cbr": 2, "cc": 6, "f": 1}


def stud_hands(code: str, count: int, *, seed: int) -> str:
    """``count`` hands of the stud game ``code`` (antes 5, bring-in 10, bets 20/40; 2 to 6 players) as a
    multi-hand PHH file."""
    rng = random.Random(seed)
    game = STUD_GAMES[code](AUTOMATIONS, False, 5, 10, 20, 40)
    sections = []
    for number in range(1, count + 1):
        players = rng.randint(2, 6)
        state = game([rng.choice(STACKS) for _ in range(players)], players)
        _play(state, rng)
        sections.append(f"[{number}]\n{HandHistory.from_game_state(game, state).dumps()}\n")
    return "".join(sections)


def _play(state: pokerkit.State, rng: random.Random) -> None:
    acted: set[int] = set()  # who has acted on this street
    short = False  # the last bet or raise was an all-in of less than half a bet
    street = state.street_index
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        while state.status:
            if state.street_index != street:
                acted, short, street = set(), False, state.street_index
            if state.can_deal_hole():
                state.deal_hole(rng.choice(sorted(state.get_dealable_cards(), key=repr)))
            elif state.actor_index is None:
                return
            else:
                actor, level = state.actor_index, max(state.bets)
                _act(state, rng, closed=short and actor in acted)
                acted.add(actor)
                if max(state.bets) > level:
                    short = 2 * (max(state.bets) - level) < _bet_size(state)


def _bet_size(state: pokerkit.State) -> int:
    street = state.streets[state.street_index or 0]
    return street.min_completion_betting_or_raising_amount


def _act(state: pokerkit.State, rng: random.Random, *, closed: bool) -> None:
    can_raise = state.can_complete_bet_or_raise_to() and not closed
    allowed = [kind for kind, can in (("pb", state.can_post_bring_in()), ("cbr", can_raise),
                                      ("cc", state.can_check_or_call()),
                                      ("f", state.can_fold() and bool(state.checking_or_calling_amount))) if can]
    kind = rng.choices(allowed, [WEIGHTS[k] for k in allowed])[0]
    if kind == "pb":
        state.post_bring_in()
    elif kind == "cbr":
        state.complete_bet_or_raise_to()
    elif kind == "cc":
        state.check_or_call()
    else:
        state.fold()
