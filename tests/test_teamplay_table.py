"""Teamplay at the table through simulated stations: the buttons and taps of a turn,
refusals a player sees (the reason, a red flash, nothing changed), and whole games with
physical number cards that end exactly as the same game dealt virtually."""

from __future__ import annotations

import random

import pytest

from controller.bots.teamplay import TeamplayBot
from controller.games import find_game
from controller.games.teamplay import DrawBank, LayBank, RefillBank
from controller.inputs.teamplay import BACK, DRAW, END, GIVE, KEEP, NEXT_MISSION, OK
from controller.table import BUZZ_REFUSED, LED_REFUSED

RULES = find_game("teamplay")


def flashed_red(h, seat) -> bool:
    return h.sims[seat].wait_for(lambda s: ("LED", (LED_REFUSED, "300")) in s.commands and
                                 ("BUZZ", tuple(map(str, BUZZ_REFUSED))) in s.commands)


def keep_missions(h):
    while h.state.phase == "choose_missions":
        h.press(h.state.to_act, KEEP)


def test_a_turn_on_the_buttons_draw_choose_show_give_end(make_table):
    h = make_table(players=4, mode="virtual", seed=7, game="teamplay")
    keep_missions(h)
    p = h.state.to_act
    keys = [k.key if k else None for k in h.table.snapshot().seats[p].soft_keys]
    assert keys[DRAW] == "teamplay_key_draw" and keys[NEXT_MISSION] == "teamplay_key_next_mission"
    assert keys[GIVE] == "teamplay_key_give" and keys[END] == "teamplay_key_end"
    h.press(p, END)                                          # not before two cards are drawn
    assert h.table.message.key == "teamplay_draw_first" and flashed_red(h, p)
    h.press(p, DRAW)
    h.tap(p, h.state.bank[1])                                # a bank card by its tap
    assert h.state.draws == 2 and len(h.state.bank) == 3
    before = h.table.snapshot().seats[p].pending["mission"]
    h.press(p, NEXT_MISSION)
    assert h.table.snapshot().seats[p].pending["mission"] != before       # the own mission, then the general
    card = h.state.hands[p][0]
    h.press(p, GIVE)
    h.tap(p, card)
    assert h.table.snapshot().seats[p].pending["cards"] == [card]
    h.press(p, OK)
    mate = (p + 2) % 4
    assert card in h.state.hands[mate] and h.state.gave
    h.press(p, END)
    assert h.state.to_act == (p + 1) % 4


def test_a_wrong_mission_is_refused_with_what_it_misses_and_changes_nothing(make_table):
    h = make_table(players=3, mode="virtual", seed=3, game="teamplay")
    p = h.state.to_act
    h.table.state = h.state._replace(general="red-three-sum-7/1", hands=tuple(
        ("red3-1", "red2-1", "red3-2") if q == p else h.state.hands[q] for q in range(3)),
        hand_sizes=tuple(3 if q == p else h.state.hand_sizes[q] for q in range(3)))
    while h.table.adapter.chosen_mission(h.state, p) != "red-three-sum-7/1":
        h.press(p, NEXT_MISSION)
    before = h.state
    for card in ("red3-1", "red2-1", "red3-2"):
        h.tap(p, card)
    h.press(p, OK)
    assert h.state == before and len(h.table.actions) == 0
    m = h.table.message
    assert m.key == "teamplay_needs_sum" and m.refusal and m.seat == p
    from controller.games import texts
    assert texts.render("en", m.key, m.params) == "The values must add up to exactly 7; these add up to 8."
    assert flashed_red(h, p)
    h.press(p, BACK)                                          # the taps are forgotten
    assert "cards" not in (h.table.snapshot().seats[p].pending or {})


def test_physical_the_dealer_taps_the_bank_and_a_card_from_another_game_is_refused(make_table):
    h = make_table(players=4, mode="physical", seed=2, game="teamplay")
    dealer = h.state.dealer
    assert h.state.phase == "lay_bank"
    h.sims[dealer].tap("04AABBCCDDEEFF", "tadika:blue5")
    h.settle(dealer)
    assert h.table.message.key == "tag_other_game"
    for card in ("red3-1", "blue5-2", "red8-4"):
        h.tap(dealer, card)
    assert h.state.bank == ("red3-1", "blue5-2", "red8-4") and h.state.phase == "choose_missions"


@pytest.mark.parametrize("seed, players", [(4, 4), (9, 5)])
def test_a_whole_game_with_physical_cards_ends_as_the_virtual_game(make_table, seed, players):
    """People hold the cards of a virtual game (the truth) and tap and press at the stations
    of a physical-card table, which never sees a hand; both must score the same."""
    truth = RULES.new_game({"players": players, "mode": "virtual"}, seed)
    h = make_table(players=players, mode="physical", seed=seed, game="teamplay")
    assert h.state.missions == truth.missions and h.state.general == truth.general
    bot, rng = TeamplayBot(), random.Random(seed)

    def act(action):
        for step in h.table.adapter.inputs_for(h.state, action.player, action):
            h.tap(action.player, step.arg) if step.kind == "tap" else h.press(action.player, step.arg)
        message = h.table.snapshot().message
        assert message is None or not message.refusal, (action, message)

    act(LayBank(h.state.dealer, truth.bank))
    steps = 0
    while truth.phase != "over":
        steps += 1
        assert steps < 3000
        seat = truth.to_act
        assert h.state.to_act == seat and h.state.hand_sizes == truth.hand_sizes and h.state.bank == truth.bank
        assert (h.state.deck_left, h.state.discard) == (truth.deck_left, truth.discard), steps
        action = bot.choose(RULES, truth, seat, rng)
        truth = RULES.apply(truth, action)
        act(action)
        if isinstance(action, DrawBank) and h.state.phase == "refill":
            act(RefillBank(seat, truth.bank[-1]))
    assert h.state.phase == "over"
    assert h.table.result()["scores"] == list(RULES.outcome(truth).scores)
    assert [list(f) for f in h.state.fulfilled] == [list(f) for f in truth.fulfilled]
    saved = h.store.load(h.table.game_id)
    assert saved.finished
    assert RULES.replay(h.table.config, seed, [RULES.action_from_json(a) for a in saved.actions]) == h.state


def test_the_keyboard_seat_draws_a_bank_card_with_z_to_b(make_table):
    from controller.app.demo import _keyboard
    h = make_table(players=3, mode="virtual", seed=6, game="teamplay")
    seat = h.state.to_act
    card = h.state.bank[1]
    _keyboard(h.table, h.sims[seat], "teamplay")(("table_card", 1))
    h.settle(seat)
    assert card in h.state.hands[seat] and h.state.draws == 1
