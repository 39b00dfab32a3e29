"""The hand's frame found from the table's events alone: starts, confirmations, ends, buttons, seats, stacks."""

from __future__ import annotations

from tablewatch.events import (
    BetMotion,
    ButtonPlaced,
    ButtonSeen,
    CardDealt,
    CardExposed,
    CardsMucked,
    Chips,
    ChipsAppeared,
    ChipsLeftTable,
    ChipsMoved,
    DealerChanged,
    Declaration,
    Event,
    HandEnded,
    HandStarted,
    NewHandPressed,
    PlayerNamed,
    PotGathered,
    PotPushed,
    SeatStatus,
    Severity,
    Violation,
    stack_zone,
)
from tablewatch.rules.game import GameConfig
from tablewatch.table.framer import DEAL_WAIT_S, HandFramer

T = "T01"


def card(ts: float, seat: int) -> CardDealt:
    return CardDealt(ts=ts, table=T, source="vision", seat=seat)


def bet(ts: float, seat: int, value: int) -> BetMotion:
    return BetMotion(ts=ts, table=T, source="scene", seat=seat, chips=Chips.of({value: 1}))


def deal(ts: float, seats: list[int], rounds: int = 2) -> list[Event]:
    return [card(ts + 0.3 * i, seat) for i, seat in enumerate(seats * rounds)]


def press(ts: float) -> NewHandPressed:
    return NewHandPressed(ts=ts, table=T, source="console")


def push(ts: float, seat: int) -> PotPushed:
    return PotPushed(ts=ts, table=T, source="scene", seat=seat, value=400)


def muck(ts: float, seat: int) -> CardsMucked:
    return CardsMucked(ts=ts, table=T, source="vision", seat=seat)


def frame(events: list[Event], framer: HandFramer | None = None) -> list[Event]:
    framer = framer or HandFramer(GameConfig())
    out = [e for event in events for e in framer.feed(event)]
    return out + framer.flush()


def starts(events: list[Event]) -> list[HandStarted]:
    return [e for e in events if isinstance(e, HandStarted)]


def test_a_new_hand_press_starts_the_hand_and_its_first_round_of_cards_names_the_seats() -> None:
    given = [press(1.0), *deal(2.0, [3, 6, 8, 1])]
    out = frame(given)
    assert out[0] == HandStarted(ts=1.0, table=T, source="scene", hand_no=1, button=1, seats=(1, 3, 6, 8))
    assert out[1:-1] == given  # the events held meanwhile follow it, in order
    assert isinstance(out[-1], HandEnded)  # the stream ended


def test_with_no_press_the_first_card_starts_it_stamped_at_that_card() -> None:
    out = frame(deal(3.1, [3, 6, 8, 1]))
    started = starts(out)
    assert [(s.ts, s.seats, s.button) for s in started] == [(3.1, (1, 3, 6, 8), 1)]  # the last card: the button
    assert out.index(started[0]) == 0


def test_a_press_and_the_first_card_confirm_each_other_in_either_order() -> None:
    assert len(starts(frame([press(1.0), *deal(2.0, [2, 5])]))) == 1
    late_press = [*deal(2.0, [2, 5], rounds=1), press(2.7), card(2.9, 2), card(3.2, 5)]
    out = frame(late_press)
    assert [(s.ts, s.seats) for s in starts(out)] == [(2.0, (2, 5))]
    hand_at_flop = frame([*deal(2.0, [2, 5]), Declaration(ts=4.0, table=T, source="console", seat=2, word="call"),
                          press(9.0)])
    assert len(starts(hand_at_flop)) == 2  # after betting a press is a new hand


def test_blinds_going_forward_start_it_and_place_the_first_button() -> None:
    given = [bet(1.4, 3, 50), bet(2.4, 6, 100), *deal(3.1, [3, 6, 8, 1])]
    out = frame(given)
    assert [(s.ts, s.button, s.seats) for s in starts(out)] == [(1.4, 1, (1, 3, 6, 8))]
    assert out[1:3] == given[:2]  # the blinds follow the start


def test_a_ledger_move_of_no_chips_after_the_push_starts_no_hand() -> None:
    """A chip ledger's difference that nets to nothing (the demo's pot pushed back to its winner) is no blind."""
    nothing = ChipsMoved(ts=22.0, table="T1", source="rfid", seat=5, src="seat5.stack", dst="seat5.bet",
                         chips=Chips.of({}))
    out = frame([*deal(1.0, [2, 5]), push(20.0, 5), muck(21.0, 5), nothing])
    assert len(starts(out)) == 1 and out[-1] == nothing


def test_the_pot_pushed_and_the_cards_mucked_end_it() -> None:
    out = frame([*deal(1.0, [2, 5]), push(20.0, 5), muck(21.0, 5), card(30.0, 5)])
    ended = [e for e in out if isinstance(e, HandEnded)]
    assert (ended[0].ts, ended[0].hand_no) == (21.0, 1)
    assert out[out.index(ended[0]) - 1] == muck(21.0, 5)


def test_a_muck_before_the_push_is_a_fold_and_the_next_deal_ends_the_pushed_hand() -> None:
    out = frame([*deal(1.0, [2, 5, 7]), muck(5.0, 7), push(20.0, 5), push(22.0, 2), *deal(30.0, [2, 5, 7])])
    kinds = [(e.kind, e.ts) for e in out if isinstance(e, HandStarted | HandEnded)]
    assert kinds == [("HandStarted", 1.0), ("HandEnded", 30.0), ("HandStarted", 30.0), ("HandEnded", 31.5)]
    assert out.index(push(22.0, 2)) < out.index(next(e for e in out if isinstance(e, HandEnded)))


def test_the_dead_button_rotates_over_the_seats_in_play_and_the_console_overrides_it() -> None:
    hands = [*deal(1.0, [3, 6, 8, 1]), push(10.0, 3), muck(11.0, 3),  # button 1: blinds 3 and 6
             *deal(20.0, [3, 8, 1]), push(30.0, 3), muck(31.0, 3),  # seat 6 left: the button on 3, big blind 8
             ButtonPlaced(ts=39.0, table=T, source="console", seat=8), *deal(40.0, [1, 3, 8])]
    assert [s.button for s in starts(frame(hands))] == [1, 3, 8]


def test_stacks_come_from_the_rfid_ledger_with_the_blinds_in_front_or_are_unknown() -> None:
    counted = {"seat2.stack": Chips.of({100: 90}), "seat2.bet": Chips.of({100: 1}), "seat5.stack": Chips.of({25: 40})}
    framer = HandFramer(GameConfig(), stack_chips=lambda zone: counted.get(zone, Chips()))
    assert starts(frame(deal(1.0, [2, 5]), framer))[0].stacks == (9100, 1000)
    counted.pop("seat5.stack")  # a stack its antenna does not count
    framer = HandFramer(GameConfig(), stack_chips=lambda zone: counted.get(zone, Chips()))
    assert starts(frame(deal(1.0, [2, 5]), framer))[0].stacks == ()
    assert starts(frame(deal(1.0, [2, 5])))[0].stacks == ()  # no readers


def test_without_cards_the_console_seats_and_a_betting_word_close_the_deal() -> None:
    given = [SeatStatus(ts=0.1, table=T, source="console", seat=s, open=True) for s in (4, 9)]
    given += [press(1.0), bet(2.0, 4, 50), bet(2.5, 9, 100),
              Declaration(ts=4.0, table=T, source="console", seat=4, word="call")]
    assert [(s.seats, s.button) for s in starts(frame(given))] == [((4, 9), 4)]


def test_a_quiet_deal_is_closed_after_the_wait() -> None:
    framer = HandFramer(GameConfig())
    given = [SeatStatus(ts=0.1, table=T, source="console", seat=s, open=True) for s in (4, 9)] + [press(1.0)]
    assert not [e for event in given for e in framer.feed(event) if isinstance(e, HandStarted)]
    assert framer.tick(1.0 + DEAL_WAIT_S / 2) == []
    assert starts(framer.tick(1.0 + DEAL_WAIT_S))[0].seats == (4, 9)


def frames(events: list[Event]) -> list[tuple[str, float, int]]:
    return [(e.kind, e.ts, e.hand_no) for e in events if isinstance(e, HandStarted | HandEnded)]


def test_back_to_back_hands_are_told_apart_by_the_push_the_folds_and_the_next_blinds() -> None:
    six_handed = [bet(0.5, 5, 50), bet(1.0, 6, 100), *deal(2.0, [5, 6, 1, 2, 3, 4]),
                  muck(6.0, 1), muck(7.0, 2), muck(8.0, 3), muck(9.0, 4), push(20.0, 6)]  # the board swept unseen
    gathered = PotGathered(ts=27.0, table=T, source="vision")
    heads_up = [bet(21.0, 2, 100), bet(21.5, 1, 50), *deal(22.0, [2, 1]), muck(26.0, 2), gathered]  # no push seen
    next_one = [bet(30.0, 1, 100), bet(30.5, 2, 50), *deal(31.0, [1, 2])]
    out = frame(six_handed + heads_up + next_one)
    assert frames(out) == [("HandStarted", 0.5, 1), ("HandEnded", 21.0, 1), ("HandStarted", 21.0, 2),
                           ("HandEnded", 30.0, 2), ("HandStarted", 30.0, 3), ("HandEnded", 31.9, 3)]
    assert [(s.seats, s.button) for s in starts(out)] == [((1, 2, 3, 4, 5, 6), 4), ((1, 2), 1), ((1, 2), 2)]


def test_a_player_leaving_is_not_dealt_in_though_his_chips_are_still_counted() -> None:
    chips_left_behind = {f"seat{seat}.stack": Chips.of({500: 40}) for seat in range(1, 7)}
    framer = HandFramer(GameConfig(), stack_chips=lambda zone: chips_left_behind.get(zone, Chips()))
    first = [*deal(1.0, [5, 6, 1, 2, 3, 4]), push(20.0, 6), muck(21.0, 6)]
    stray = CardDealt(ts=24.0, table=T, source="vision", seat=2, face_up=True)  # the blind's chips read as a card
    second = [stray, bet(24.1, 2, 100), bet(25.0, 1, 50), *deal(26.0, [2, 1])]
    out = frame(first + second, framer)
    assert [(s.ts, s.seats, s.button) for s in starts(out)][1] == (24.0, (1, 2), 1)
    assert stray not in out  # a misreading: the rules never see it


def test_a_stack_changing_hands_as_the_deal_begins_goes_out_before_the_hand() -> None:
    # seat 6's player leaves with his chips and another sits down with his just as the next deal begins: the
    # readers confirm both a moment after the deal began
    first = [*deal(1.0, [5, 6, 1]), push(20.0, 6), muck(21.0, 6)]
    leaves = ChipsLeftTable(ts=24.3, table=T, source="rfid", seat=6, zone="seat6.stack", chips=Chips.of({500: 35}),
                            emptied=True)
    sits = ChipsAppeared(ts=24.2, table=T, source="rfid", seat=6, zone="seat6.stack", chips=Chips.of({500: 44}),
                         onto_empty=True)
    added = ChipsAppeared(ts=24.4, table=T, source="rfid", seat=1, zone="seat1.stack", chips=Chips.of({500: 2}))
    stray = card(23.9, 6)  # the new stack's chips set down, read as a card pitched
    second = [stray, leaves, sits, added, *deal(24.5, [6, 1, 5])]
    out = frame(first + second)
    start = starts(out)[1]
    assert start.seats == (1, 5, 6)
    before = out[:out.index(start)]
    assert leaves in before and sits in before  # between hands for the rules: a seat changing players
    assert out.index(added) > out.index(start)  # chips added to a stack in play are the hand's


def test_with_readers_chips_the_camera_alone_saw_going_forward_start_no_hand() -> None:
    """The winner's cards swept in an overexposed picture look like white chips going forward from his seat: a
    blind for the camera, none for the readers. The hand starts at the blinds they count, so seat 4's player
    leaving and another sitting down with his stack meanwhile is between hands."""
    counted = {stack_zone(seat): Chips.of({500: 40}) for seat in (2, 3, 4)}
    framer = HandFramer(GameConfig(), stack_chips=lambda zone: counted.get(zone, Chips()))
    first = [*deal(1.0, [2, 3, 4]), push(20.0, 2), muck(21.0, 3)]
    swept = ChipsMoved(ts=22.0, table=T, source="vision", seat=2, src="seat2.stack", dst="seat2.bet",
                       chips=Chips.of({125: 2, 5: 2}))
    leaves = ChipsLeftTable(ts=25.0, table=T, source="rfid", seat=4, zone="seat4.stack", chips=Chips.of({500: 30}),
                            emptied=True)
    sits = ChipsAppeared(ts=25.0, table=T, source="rfid", seat=4, zone="seat4.stack", chips=Chips.of({500: 50}),
                         onto_empty=True)
    blinds = [ChipsMoved(ts=26.0 + i, table=T, source="rfid", seat=seat, src=f"seat{seat}.stack",
                         dst=f"seat{seat}.bet", chips=Chips.of({500: i + 1})) for i, seat in enumerate((3, 4))]
    out = frame([*first, swept, PotGathered(ts=22.5, table=T, source="vision"), leaves, sits, *blinds,
                 *deal(28.0, [3, 4, 2])], framer)
    start = starts(out)[1]
    assert (start.ts, start.seats, start.button) == (26.0, (2, 3, 4), 2)
    assert out.index(leaves) < out.index(start) and out.index(sits) < out.index(start)


def test_a_player_joining_is_dealt_in_and_the_blinds_show_the_button() -> None:
    heads_up = [bet(0.5, 1, 50), bet(1.0, 2, 100), *deal(2.0, [2, 1]), push(10.0, 1), muck(11.0, 1)]
    seat_4_joins = [bet(15.0, 4, 50), bet(15.5, 1, 100), *deal(16.0, [4, 1, 2])]  # a rotation would say 1
    assert [(s.seats, s.button) for s in starts(frame(heads_up + seat_4_joins))] == [((1, 2), 1), ((1, 2, 4), 2)]


def test_without_cards_a_seat_s_later_chips_are_a_bet_not_its_blind() -> None:
    opened = [SeatStatus(ts=0.1, table=T, source="console", seat=s, open=True) for s in (2, 5, 8)]
    first = [bet(1.0, 5, 50), bet(1.5, 8, 100), Declaration(ts=3.0, table=T, source="console", seat=2, word="fold"),
             push(10.0, 8), SeatStatus(ts=11.0, table=T, source="console", seat=5, open=False)]
    heads_up = [bet(12.0, 2, 50), bet(12.5, 8, 100), bet(13.0, 2, 50), bet(14.0, 8, 300),  # the big blind raises
                Declaration(ts=15.0, table=T, source="console", seat=2, word="call")]
    assert [(s.seats, s.button) for s in starts(frame(opened + first + heads_up))] == [((2, 5, 8), 2), ((2, 8), 2)]


def test_a_misdeal_s_cards_taken_back_before_any_betting_do_not_end_the_hand() -> None:
    misdeal = [bet(0.5, 1, 50), bet(1.0, 2, 100), *deal(2.0, [2, 1]), muck(4.0, 1), muck(4.2, 2)]
    out = frame([*misdeal, *deal(6.0, [2, 1])])  # the redeal: the rules' misdeal check judges it
    assert frames(out) == [("HandStarted", 0.5, 1), ("HandEnded", 6.9, 1)]


def test_a_first_card_dealt_face_up_and_dealt_again_is_a_misdeal_and_its_redeal() -> None:
    """TDA-22A(7): the deal's first card goes face up; the dealer takes it back, reshuffles and deals again from
    the same seat. The misdealt hand reaches the rules with its exposed card and ends void; the redeal is the next
    hand, at the same button though the blinds seen posted are not seen again (TDA-22C)."""
    exposed = CardDealt(ts=2.0, table=T, source="vision", seat=3, card="5c", face_up=True)
    shown = CardExposed(ts=2.0, table=T, source="vision", seat=3, card="5c")
    out = frame([bet(0.5, 3, 50), bet(1.0, 6, 100), exposed, shown, *deal(8.0, [3, 6, 8, 1]), push(20.0, 6),
                 muck(21.0, 6)])
    assert frames(out) == [("HandStarted", 0.5, 1), ("HandEnded", 8.0, 1), ("HandStarted", 8.0, 2),
                           ("HandEnded", 21.0, 2)]
    misdealt, redeal = starts(out)
    assert misdealt.button == redeal.button == 1 and redeal.seats == (1, 3, 6, 8)
    assert next(e for e in out if isinstance(e, HandEnded)).void
    assert out.index(exposed) < out.index(redeal)  # the exposed card is the misdealt hand's
    # a lone face-down card followed by that seat's next is a stray, dropped: one hand
    assert [f[0] for f in frames(frame([bet(0.5, 3, 50), card(2.0, 3), *deal(8.0, [3, 6, 8, 1])]))] == [
        "HandStarted", "HandEnded"]


def test_the_exposed_card_taken_back_is_no_muck_and_a_heads_up_redeal_keeps_its_seats() -> None:
    """The dealer taking the face-up card back from the seat's spot can look like that seat's muck: nobody mucks a
    hand not yet dealt, so it neither starts the betting (the hand framed on one card, every seat with chips taken
    for dealt in) nor reaches the rules."""
    exposed = CardDealt(ts=2.0, table=T, source="vision", seat=2, card="Ts", face_up=True)
    taken_back = muck(3.0, 2)
    out = frame([bet(0.5, 2, 100), bet(1.0, 1, 50), exposed, taken_back, *deal(8.0, [2, 1]), push(20.0, 2),
                 muck(21.0, 1)])
    assert taken_back not in out
    assert frames(out) == [("HandStarted", 0.5, 1), ("HandEnded", 8.0, 1), ("HandStarted", 8.0, 2),
                           ("HandEnded", 21.0, 2)]
    _, redeal = starts(out)
    assert redeal.seats == (1, 2) and redeal.button == 1  # heads-up: the button posts the small blind


def seen(ts: float, seat: int) -> ButtonSeen:
    return ButtonSeen(ts=ts, table=T, source="vision", seat=seat)


def test_the_button_seen_since_the_last_hand_is_the_hands_ahead_of_the_blinds() -> None:
    hands = [seen(0.5, 6), bet(0.8, 1, 50), bet(0.9, 3, 100), *deal(1.0, [1, 3, 6, 8]),  # blinds say button 8
             push(10.0, 3), muck(11.0, 3), *deal(20.0, [1, 3, 6, 8])]  # not seen since, no blinds seen
    out = frame(hands)
    assert [s.button for s in starts(out)] == [6, 8]  # the second hand's from the dead button's rotation
    assert not [e for e in out if isinstance(e, Violation)]


def test_players_named_on_the_console_go_on_the_hands_they_are_dealt_in() -> None:
    """A name holds from the next hand while the player sits there: "player 3" alone or the seat closed forgets it."""
    hands = [PlayerNamed(ts=0.5, table=T, source="console", seat=3, name="Bo Chan"),
             PlayerNamed(ts=0.6, table=T, source="console", seat=9, name="Cy"),  # a seat not dealt in: not on the hand
             *deal(1.0, [1, 3, 6, 8]), push(10.0, 3), muck(10.5, 3),
             PlayerNamed(ts=11.0, table=T, source="console", seat=6, name="Di"), *deal(20.0, [1, 3, 6, 8]),
             push(28.0, 6), muck(28.5, 6), SeatStatus(ts=30.0, table=T, source="console", seat=3, open=False),
             PlayerNamed(ts=30.5, table=T, source="console", seat=6, name=None), *deal(40.0, [1, 6, 8])]
    assert [s.players for s in starts(frame(hands))] == [((3, "Bo Chan"),), ((3, "Bo Chan"), (6, "Di")), ()]


def test_the_dealer_named_on_the_console_deals_the_hands_that_follow() -> None:
    hands = [*deal(1.0, [1, 3, 6, 8]), push(10.0, 3), muck(11.0, 3),
             DealerChanged(ts=12.0, table=T, source="console", dealer="Ann Lee"), *deal(20.0, [1, 3, 6, 8])]
    assert [s.dealer for s in starts(frame(hands))] == [None, "Ann Lee"]
    configured = HandFramer(GameConfig(), dealer="Bo")  # the run configuration's dealer, until the console's
    assert [s.dealer for s in starts(frame(hands, configured))] == ["Bo", "Ann Lee"]


def test_the_console_overrides_the_button_seen() -> None:
    hands = [seen(0.5, 6), ButtonPlaced(ts=0.6, table=T, source="console", seat=3), *deal(1.0, [1, 3, 6, 8])]
    assert [s.button for s in starts(frame(hands))] == [3]


def test_a_seen_button_off_the_rotation_stands_with_a_tda22_32_advisory() -> None:
    hands = [seen(0.5, 1), *deal(1.0, [1, 3, 6, 8]), push(10.0, 3), muck(11.0, 3),  # button 1: blinds 3 and 6
             seen(15.0, 6), *deal(20.0, [1, 3, 6, 8])]  # the dead button goes to seat 3; the puck is on 6
    out = frame(hands)
    assert [s.button for s in starts(out)] == [1, 6]
    (advisory,) = [e for e in out if isinstance(e, Violation)]
    assert (advisory.rule_id, advisory.severity, advisory.hand_no, advisory.seats) == ("TDA22-32", Severity.ADVISORY,
                                                                                       2, (6,))
    assert "seen on seat 6" in advisory.observed and "belongs on seat 3" in advisory.ruling
    assert out.index(advisory) == out.index(starts(out)[1]) + 1  # right after the hand it belongs to


def test_cards_seen_at_the_moment_a_seat_gets_its_second_still_join_the_first_round() -> None:
    """One analysed frame shows two cards landing (the last seat's first and a card at the first seat): the
    order the camera lists them in is not the deal's."""
    same_frame = [card(4.0, 2), card(4.0, 6)]
    out = frame([bet(0.5, 2, 50), bet(1.0, 4, 100), card(3.0, 2), card(3.5, 4), *same_frame, card(4.5, 4),
                 card(5.0, 6)])
    assert [s.seats for s in starts(out)] == [(2, 4, 6)]


def test_the_first_card_turned_over_is_no_second_card_while_seats_with_chips_wait_for_their_first() -> None:
    """The deal's first card went face up and was turned over (a misdeal's exposed card, TDA-22A): the camera
    sees a second card land at that seat before seats 2 and 3, which have chips, got their first."""
    counted = {stack_zone(seat): Chips.of({1000: 20}) for seat in range(1, 7)}
    framer = HandFramer(GameConfig(), stack_chips=lambda zone: counted.get(zone, Chips()))
    turned_over = [card(3.0, 4), card(3.3, 5), card(3.6, 6), card(3.9, 1), card(4.2, 4), card(4.2, 2), card(4.6, 3)]
    out = frame([bet(0.5, 4, 50), bet(1.0, 5, 100), *turned_over, *deal(5.0, [5, 6, 1, 2, 3], rounds=1)], framer)
    assert [s.seats for s in starts(out)] == [(1, 2, 3, 4, 5, 6)]


def test_a_seat_with_chips_whose_first_card_was_missed_is_dealt_in_from_its_second() -> None:
    """The camera missed seat 1's first card (a blurred picture): its second comes in the second round, before the
    first round's last seat gets its second, and the readers count chips at seat 1. An empty seat getting a card
    there is not dealt in: the rules see a card to a seat not in play."""
    counted = {stack_zone(seat): Chips.of({1000: 20}) for seat in (1, 3, 5, 6)}
    framer = HandFramer(GameConfig(), stack_chips=lambda zone: counted.get(zone, Chips()))
    missed = [card(3.0, 5), card(3.3, 6), card(3.9, 3), *deal(4.2, [5, 6, 1, 3], rounds=1)]
    assert [s.seats for s in starts(frame([bet(0.5, 5, 50), bet(1.0, 6, 100), *missed], framer))] == [(1, 3, 5, 6)]
    del counted[stack_zone(1)]
    framer = HandFramer(GameConfig(), stack_chips=lambda zone: counted.get(zone, Chips()))
    out = frame([bet(0.5, 5, 50), bet(1.0, 6, 100), *missed], framer)
    assert [s.seats for s in starts(out)] == [(3, 5, 6)]
    assert [e.seat for e in out if isinstance(e, CardDealt)] == [5, 6, 3, 5, 6, 1, 3]


def test_with_readers_counting_the_pot_only_a_push_lets_chips_forward_start_a_hand() -> None:
    """A bet the camera took for a muck leaves one seat live; with RFID every push shows, so the bet's chips going
    forward are the bet, not the next hand's blind. Without readers the same chips would start one."""
    counted = {stack_zone(seat): Chips.of({1000: 20}) for seat in (1, 2, 3)}
    hand = [bet(0.5, 1, 50), bet(1.0, 2, 100), *deal(2.0, [3, 1, 2]), muck(5.0, 3), muck(6.0, 1),
            PotGathered(ts=7.0, table=T, source="vision"), muck(9.0, 2), bet(9.0, 2, 400), push(12.0, 1),
            muck(13.0, 1)]
    with_readers = HandFramer(GameConfig(), stack_chips=lambda zone: counted.get(zone, Chips()))
    assert len(starts(frame(hand, with_readers))) == 1
    assert len(starts(frame(hand))) == 2


def test_the_pot_gathered_only_the_camera_saw_before_the_first_card_does_not_close_the_deal() -> None:
    """Seat 5 sits out with his chips in front of him. As the blinds go in, auto-exposure brightens them and the
    camera reports the pot gathered before any card is dealt: nobody bets without cards, so the deal goes on and
    its first round places the seats (not every seat with chips) and, from the big blind, the button."""
    counted = {stack_zone(seat): Chips.of({500: 40}) for seat in (1, 2, 3, 5)}
    framer = HandFramer(GameConfig(), stack_chips=lambda zone: counted.get(zone, Chips()))
    blinds = [ChipsMoved(ts=1.0 + i, table=T, source="rfid", seat=seat, src=f"seat{seat}.stack",
                         dst=f"seat{seat}.bet", chips=Chips.of({500: i + 1})) for i, seat in enumerate((1, 2))]
    gathered = PotGathered(ts=2.5, table=T, source="vision")
    start = starts(frame([*blinds, gathered, *deal(3.0, [1, 2, 3])], framer))[0]
    assert (start.seats, start.button) == ((1, 2, 3), 3)
