"""Hands of any pokerkit game played to the end by pokerkit itself, each action drawn at random among those it
allows: PHH text for the variants no shared hand history covers (stud, stud hi-lo, razz, short deck, the draw
games). pokerkit is the oracle: the hands are legal by construction, and tablewatch must replay them to pokerkit's
result. Two things pokerkit allows in fixed limit the TDA does not, and no hand here does: a fourth raise over the
big blind (the blind is the round's bet: bet and three raises, EX-100), and a player who has acted raising over an
all-in of less than half a bet (TDA-34B keeps the betting closed to him)."""

from __future__ import annotations

import random
import warnings
from collections.abc import Callable

import pokerkit
from pokerkit import Automation, HandHistory

# (burns are dealt here, from the seeded generator: pokerkit's own would draw from its unseeded deck)
AUTOMATIONS = (Automation.ANTE_POSTING, Automation.BET_COLLECTION, Automation.BLIND_OR_STRADDLE_POSTING,
               Automation.HOLE_CARDS_SHOWING_OR_MUCKING, Automation.HAND_KILLING, Automation.CHIPS_PUSHING,
               Automation.CHIPS_PULLING)
BLINDS = (1, 2)
# PHH code -> (the game: antes 5, bring-in 10, bets 20/40 in stud; blinds 1/2, bets 2/4 otherwise; most players)
GAMES: dict[str, tuple[Callable[[], pokerkit.Poker], int]] = {
    "F7S": (lambda: pokerkit.FixedLimitSevenCardStud(AUTOMATIONS, False, 5, 10, 20, 40), 6),
    "F7S/8": (lambda: pokerkit.FixedLimitSevenCardStudHighLowSplitEightOrBetter(AUTOMATIONS, False, 5, 10, 20, 40), 6),
    "FR": (lambda: pokerkit.FixedLimitRazz(AUTOMATIONS, False, 5, 10, 20, 40), 6),
    "NS": (lambda: pokerkit.NoLimitShortDeckHoldem(AUTOMATIONS, False, 1, BLINDS, 2), 6),
    "N2L1D": (lambda: pokerkit.NoLimitDeuceToSevenLowballSingleDraw(AUTOMATIONS, False, 0, BLINDS, 2), 6),
    "F2L3D": (lambda: pokerkit.FixedLimitDeuceToSevenLowballTripleDraw(AUTOMATIONS, False, 0, BLINDS, 2, 4), 4),
    "FB": (lambda: pokerkit.FixedLimitBadugi(AUTOMATIONS, False, 0, BLINDS, 2, 4), 4),
}
STACKS = (60, 300, 1000, 2000)  # 60: all in within a street or two
WEIGHTS = {"pb": 5, "cbr": 2, "cc": 6, "f": 1}


def pokerkit_hands(code: str, count: int, *, seed: int) -> str:
    """``count`` hands of the game ``code`` (2 players up to the game's most) as a multi-hand PHH file."""
    rng = random.Random(seed)
    make, most = GAMES[code]
    game = make()
    sections = []
    for number in range(1, count + 1):
        players = rng.randint(2, most)
        state = game([rng.choice(STACKS) for _ in range(players)], players)
        _play(state, rng)
        sections.append(f"[{number}]\n{HandHistory.from_game_state(game, state).dumps()}\n")
    return "".join(sections)


def _play(state: pokerkit.State, rng: random.Random) -> None:
    acted: set[int] = set()  # who has acted on this street
    short = False  # the last bet or raise was an all-in of less than half a bet (fixed limit)
    raises = 1 if any(state.blinds_or_straddles) else 0  # bets and raises on this street (the blind is the first)
    street = state.street_index
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        while state.status:
            if state.street_index != street:
                acted, short, raises, street = set(), False, 0, state.street_index
            if not _deal_or_draw(state, rng):
                if state.actor_index is None:
                    return
                actor, level = state.actor_index, max(state.bets)
                capped = raises >= 4 and _fixed_limit(state)
                kind = _act(state, rng, closed=(short and actor in acted) or capped)
                acted.add(actor)
                if kind == "cbr":
                    short = 2 * (max(state.bets) - level) < _bet_size(state)
                    raises += 1


def _deal_or_draw(state: pokerkit.State, rng: random.Random) -> bool:
    """The dealer's or a drawing player's next step, when one is due."""
    dealable = sorted(state.get_dealable_cards(), key=repr)
    if state.can_burn_card():
        state.burn_card(rng.choice(dealable))
    elif state.can_deal_hole():
        state.deal_hole(rng.choice(dealable))
    elif state.can_deal_board():
        count = state.streets[state.street_index or 0].board_dealing_count
        state.deal_board("".join(map(repr, rng.sample(dealable, count))))
    elif state.can_stand_pat_or_discard():
        index = state.stand_patter_or_discarder_index
        assert index is not None
        hole = list(state.hole_cards[index])
        state.stand_pat_or_discard(rng.sample(hole, rng.randint(0, min(3, len(hole)))))
    else:
        return False
    return True


def _fixed_limit(state: pokerkit.State) -> bool:
    return state.streets[state.street_index or 0].max_completion_betting_or_raising_count is not None


def _bet_size(state: pokerkit.State) -> int:
    return state.streets[state.street_index or 0].min_completion_betting_or_raising_amount


def _act(state: pokerkit.State, rng: random.Random, *, closed: bool) -> str:
    """One action drawn among those allowed (a raise only where ``closed`` is False); its PHH kind."""
    can_raise = state.can_complete_bet_or_raise_to() and not closed
    allowed = [kind for kind, can in (("pb", state.can_post_bring_in()), ("cbr", can_raise),
                                      ("cc", state.can_check_or_call()),
                                      ("f", state.can_fold() and bool(state.checking_or_calling_amount))) if can]
    kind = rng.choices(allowed, [WEIGHTS[k] for k in allowed])[0]
    if kind == "pb":
        state.post_bring_in()
    elif kind == "cbr":
        low = state.min_completion_betting_or_raising_to_amount
        high = state.max_completion_betting_or_raising_to_amount
        assert low is not None and high is not None
        state.complete_bet_or_raise_to(rng.choice([low, high, (low + high) // 2]))
    elif kind == "cc":
        state.check_or_call()
    else:
        state.fold()
    return kind
