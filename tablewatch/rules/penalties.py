"""Penalties the floor gives and their bookkeeping at the table, as small pure units.

ENG-31 (TDA-56A/C, TDA22-71A/C; conflict C4, ``RuleProfile.penalty_offender_away``):
- ``missed_round_penalty``: a penalty of N rounds is one missed hand per player at the table, the offender
  included, times N (EX-29: 9 players, 1 round → 9 hands; 2 rounds → 18).
- ``PenaltyLedger``: the hands of a penalty as the table deals them. In each one the offender is dealt in, all
  his forced bets (ante, small and big blind) are taken and his cards are mucked right after the preflop deal;
  he must be away from the table (2022) or may stay (001); he must not act. Anything else the table did is a
  finding (the catalogue's PENALTY_BREACH). A repeat offence whose penalty is not heavier than the last one is
  flagged too: penalties escalate for repeat offences (TDA-56A).

ENG-34 (001 TDA-54; TDA22-69; ``RuleProfile.team_play_rule``):
- ``team_play_ruling``: what the floor gives when team play (soft play) is detected for the n-th time: the
  club's ladder (1st: a warning, the hand not exposed; 2nd: the dealer exposes the hand and the chips go to the
  player who really won; 3rd and later: 1/2/3/… missed rounds), or, under the TDA, a penalty the TD chooses.
  Chip passing and any other collusion disqualify in both (EX-28).

Who offended and when is the floor's word (a dealer's suspicion, a floor decision): these units take it as
plain data, as the hand-for-hand announcement is taken (``handforhand.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from tablewatch.events import Severity
from tablewatch.rules.chipreading import Finding
from tablewatch.rules.profiles import RuleProfile

MAX_SEATS = 10


@dataclass(frozen=True, kw_only=True)
class PenaltyRuling:
    """A missed-hands penalty: ``hands`` hands dealt to ``seat`` and mucked, forced bets taken."""

    seat: int
    hands: int
    away: bool  # the offender must stay away from the table while he serves it (C4)
    ruling: str
    rule_id: str = "TDA-56"


def missed_round_penalty(profile: RuleProfile, *, seat: int, players_at_table: int, rounds: int) -> PenaltyRuling:
    """A penalty of ``rounds`` rounds given to ``seat`` with ``players_at_table`` players seated, himself
    included (TDA-56A / TDA22-71A)."""
    if not 2 <= players_at_table <= MAX_SEATS:
        raise ValueError(f"A table seats 2 to {MAX_SEATS} players, the offender included: got {players_at_table}.")
    if rounds < 1:
        raise ValueError(f"A missed-round penalty is at least one round: got {rounds}.")
    hands = players_at_table * rounds
    basis = f"{players_at_table} players at the table, himself included, x {rounds} round(s)"
    return missed_hands_penalty(profile, seat=seat, hands=hands, basis=basis)


def missed_hands_penalty(profile: RuleProfile, *, seat: int, hands: int, basis: str = "") -> PenaltyRuling:
    """A penalty of ``hands`` missed hands given to ``seat``."""
    if hands < 1:
        raise ValueError(f"A missed-hands penalty is at least one hand: got {hands}.")
    where = ("must be away from the table until it is served (TDA22-71C)" if profile.penalty_offender_away
             else "may stay at the table (001 TDA-56C)")
    return PenaltyRuling(seat=seat, hands=hands, away=profile.penalty_offender_away, ruling=(
        f"seat {seat} misses {hands} hand(s){f' ({basis})' if basis else ''}: in each he is dealt in, his ante and "
        f"blinds are taken and his cards are mucked right after the preflop deal; he {where}"))


@dataclass(frozen=True, kw_only=True)
class PenalisedHand:
    """What the table did with a penalised seat in one hand."""

    seat: int
    forced_due: int  # his ante and blinds in this hand
    forced_taken: int  # what was taken from his stack for them
    mucked_after_deal: bool  # his cards went to the muck right after the preflop deal
    present: bool  # the player was seen at the table
    acted: bool = False  # he looked at his cards, acted or spoke for the hand


@dataclass
class PenaltyLedger:
    """The penalties being served at one table (the catalogue's penalty record ``{seat, hands_remaining}``)."""

    profile: RuleProfile
    remaining: dict[int, int] = field(default_factory=dict)
    history: dict[int, list[int]] = field(default_factory=dict)  # seat -> hands of each penalty given

    def impose(self, penalty: PenaltyRuling) -> list[Finding]:
        """Start a penalty; one given while another is served is added to it. A repeat offence whose penalty
        is no heavier than the last is flagged: penalties escalate (TDA-56A)."""
        found: list[Finding] = []
        previous = self.history.setdefault(penalty.seat, [])
        if previous and penalty.hands <= previous[-1]:
            found.append(Finding(rule_id="TDA-56", title="Repeat offence not penalised more heavily",
                                 severity=Severity.ADVISORY,
                                 observed=f"seat {penalty.seat}: {penalty.hands} hand(s) after {previous[-1]} last "
                                          "time",
                                 ruling="repeat offences are subject to escalating penalties: the floor reviews it"))
        previous.append(penalty.hands)
        self.remaining[penalty.seat] = self.remaining.get(penalty.seat, 0) + penalty.hands
        return found

    def hand_dealt(self, seen: PenalisedHand) -> list[Finding]:
        """One hand of the penalty, as the table dealt it: one fewer to serve, and what was done wrong."""
        left = self.remaining.get(seen.seat, 0)
        if not left:
            raise ValueError(f"Seat {seen.seat} is serving no penalty (serving: {sorted(self.remaining)}).")
        found = _breaches(self.profile, seen)
        if left > 1:
            self.remaining[seen.seat] = left - 1
        else:
            del self.remaining[seen.seat]
        return found


def _breaches(profile: RuleProfile, seen: PenalisedHand) -> list[Finding]:
    seat, found = seen.seat, []
    if seen.forced_taken < seen.forced_due:
        found.append(_breach(f"seat {seat}'s forced bets were not all taken ({seen.forced_taken} of "
                             f"{seen.forced_due})", "take all his forced bets: ante, small and big blind (TDA-56A)"))
    if not seen.mucked_after_deal:
        found.append(_breach(f"seat {seat}'s cards were not mucked after the preflop deal",
                             "a penalised player's cards go to the muck as soon as the preflop deal is over "
                             "(TDA-56C)"))
    if seen.acted:
        found.append(_breach(f"seat {seat} handled his cards or acted while penalised",
                             "his hand is dead: muck it; call the floor"))
    if seen.present and profile.penalty_offender_away:
        found.append(_breach(f"seat {seat}'s player is at the table while penalised",
                             "the offender must be away from the table during the penalty (TDA22-71C)",
                             rule_id="TDA22-71"))
    return found


def _breach(observed: str, ruling: str, *, rule_id: str = "TDA-56") -> Finding:
    return Finding(rule_id=rule_id, title="Penalty breach", observed=observed, ruling=ruling)


TeamPlayAction = Literal["warning", "expose_hand", "missed_rounds", "disqualify", "floor_decides"]


@dataclass(frozen=True, kw_only=True)
class TeamPlayRuling:
    action: TeamPlayAction
    ruling: str
    rule_id: str
    rounds: int = 0  # missed rounds (``missed_rounds``)
    penalty: PenaltyRuling | None = None  # those rounds in hands, when the table's size was given


def team_play_ruling(profile: RuleProfile, *, detection: int, seat: int, collusion: bool = False,
                     players_at_table: int | None = None) -> TeamPlayRuling:
    """The floor's answer to team play by ``seat`` detected for the ``detection``-th time in the event;
    ``collusion``: chips passed on purpose, or any other collusion."""
    if detection < 1:
        raise ValueError(f"Team play is detected a first time or more: got detection {detection}.")
    club = profile.team_play_rule == "club"
    rule_id = "TDA-54" if club else "TDA22-69"
    if collusion:
        return TeamPlayRuling(action="disqualify", rule_id=rule_id, ruling=(
            f"chip passing or collusion: seat {seat} is disqualified and his chips removed from play "
            f"({rule_id}, TDA22-71D)"))
    if not club:
        return TeamPlayRuling(action="floor_decides", rule_id=rule_id, ruling=(
            f"soft play by seat {seat} ({_nth(detection)} time): the TD chooses the penalty, which may include "
            "forfeiting chips and/or disqualification (TDA22-69, TDA22-71)"))
    if detection == 1:
        return TeamPlayRuling(action="warning", rule_id=rule_id, ruling=(
            f"first team play by seat {seat}: a warning; the hand is not exposed (001 TDA-54)"))
    if detection == 2:
        return TeamPlayRuling(action="expose_hand", rule_id=rule_id, ruling=(
            f"second team play by seat {seat}: the dealer exposes the hand and the chips go to the player who "
            "really won it (001 TDA-54)"))
    rounds = detection - 2
    penalty = None
    if players_at_table is not None:
        penalty = missed_round_penalty(profile, seat=seat, players_at_table=players_at_table, rounds=rounds)
    hands = f" ({penalty.hands} hands)" if penalty else ""
    return TeamPlayRuling(action="missed_rounds", rule_id=rule_id, rounds=rounds, penalty=penalty, ruling=(
        f"{_nth(detection)} team play by seat {seat}: a penalty of {rounds} round(s){hands} (001 TDA-54)"))


def _nth(n: int) -> str:
    return {1: "first", 2: "second", 3: "third"}.get(n, f"{n}th")
