"""Tadika at the table, through simulated stations and real StationLinks: taps and buttons
as people make them, refusals a player sees (red flash, low beep, the reason, nothing
changed), and whole games with physical cards that end exactly as the same game with
virtual cards."""

from __future__ import annotations

import random

import pytest

from controller.bots.tadika import TadikaBot
from controller.games import find_game
from controller.games.tadika import LayMiddle, Swap
from controller.inputs.tadika import BACK, PASS, RENEW, SWAP_ALL
from controller.table import BUZZ_REFUSED, LED_REFUSED

RULES = find_game("tadika")


def flashed_red_with_a_low_beep(h, seat) -> bool:
    return h.sims[seat].wait_for(lambda s: ("LED", (LED_REFUSED, "300")) in s.commands and
                                 ("BUZZ", tuple(map(str, BUZZ_REFUSED))) in s.commands)


def matching_swap(state, seat, *, double: bool | None = None):
    for action in RULES.legal_actions(state, seat):
        if isinstance(action, Swap) and not action.take.startswith("wish"):
            from controller.games.tadika import barred_rows, swap_match
            kinds = swap_match(action.give, action.take, barred_rows(state.middle))
            if double is None or (len(kinds) == 2) == double:
                return action
    return None


def non_matching(state, seat):
    from controller.games.tadika import barred_rows, swap_match
    for give in state.hands[seat]:
        for take in state.middle:
            if not give.startswith("wish") and not take.startswith("wish") and \
                    not swap_match(give, take, barred_rows(state.middle)):
                return give, take
    return None


class TestVirtualCards:
    def test_a_swap_is_two_taps_in_either_order(self, make_table):
        for seed in range(20):
            h = make_table(players=3, mode="virtual", seed=seed, game="tadika")
            seat = h.state.to_act
            swap = matching_swap(h.state, seat, double=False)
            if swap is None:
                continue
            h.tap(seat, swap.take)                      # the middle card first
            assert h.table.snapshot().seats[seat].pending == {"what": "swap", "cards": [swap.take]}
            h.tap(seat, swap.give)
            assert h.state.hands[seat].count(swap.take) == 1 and swap.give in h.state.middle
            assert h.state.to_act == (seat + 1) % 3
            return
        pytest.fail("no seed with a single-match swap")

    def test_a_swap_that_does_not_match_is_refused_and_changes_nothing(self, make_table):
        h = make_table(players=2, mode="virtual", seed=4, game="tadika")
        seat = h.state.to_act
        give, take = non_matching(h.state, seat)
        before = h.state
        h.tap(seat, give)
        h.tap(seat, take)
        assert h.state == before and len(h.table.actions) == 0
        message = h.table.snapshot().message
        assert message.refusal and message.key == "tadika_no_match" and message.seat == seat
        assert flashed_red_with_a_low_beep(h, seat)
        assert len(h.store.load(h.table.game_id).actions) == 0

    def test_a_tap_out_of_turn_is_refused_at_the_tap(self, make_table):
        h = make_table(players=3, mode="virtual", seed=2, game="tadika")
        other = (h.state.to_act + 1) % 3
        h.tap(other, h.state.hands[other][0])
        assert h.table.snapshot().message.key == "not_your_turn" and len(h.table.actions) == 0

    def test_pass_back_and_soft_keys(self, make_table):
        h = make_table(players=3, mode="virtual", seed=6, game="tadika")
        seat = h.state.to_act
        keys = [k.key if k else None for k in h.table.snapshot().seats[seat].soft_keys]
        assert keys[:2] == ["tadika_key_pass", "tadika_key_swap_all"]
        others = h.table.snapshot().seats[(seat + 1) % 3].soft_keys
        assert all(k is None for k in others)
        h.press(seat, BACK)                              # nothing tapped yet
        assert h.table.snapshot().message.key == "tadika_nothing_to_cancel"
        h.tap(seat, h.state.hands[seat][0])
        assert h.table.snapshot().seats[seat].soft_keys[BACK] is not None
        h.press(seat, BACK)
        assert h.table.snapshot().seats[seat].pending is None
        h.press(seat, PASS)
        assert h.state.to_act == (seat + 1) % 3 and h.state.passes == 1
        assert seat in h.table.snapshot().view["passed"]

    def test_swap_all_and_renew_on_the_buttons(self, make_table):
        h = make_table(players=2, mode="virtual", seed=5, game="tadika")   # no wish in the middle
        seat = h.state.to_act
        hand, middle = h.state.hands[seat], h.state.middle
        assert not any(c.startswith("wish") for c in middle)
        h.press(seat, RENEW)                             # nobody passed, no wish: refused
        assert h.table.snapshot().message.key == "tadika_cannot_renew"
        assert flashed_red_with_a_low_beep(h, seat)
        h.press(seat, SWAP_ALL)
        assert h.state.hands[seat] == middle and h.state.middle == hand


class TestPhysicalCards:
    def test_the_dealer_taps_the_middle_and_other_stations_are_refused(self, make_table):
        h = make_table(players=3, mode="physical", seed=1, game="tadika")
        dealer = h.state.dealer
        other = (dealer + 1) % 3
        h.tap(other, "blue5")
        assert h.table.snapshot().message.key == "tadika_lays_middle"
        cards = ["blue5", "yellow7", "red9", "pink13", "blue8", "red20", "pink2"]
        for card in cards[:3]:
            h.tap(dealer, card)
        h.tap(dealer, "blue5")
        assert h.table.snapshot().message.key == "tadika_tapped_twice"
        assert h.table.snapshot().seats[dealer].prompt == ("tadika_prompt_lay", {"n": 3})
        for card in cards[3:]:
            h.tap(dealer, card)
        assert h.state.middle == tuple(cards) and h.state.phase == "turn"
        assert h.state.to_act == (dealer + 1) % 3

    def test_a_card_from_another_deck_or_game_is_refused(self, make_table):
        h = make_table(players=2, mode="physical", seed=1, game="tadika")
        dealer = h.state.dealer
        h.tap(dealer, "forbid2-1")                        # not in the basic game
        assert h.table.snapshot().message.key == "tadika_not_in_deck"
        h.sims[dealer].tap("04AABBCCDDEEFF", "partout:red5")
        h.settle(dealer)
        assert h.table.snapshot().message.key == "tag_other_game"
        assert len(h.table.actions) == 0


@pytest.mark.parametrize("seed, players, forbidden", [(11, 2, False), (5, 4, True)])
def test_a_whole_game_with_physical_cards_ends_as_the_virtual_game(make_table, seed, players, forbidden):
    """People hold the cards of a virtual game (the truth); they tap and press at the
    stations of a physical-card table, which never sees a hand. Both must score the same."""
    truth = RULES.new_game({"players": players, "mode": "virtual", "forbidden": forbidden}, seed)
    h = make_table(players=players, mode="physical", seed=seed, game="tadika", forbidden=forbidden)
    assert h.state.dealer == truth.dealer
    bot, rng = TadikaBot(), random.Random(seed)

    def lay(middle):
        for card in middle:
            h.tap(h.state.to_act, card)

    lay(truth.middle)
    steps = 0
    while truth.phase != "over":
        steps += 1
        assert steps < 3000
        seat = truth.to_act
        assert h.state.to_act == seat and h.state.middle == truth.middle
        action = bot.choose(RULES, truth, seat, rng)
        before_round = truth.round
        truth = RULES.apply(truth, action)
        for step in h.table.adapter.inputs_for(h.state, seat, action):   # physical: the hand is tapped
            h.tap(seat, step.arg) if step.kind == "tap" else h.press(seat, step.arg)
        message = h.table.snapshot().message
        assert message is None or not message.refusal, (action, message)
        if h.state.phase == "lay_middle":              # a renewal, or the next round
            assert truth.round > before_round or truth.to_act == seat
            lay(truth.middle)
    assert h.state.phase == "over"
    assert h.state.scores == truth.scores
    assert [(w.player, w.points) for w in h.state.history] == [(w.player, w.points) for w in truth.history]
    assert h.table.result()["winner"] == RULES.outcome(truth).winners[0]
    assert h.store.load(h.table.game_id).finished
    replayed = RULES.replay(h.table.config, seed, [RULES.action_from_json(a)
                                                   for a in h.store.load(h.table.game_id).actions])
    assert replayed == h.state


def test_a_wish_card_is_given_for_the_middles_wish_by_tapping_the_middle_first(make_table):
    h = make_table(players=2, mode="virtual", seed=1, game="tadika")
    seat = h.state.to_act
    state = h.state
    hand = ("wish-1",) + tuple(c for c in state.hands[seat] if c != "wish-1")[:6]
    h.table.state = state._replace(hands=tuple(hand if p == seat else state.hands[p] for p in range(2)),
                                   middle=("wish-2",) + state.middle[1:])
    steps = h.table.adapter.inputs_for(h.table.state, seat, Swap(seat, "wish-1", "wish-2"))
    assert [s.arg for s in steps] == ["wish-2", "wish-1"]
    h.tap(seat, "wish-2")
    h.tap(seat, "wish-1")
    assert "wish-1" in h.state.middle and "wish-2" in h.state.hands[seat] and h.state.to_act == seat


def test_after_a_double_swap_the_middles_wish_card_is_refused_at_the_tap_and_its_key_is_gone(make_table):
    h = make_table(players=2, mode="virtual", seed=1, game="tadika")
    seat = h.state.to_act
    state = h.state
    hand = ("blue5",) + tuple(c for c in state.hands[seat] if c not in ("blue5", "blue15", "wish-1"))[:6]
    others = tuple(c for c in state.hands[1 - seat] if c not in ("blue5", "blue15", "wish-1"))
    middle = ("wish-1", "blue15") + tuple(c for c in state.middle if c not in hand + ("wish-1", "blue15"))[:5]
    h.table.state = state._replace(hands=tuple(hand if p == seat else others for p in range(2)), middle=middle)
    h.tap(seat, "blue5")
    h.tap(seat, "blue15")                                # colour and the 5-times table: still on turn
    assert h.state.to_act == seat and "blue15" in h.state.hands[seat]
    assert h.table.snapshot().seats[seat].soft_keys[5] is None         # no "take wish" any more
    before, actions = h.state, len(h.table.actions)
    h.tap(seat, "wish-1")
    message = h.table.snapshot().message
    assert message.refusal and message.key == "tadika_wish_before_move" and message.seat == seat
    assert flashed_red_with_a_low_beep(h, seat)
    assert h.state == before and len(h.table.actions) == actions


def test_lay_middle_is_an_action_of_the_log():
    assert RULES.action_from_json(RULES.action_to_json(LayMiddle(0, ("blue5",) * 7))) == LayMiddle(0, ("blue5",) * 7)


def test_the_keyboard_seat_taps_middle_cards_with_z_to_m(make_table):
    import pygame
    from controller.app.demo import _keyboard
    from display.app import Screen
    screen = Screen(headless=True)
    try:
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_x, unicode="x", mod=0, scancode=0))
        assert ("table_card", 1) in screen.poll()
    finally:
        screen.close()
    h = make_table(players=2, mode="virtual", seed=3, game="tadika")
    seat = h.state.to_act
    keyboard = _keyboard(h.table, h.sims[seat], "tadika")
    keyboard(("table_card", 1))
    h.settle(seat)
    assert h.table.snapshot().seats[seat].pending == {"what": "swap", "cards": [h.state.middle[1]]}
