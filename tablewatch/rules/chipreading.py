"""Reading a physical bet the way a TDA floor does: chips, motions and words → call, raise to X, all-in.

Pure functions over plain data. ``read_bet`` takes what the seat has to answer (``BetContext``, from the
betting engine) and what was seen (``PhysicalBet``: the new chips by denomination, chips already in front,
chips pulled back, forward motions, a declaration and its time) and returns a ``Reading``: the action the
floor would rule, the seat's total bet after it, the change to give back, the chips still owed to
complete it, and findings (rule id, what was seen, the ruling) for anything irregular.

Rules applied (ids from shared/rules/CATALOGUE.md): TDA-27A/27C (verbal vs chips, amount = chips),
TDA-28/37 (undercall), TDA-29 (string raise), TDA-30A/30B (50 % standard; "raise X" = total X),
TDA-31 (single oversized chip), TDA-32 (smallest-chip test), TDA-33 (chips already in front),
TDA-34 (no raise when the betting was not reopened), TDA-38A/38B (underraise, over-pot), TDA-40C,
TDA-41 (incorrect declarations), TDA-43 (ambiguous amounts), TDA-47 (no change-making); catalogue §2:
ENG-10 (verbal amounts), ENG-11 (silent chips), ENG-12 (50 % standard), ENG-13 (no raise unless reopened),
ENG-14 (undercall), ENG-15 (underbets and underraises), ENG-16 (over-pot, the under-pot correction is in
``corrections.py``), ENG-45 (incorrect declarations).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

from tablewatch.events import Chips, Severity

Action = Literal["fold", "check", "call", "bet", "raise", "all-in", "none"]
Structure = Literal["NL", "PL", "FL"]
SingleChipRule = Literal["multiple_chip_rule", "always_call"]  # C10
ShortRaiseRule = Literal["complete_to_minimum", "as_placed"]  # C14
SIMULTANEOUS_S = 0.3  # |verbal - chips| within this is "simultaneous": a clear verbal declaration governs
UNDERSIZED_SHARE = 0.10  # a silent "call" with at most 10 % of the call is grossly undersized (TDA-28)


@dataclass(frozen=True, kw_only=True)
class BetContext:
    """What the seat faces, from the engine. ``cur`` counts a short big blind in full (EX-7)."""

    structure: Structure = "NL"
    cur: int  # the highest total bet this round
    bet: int = 0  # the seat's chips already in this round (ledger)
    stack: int  # chips behind before this action
    inc: int  # the minimum raise increment (last full bet or raise; the BB at first)
    min_raise_to: int
    max_raise_to: int
    can_raise: bool = True  # False when the betting was not reopened for this seat (TDA-34) or capped
    opening: bool = True  # the bet faced is the round's opening bet (TDA-37)
    heads_up: bool = False
    pot_total: int = 0  # middle plus every bet in front (TDA-43)
    big_blind: int = 0
    single_chip_over_prior: SingleChipRule = "multiple_chip_rule"  # C10
    declared_raise_short: ShortRaiseRule = "complete_to_minimum"  # C14

    @property
    def to_call(self) -> int:
        return max(0, min(self.cur - self.bet, self.stack))

    @property
    def all_in_to(self) -> int:
        return self.bet + self.stack


@dataclass(frozen=True, kw_only=True)
class Declared:
    word: str  # fold, check, call, bet, raise, all-in, pot, time, floor
    amount: int | None = None
    ts: float = 0.0


@dataclass(frozen=True, kw_only=True)
class PhysicalBet:
    chips: Chips = field(default_factory=Chips)  # new chips released over the line
    prior: Chips = field(default_factory=Chips)  # earlier chips still in front, kept (TDA-33)
    pulled_back: Chips = field(default_factory=Chips)  # earlier chips the player took back this turn
    motions: int = 1
    motion_values: tuple[int, ...] = ()  # value released by each motion, when the camera split them
    chips_ts: float | None = None
    declaration: Declared | None = None


@dataclass(frozen=True, kw_only=True)
class Finding:
    rule_id: str
    title: str
    observed: str
    ruling: str
    severity: Severity = Severity.VIOLATION


@dataclass(frozen=True, kw_only=True)
class Reading:
    action: Action
    to: int  # the seat's total bet this round after the ruling
    change: int = 0  # chips the dealer gives back
    owed: int = 0  # chips the player must still add to complete the ruling
    rules: tuple[str, ...] = ()
    findings: tuple[Finding, ...] = ()
    basis: str = ""

    def with_finding(self, finding: Finding) -> Reading:
        return replace(self, findings=(*self.findings, finding))


def read_bet(ctx: BetContext, bet: PhysicalBet) -> Reading:
    """The floor's reading of chips (and any declaration) put out by the seat in turn. Chips that follow words
    that are no action ("time", "floor") are no action either (``none``)."""
    decl = bet.declaration
    if decl is not None and _verbal_governs(decl, bet.chips_ts):
        return read_declared(ctx, decl, bet) or Reading(action="none", to=ctx.bet, basis=f'"{decl.word}": no action')
    return _motions_and_words(ctx, bet, _read_chips(ctx, bet))


def _motions_and_words(ctx: BetContext, bet: PhysicalBet, reading: Reading) -> Reading:
    """The reading of chips put out silently, ruled on for their motions (TDA-29) and on any later words."""
    if bet.motions >= 2:
        reading = _string_raise(ctx, bet, reading)
    if bet.declaration is not None:
        reading = _late_declaration(ctx, bet.declaration, reading)
    return reading


def read_seen_from_above(ctx: BetContext, bet: PhysicalBet) -> tuple[Reading, str]:
    """Chips a camera alone saw (no reader counted them). From above it sees the top chip of each column, so
    their value is the least the bet can be, not the bet: chips short of the call, or none at all (they landed
    on the chips in front), are a call whose other chips are under the top ones; nothing seen and nothing to
    call is a tap on the felt, a check. The second value says why the reading is a guess: chips short of the
    call, one chip over it (a column's top looks the same), or chips between a call and a full raise (read as
    the floor reads them); empty when they read as they show: the call exactly, or a full raise.
    """
    decl = bet.declaration
    if decl is not None and _verbal_governs(decl, bet.chips_ts):
        return read_bet(ctx, bet), ""
    placed, seen = _placed(ctx, bet), bet.chips.value
    if ctx.to_call == 0 and not bet.chips.count:
        return _check(ctx, "a motion over the line with no chips seen and nothing to call: a tap"), ""
    if placed < ctx.cur:
        call = _call(ctx, f"{seen} in chips seen from above, short of the call: a call, its other chips unseen")
        guessed = f"{seen} in chips seen from above with {ctx.to_call} to call, read as a call"
        return _motions_and_words(ctx, bet, call), guessed
    guess = ""
    if placed > ctx.cur and ctx.can_raise:
        if bet.chips.count == 1:  # one chip, or the top of a column: TDA-31 reads a call
            guess = f"one {seen} chip seen from above over the call: a call, or a column's top"
        elif placed < ctx.min_raise_to:
            guess = f"{seen} in chips seen from above, between a call and a full raise"
    return read_bet(ctx, bet), guess


def read_declaration(ctx: BetContext, decl: Declared) -> Reading | None:
    """A declaration on its own, before any chips. None when it needs the chips to be read (a bare "raise")."""
    return read_declared(ctx, decl, PhysicalBet(declaration=decl), wait_for_chips=True)


def read_declared(ctx: BetContext, decl: Declared, bet: PhysicalBet, *, wait_for_chips: bool = False) -> Reading | None:
    """The verbal declaration came first (or at the same time): it governs (TDA-27A); chips are payment."""
    word, amount = decl.word, decl.amount
    placed = _placed(ctx, bet)
    has_chips = bet.chips.count > 0
    if word == "fold":
        return _payment(Reading(action="fold", to=ctx.bet, rules=("ENG-42",), basis="fold declared"), placed, bet)
    if word == "check":
        if ctx.to_call == 0:
            return _payment(_check(ctx, "check declared"), placed, bet)
        if not has_chips:
            return _check_facing_bet(ctx)
        return _add(_read_chips(replace(ctx, can_raise=False), bet), _check_facing_bet(ctx).findings)
    if word == "call":
        if ctx.to_call == 0:
            return _payment(_check(ctx, '"call" with nothing to call is a check (TDA-41A)', "TDA-41"), placed, bet)
        return _payment(_call(ctx, 'binding "call" (TDA-37A)', "TDA-37"), placed, bet)
    if word == "all-in":
        if ctx.all_in_to > ctx.cur and not ctx.can_raise:
            return _payment(_no_reopen(ctx, ctx.all_in_to), placed, bet)
        if ctx.all_in_to > ctx.max_raise_to:  # "all-in" in pot or fixed limit: the most the limit allows
            return _payment(_raise_to(ctx, ctx.max_raise_to, "all-in declared: the limit", ("ENG-42",)), placed, bet)
        action: Action = "all-in" if ctx.all_in_to > ctx.cur or ctx.stack <= ctx.to_call else "call"
        reading = Reading(action=action, to=ctx.all_in_to, rules=("ENG-42",), basis="all-in declared")
        return _payment(reading, placed, bet)
    if word in ("time", "floor"):
        return None
    if word == "pot" and ctx.structure == "PL":
        reading = _raise_to(ctx, ctx.max_raise_to, '"pot" in pot-limit', ("TDA-40",))
        if has_chips and placed < reading.to:  # a pot bet counted too low (TDA-38B, EX-72)
            return _with_change(reading, placed).with_finding(Finding(
                rule_id="TDA-38B", title="Pot bet counted too low",
                observed=f'"pot" declared; chips bring the bet to {placed}, the pot allows {reading.to}',
                ruling=f"made up to {reading.to}, if corrected before the next substantial action; after it "
                       f"{placed} stands"))
        return _payment(reading, placed, bet)
    if word == "pot":
        if not has_chips and wait_for_chips:
            return None
        total = max(placed, ctx.min_raise_to)
        basis = '"pot" is not a bet in this game: at least a legal minimum (TDA-40C)'
        reading = _raise_to(ctx, total, basis, ("TDA-40",))
        finding = Finding(rule_id="TDA-40", title='"Pot" declared in a game that is not pot-limit',
                          observed='seat said "pot"', ruling=f"commits the player to a legal bet: {reading.to}",
                          severity=Severity.ADVISORY)
        return _payment(reading, placed, bet).with_finding(finding)
    # bet / raise
    if amount is not None:
        if word == "bet" and ctx.cur > ctx.bet:
            return _payment(read_amount(ctx, amount), placed, bet)  # an amount only (TDA-27C)
        return _payment(_declared_total(ctx, amount), placed, bet)
    if not has_chips:
        return None if wait_for_chips else _declared_total(ctx, ctx.min_raise_to)
    chips_total = placed
    if bet.chips.count == 1 and bet.prior.count == 0:
        chips_total = ctx.bet + bet.chips.value  # "raise" + one chip: the most that chip allows (TDA-31)
    return _declared_total(ctx, chips_total, said_amount=False)


def read_amount(ctx: BetContext, amount: int, *, raise_said: bool = False) -> Reading:
    """An amount said without "raise" is the same as that many chips put out silently (TDA-27C, ENG-12)."""
    if amount <= ctx.cur:
        if amount < ctx.cur and amount < ctx.all_in_to:
            return _undercall(ctx, amount, declared=False)
        return _call(ctx, f"amount {amount} is at most the call", "TDA-27C")
    if amount >= ctx.all_in_to:
        return _all_in(ctx, ctx.all_in_to, placed=amount)
    return _fifty_percent(ctx, amount, raise_said=raise_said)


def interpret_spoken_number(spoken: int, *, pot_total: int, min_bet: int) -> int:
    """TDA-43: a bare number ("five") means the largest of 5, 50, 500… that is legal and not over the pot."""
    candidates: list[int] = [spoken * 10**k for k in range(0, 9)]
    legal = [c for c in candidates if c >= min_bet]
    within = [c for c in legal if c <= pot_total]
    if within:
        return max(within)
    return min(legal) if legal else spoken


# --- chips ----------------------------------------------------------------------------------------------


def _placed(ctx: BetContext, bet: PhysicalBet) -> int:
    """Value in front after the action: kept earlier chips (their face value, TDA-33) plus the new ones."""
    if bet.prior.count:
        return bet.prior.value + bet.chips.value
    if bet.pulled_back.count:
        return max(0, ctx.bet - bet.pulled_back.value) + bet.chips.value
    return ctx.bet + bet.chips.value


def _read_chips(ctx: BetContext, bet: PhysicalBet) -> Reading:
    """Silent chips: TDA-31 (one chip), TDA-32/33 (smallest chip, prior chips), then TDA-30A (50 %)."""
    new = bet.chips
    if new.count == 0:
        return Reading(action="none", to=ctx.bet, basis="no chips")
    total = _placed(ctx, bet)
    behind = ctx.stack + bet.pulled_back.value - new.value
    kept_prior = bet.prior.count > 0 or (ctx.bet > 0 and not bet.pulled_back.count)
    prior_value = total - new.value
    if ctx.cur == 0:
        return _opening_bet(ctx, total, behind, single=new.count == 1)
    single = new.count == 1
    # ILL-46 S2: earlier chips already cover the call (the big blind's option is the same case)
    covers = (prior_value >= ctx.cur and kept_prior) or ctx.to_call == 0
    partly_pulled = bet.pulled_back.count > 0 and bet.prior.count > 0  # ILL-46 S4: multiple-chip rule
    if single and not partly_pulled and (not covers or ctx.single_chip_over_prior == "always_call"):
        return _single_chip(ctx, total, behind)
    smallest = _smallest(new, bet.prior if bet.pulled_back.count and bet.prior.count else None)
    return _multiple_chips(ctx, total, smallest, behind)


def _smallest(new: Chips, kept: Chips | None) -> int:
    values = [d for d, _ in new]
    if kept is not None:
        values += [d for d, _ in kept]  # partly pulled back: the smallest of kept and new (ILL-46 S4)
    return min(values)


def _opening_bet(ctx: BetContext, total: int, behind: int, *, single: bool) -> Reading:
    """Chips when nothing is owed: a bet of their full value (TDA-31: a single chip too)."""
    if behind <= 0:
        return _all_in(ctx, ctx.all_in_to, placed=total)
    if total < ctx.min_raise_to:
        return _complete(ctx, total, "TDA-38A", "Underbet", f"bet of {total} below the minimum {ctx.min_raise_to}")
    reading = _raise_to(ctx, total, "single chip: its full value (TDA-31)" if single else "bet", ("TDA-31",))
    return _with_change(reading, total)


def _single_chip(ctx: BetContext, total: int, behind: int) -> Reading:
    """One chip, no raise declared: a call even if oversized, even if the last chip (TDA-31)."""
    if total < ctx.cur:
        if behind <= 0:
            return Reading(action="call", to=total, rules=("TDA-31",), basis="all-in for less with one chip")
        return _undercall(ctx, total, declared=False)
    return _with_change(_call(ctx, "one oversized chip without a raise declared is a call", "TDA-31"), total)


def _multiple_chips(ctx: BetContext, total: int, smallest: int, behind: int) -> Reading:
    if total < ctx.cur:
        if behind <= 0:
            return Reading(action="call", to=total, rules=("TDA-32",), basis="all-in for less")
        return _undercall(ctx, total, declared=False)
    if total - smallest < ctx.cur:
        return _with_change(_call(ctx, "removing the smallest chip leaves less than the call", "TDA-32"), total)
    if behind <= 0:
        return _all_in(ctx, ctx.all_in_to, placed=total)
    return _fifty_percent(ctx, total, raise_said=False)


def _fifty_percent(ctx: BetContext, total: int, *, raise_said: bool) -> Reading:
    """ENG-12 / TDA-30A: a full raise stands; 50 % or more completes to the minimum; less is a call."""
    extra = total - ctx.cur
    if not ctx.can_raise:
        return _no_reopen(ctx, total)
    if extra >= ctx.inc:
        return _with_change(_raise_to(ctx, total, "a full raise", ("TDA-30A",)), total)
    if raise_said or 2 * extra >= ctx.inc:
        return _complete(ctx, total, "TDA-30A", "Raise below the minimum",
                         f"raise of {extra} over {ctx.cur}, at least half the increment {ctx.inc}",
                         severity=Severity.ADVISORY)
    return _with_change(_call(ctx, f"raise of {extra} is under half the increment {ctx.inc}", "TDA-30A"), total)


def _string_raise(ctx: BetContext, bet: PhysicalBet, reading: Reading) -> Reading:
    """TDA-29: chips in several motions with no declaration first: only the first motion counts."""
    if reading.action not in ("bet", "raise", "all-in") or reading.to <= ctx.cur:
        finding = Finding(rule_id="TDA-29", title="Call made in several motions", severity=Severity.ADVISORY,
                          observed=f"{bet.motions} forward motions for a call",
                          ruling="recorded; a call may go in stages")
        return reading.with_finding(finding)
    first = bet.motion_values[0] if bet.motion_values else None
    if first is None and ctx.cur == 0:  # an opening bet in stages: the dealer rules (TDA-42); it stands
        finding = Finding(rule_id="TDA-29", title="Bet made in several motions", severity=Severity.ADVISORY,
                          observed=f"{bet.motions} forward motions for a bet of {reading.to}, no declaration first",
                          ruling="the dealer rules on bets in instalments (TDA-42); the first motion was not measured")
        return reading.with_finding(finding)
    if first is None:
        ruled = _with_change(_call(ctx, "string raise: only the first motion counts, read as a call", "TDA-29"),
                             _placed(ctx, bet))
    else:
        ruled = read_amount(ctx, _placed(ctx, bet) - bet.chips.value + first)
        if ruled.action == "call" and ruled.owed:  # later motions complete the call, never more
            ruled = _with_change(_call(ctx, "string raise: the later chips only complete the call", "TDA-29"),
                                 _placed(ctx, bet))
    ruling = f"only the first motion counts: {ruled.action} to {ruled.to}; the rest goes back"
    finding = Finding(rule_id="TDA-29", title="String raise (more than one motion, no declaration first)",
                      observed=f"{bet.motions} forward motions totalling {_placed(ctx, bet)} with no prior declaration",
                      ruling=ruling)
    return replace(ruled, rules=(*ruled.rules, "TDA-29"), findings=(*reading.findings, finding))


def _late_declaration(ctx: BetContext, decl: Declared, reading: Reading) -> Reading:
    """The chips came first and govern; a later declaration that says otherwise is a conflict (TDA-27A)."""
    if decl.word in ("time", "floor"):
        return reading
    raising = {"bet", "raise", "all-in"}
    if decl.amount is None and decl.word in ("bet", "raise", "pot"):
        if reading.action in raising:
            return reading  # a bare "raise" after raise-sized chips says nothing new
    else:
        said = read_declared(ctx, decl, PhysicalBet(declaration=decl))
        if said is None or (said.action == reading.action and said.to == reading.to):
            return reading
    finding = Finding(rule_id="TDA-27A", title="Declaration after the chips contradicts them",
                      observed=f'chips read as {reading.action} to {reading.to}; then said "{decl.word}'
                               f'{" " + str(decl.amount) if decl.amount else ""}"',
                      ruling="the chips came first and govern; the floor decides if unclear (Rule 1)")
    return reading.with_finding(finding)


# --- rulings ----------------------------------------------------------------------------------------------


def _check(ctx: BetContext, basis: str, *rules: str) -> Reading:
    return Reading(action="check", to=ctx.bet, rules=rules, basis=basis)


def _check_facing_bet(ctx: BetContext) -> Reading:
    finding = Finding(rule_id="TDA-41", title='"Check" while facing a bet', severity=Severity.ADVISORY,
                      observed=f'seat said "check" facing {ctx.to_call} to call', ruling="may only call or fold")
    return Reading(action="none", to=ctx.bet, rules=("TDA-41",), findings=(finding,), basis="check facing a bet")


def said_check_facing_bet(reading: Reading) -> bool:
    """The reading of a "check" said facing a bet (TDA-41): the seat may only call or fold this round."""
    return "TDA-41" in reading.rules


def _call(ctx: BetContext, basis: str, *rules: str) -> Reading:
    to = min(ctx.cur, ctx.all_in_to)
    return Reading(action="check" if to == ctx.bet else "call", to=to, rules=rules, basis=basis)


def _raise_to(ctx: BetContext, total: int, basis: str, rules: tuple[str, ...]) -> Reading:
    if not ctx.can_raise and total > ctx.cur:
        return _no_reopen(ctx, total)
    capped = min(total, ctx.max_raise_to)
    action: Action = "all-in" if capped >= ctx.all_in_to else ("bet" if ctx.cur == 0 else "raise")
    reading = Reading(action=action, to=capped, rules=rules, basis=basis)
    if total > ctx.max_raise_to and ctx.structure == "PL" and total < ctx.all_in_to:
        reading = reading.with_finding(Finding(
            rule_id="TDA-38B", title="Pot-limit bet over the pot", observed=f"{total} over the pot maximum {capped}",
            ruling=f"reduced to {capped} before the next card (TDA-38B)"))
    return reading


def _with_change(reading: Reading, placed: int) -> Reading:
    return replace(reading, change=max(0, placed - reading.to), owed=max(0, reading.to - placed))


def _payment(reading: Reading, placed: int, bet: PhysicalBet) -> Reading:
    """Chips that go with a governing declaration: short or long against it is a conflict (TDA-27A)."""
    if bet.chips.count == 0:
        return reading
    out = _with_change(reading, placed)
    if reading.action in ("fold", "check") or (placed > reading.to and reading.action != "call"):
        out = out.with_finding(Finding(
            rule_id="TDA-27A", title="Chips do not match the declaration",
            observed=f"declared {reading.action} {reading.to}; chips put out bring the bet to {placed}",
            ruling="the declaration came first and governs; the floor decides if unclear (Rule 1)"))
    elif placed < reading.to:
        out = out.with_finding(Finding(
            rule_id="TDA-27A", title="Chips short of the declaration",
            observed=f"declared {reading.action} to {reading.to}; chips bring the bet only to {placed}",
            ruling=f"the declaration governs: {reading.to - placed} more is owed; the floor decides if unclear"))
    return out


def _declared_total(ctx: BetContext, total: int, *, said_amount: bool = True) -> Reading:
    """ "Raise X" / "bet X": X is the total (TDA-30B); it must be at least a legal minimum (TDA-41B)."""
    if total <= ctx.cur:
        if not said_amount and ctx.declared_raise_short == "as_placed":
            return _fifty_percent(ctx, total, raise_said=False) if total > ctx.cur else _call(ctx, "as placed")
        if not said_amount:
            total = ctx.min_raise_to  # "raise" then chips short of a raise: complete (C14)
        elif ctx.cur > 0:
            return _complete(ctx, ctx.cur, "TDA-41", '"Raise" declared without a raise',
                             f"declared a total of {total}, not above the current bet {ctx.cur}")
    if total >= ctx.all_in_to:
        return _all_in(ctx, ctx.all_in_to, placed=total)
    if not ctx.can_raise:
        return _no_reopen(ctx, total)
    if total < ctx.min_raise_to and not said_amount and ctx.declared_raise_short == "as_placed":
        return _fifty_percent(ctx, total, raise_said=False)
    if total < ctx.min_raise_to:
        return _complete(ctx, total, "TDA-38A", "Declared raise below the minimum",
                         f"declared a total of {total}, below the minimum {ctx.min_raise_to}")
    return _raise_to(ctx, total, "declared total (TDA-30B)", ("TDA-30B",))


def _complete(ctx: BetContext, total: int, rule_id: str, title: str, observed: str, *,
              severity: Severity = Severity.VIOLATION) -> Reading:
    """A bet or raise short of the minimum: it must be made up to the minimum (TDA-38A, TDA-30A, TDA-41B)."""
    if not ctx.can_raise and ctx.cur > 0:
        return _no_reopen(ctx, total)
    to = min(ctx.min_raise_to, ctx.all_in_to)
    action: Action = "all-in" if to >= ctx.all_in_to else ("bet" if ctx.cur == 0 else "raise")
    finding = Finding(rule_id=rule_id, title=title, observed=observed, severity=severity,
                      ruling=f"must be completed to the minimum, {to}")
    return Reading(action=action, to=to, owed=max(0, to - total), change=max(0, total - to), rules=(rule_id,),
                   findings=(finding,), basis=f"completed to {to}")


def _all_in(ctx: BetContext, to: int, *, placed: int) -> Reading:
    if to > ctx.cur and not ctx.can_raise:
        return _no_reopen(ctx, placed)
    if to > ctx.max_raise_to:  # pot or fixed limit: every chip pushed is still only the limit (TDA-38B)
        return _with_change(_raise_to(ctx, to, "all chips pushed: capped at the limit", ("TDA-38B",)), placed)
    action: Action = "all-in" if to > ctx.cur else "call"
    return Reading(action=action, to=to, change=max(0, placed - to), rules=("TDA-32",),
                   basis="last chips: all-in whether or not 50 % is reached")


def _no_reopen(ctx: BetContext, total: int) -> Reading:
    """TDA-34: the betting was not reopened for this seat (or the cap is reached): a call, excess back."""
    reading = _with_change(_call(ctx, "the betting is not reopened for this seat", "TDA-34"), total)
    finding = Finding(rule_id="TDA-34", title="Raise by a player for whom the betting was not reopened",
                      observed=f"put out {total} facing {ctx.cur}",
                      ruling=f"a call of {reading.to}; the excess goes back")
    return reading.with_finding(finding)


def _undercall(ctx: BetContext, total: int, *, declared: bool) -> Reading:
    """TDA-37 / TDA-28: less than the call with chips behind."""
    call_to = min(ctx.cur, ctx.all_in_to)
    added = total - ctx.bet
    owed = call_to - total
    if 0 < added <= UNDERSIZED_SHARE * (call_to - ctx.bet):
        finding = Finding(rule_id="TDA-28", title="Grossly undersized silent call",
                          observed=f"{added} put out against {call_to - ctx.bet} to call",
                          ruling=f"TD decides, up to the full call of {call_to}; penalty possible")
    elif declared or ctx.heads_up or ctx.opening:
        finding = Finding(rule_id="TDA-37", title="Undercall", observed=f"{total} against a bet of {ctx.cur}",
                          ruling=f"must complete the call: add {owed}")
    else:
        finding = Finding(rule_id="TDA-37", title="Undercall", observed=f"{total} against a raise to {ctx.cur}",
                          ruling=f"TD decides: complete the call (add {owed}) or forfeit {added} and fold")
    return Reading(action="call", to=call_to, owed=owed, rules=(finding.rule_id,), findings=(finding,),
                   basis="undercall: completed to a call")


def _add(reading: Reading, findings: tuple[Finding, ...]) -> Reading:
    return replace(reading, findings=(*findings, *reading.findings))


def _verbal_governs(decl: Declared, chips_ts: float | None) -> bool:
    """TDA-27A: whichever came first governs; at the same time a clear declaration does."""
    return chips_ts is None or decl.ts <= chips_ts + SIMULTANEOUS_S


# --- rulings on words and chips later in the round (the engine's, same rules) -------------------------------


def declaration_after_chips(seat: int, kind: str, amount: int | None, said: str, *, simultaneous: bool) -> Finding:
    """TDA-27A: a declaration after the seat's chips that contradicts them; said as they went in, a clear
    declaration governs, otherwise the chips came first."""
    ruling = ("said as the chips went in: a clear declaration governs; the floor corrects the action "
              "(Rule 1 if unclear)") if simultaneous else "the chips came first and govern"
    return Finding(rule_id="TDA-27A", title="Declaration after the chips contradicts them",
                   observed=f"seat {seat}'s chips were ruled {kind} {amount or ''}, then {said}".replace("  ", " "),
                   ruling=ruling, severity=Severity.VIOLATION if simultaneous else Severity.ADVISORY)


def chips_against_declaration(seat: int, owed: int, paid: int, ruling: str) -> Finding:
    """TDA-27A: the chips that follow a binding declaration do not match it; the declaration governs."""
    return Finding(rule_id="TDA-27A", title="Chips do not match the declaration",
                   severity=Severity.ADVISORY if paid > owed else Severity.VIOLATION,
                   observed=f"seat {seat} declared an action owing {owed} and put out {paid}", ruling=ruling)


def pot_bet_counted_low(seat: int, owed: int, paid: int) -> Finding:
    """TDA-38B (ENG-16): a declared pot bet paid short: made up while it can still be corrected."""
    return Finding(rule_id="TDA-38B", title="Pot bet counted too low",
                   observed=f'seat {seat} declared "pot" ({owed} to put in) and put out {paid}',
                   ruling=f"made up to the pot ({owed - paid} more) if corrected before the next substantial "
                          "action; after it the smaller bet stands")


def pot_bet_made_up(seat: int, added: int, change: int) -> Finding:
    """TDA-38B (EX-72): the pot bettor made his bet up in time."""
    return Finding(rule_id="TDA-38B", title="Pot bet made up", severity=Severity.ADVISORY,
                   observed=f"seat {seat} added {added} to his pot bet",
                   ruling="the pot bet stands at the full pot" + (f"; {change} back as change" if change else ""))


def short_pot_bet_stands(seat: int, owed: int, paid_to: int) -> Finding:
    """TDA-38B (EX-71): substantial action came before the pot bet was made up: the smaller bet stands."""
    return Finding(rule_id="TDA-38B", title="Short pot bet stands", severity=Severity.ADVISORY,
                   observed=f"substantial action before seat {seat} made up {owed}",
                   ruling=f"too late to correct: seat {seat}'s bet stands at {paid_to} (EX-71)")
