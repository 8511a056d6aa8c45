"""Undo at the table: asked for at the host panel (or the keyboard's u) or by holding a
station's back button for a second, always confirmed before anything is taken back,
repeatable, and never back past a deal or a draw when the table deals the cards."""

from __future__ import annotations

import random

from controller.games import GAMES
from controller.inputs.base import BACK, OK, PLUS
from controller.table.table import UNDO_HOLD_NS, Table
from hardware.events import ButtonEvent

S = 1_000_000_000


class People:
    """Presses at the stations of a Table, with their times on the host clock."""

    def __init__(self, game: str = "partout", players: int = 4, mode: str = "physical", seed: int = 1):
        self.table = Table(GAMES[game], config={"players": players, "mode": mode}, seed=seed,
                           stations=[f"st{i}" for i in range(players)], names=["Anna", "Ben", "Clara", "David"][:players])
        self.now = 10 * S
        self.seq = 0

    def _event(self, seat: int, button: int, down: bool):
        self.seq += 1
        return self.table.handle(ButtonEvent(f"st{seat}", self.seq, button, down, 0, self.now, self.now))

    def press(self, seat: int, *buttons: int, hold: float = 0.1) -> None:
        for button in buttons:
            self._event(seat, button, True)
            self.now += int(hold * S)
            self._event(seat, button, False)
            self.now += S // 10

    def hold_back(self, seat: int, seconds: float = 1.2) -> None:
        self.press(seat, BACK, hold=seconds)

    @property
    def state(self):
        return self.table.state

    @property
    def message(self):
        return self.table.message


def trump_number_named() -> People:
    people = People()
    people.press(1, PLUS, OK)                          # seat 2 names trump number 2
    assert people.state.trump_number == 2 and people.state.to_act == 2
    return people


def test_the_panel_asks_first_and_takes_back_when_pressed_again():
    people = trump_number_named()
    people.table.host_undo()
    assert people.message.key == "undo_ask_panel" and people.message.params["player"] == 1
    assert people.state.trump_number == 2                          # nothing taken back yet
    people.table.host_undo()
    assert people.state.trump_number is None and people.message.key == "undone"
    assert people.table.snapshot().seats[1].prompt is not None    # seat 2 names the number again


def test_any_other_input_while_the_panel_asks_keeps_the_move_and_counts():
    people = trump_number_named()
    people.table.host_undo()
    people.press(2, PLUS, OK)                          # seat 3 goes on: names a colour
    assert people.table.undo_asked is None and people.state.trump_colour is not None
    assert people.state.trump_number == 2
    people.table.host_undo()                           # a new question, not a confirmation
    assert people.message.key == "undo_ask_panel" and people.state.trump_colour is not None


def test_holding_the_back_button_asks_at_that_station_and_its_bottom_middle_confirms():
    people = trump_number_named()
    people.hold_back(2)                                # seat 3 is on turn
    snap = people.table.snapshot()
    assert people.message.key == "undo_ask_station" and people.message.params == {"player": 1, "seat": 2}
    assert [k.key if k else None for k in snap.seats[2].soft_keys] == [None, None, None, "undo_no", "undo_yes",
                                                                       "undo_no"]
    assert snap.seats[2].prompt == ("undo_prompt", {})
    people.press(2, OK)                                # bottom middle: yes
    assert people.state.trump_number is None and people.message.key == "undone"
    assert people.table.snapshot().seats[2].soft_keys != snap.seats[2].soft_keys


def test_undo_is_repeatable_move_by_move():
    people = trump_number_named()
    people.press(2, PLUS, OK)                          # the trump colour
    people.press(people.state.to_act, PLUS, OK)        # a bid of 1
    assert len(people.table.actions) == 3
    for left in (2, 1, 0):
        people.table.host_undo()
        people.table.host_undo()
        assert len(people.table.actions) == left
    people.table.host_undo()
    assert people.message.key == "nothing_to_undo" and people.message.refusal


def test_another_button_at_the_asking_station_keeps_the_move_and_does_nothing_else():
    people = trump_number_named()
    choice = people.table.snapshot().seats[2].prompt
    people.hold_back(2)
    people.press(2, PLUS)                              # would step the trump colour otherwise
    assert people.message.key == "undo_kept" and people.state.trump_number == 2
    assert people.table.snapshot().seats[2].prompt == choice          # the colour did not move
    people.press(2, OK)                                # now an ordinary OK: the colour is named
    assert people.state.trump_colour is not None


def test_a_short_press_of_back_is_refused_at_its_release_and_a_hold_is_not():
    people = trump_number_named()
    people._event(2, BACK, True)
    assert people.message is None                      # not yet: it may become a hold
    people.now += S // 5
    people._event(2, BACK, False)
    assert people.message.key == "button_unused" and people.message.refusal and people.message.seat == 2
    people.press(2, BACK, hold=UNDO_HOLD_NS / S + 0.01)
    assert people.message.key == "undo_ask_station"


def test_only_the_player_on_turn_or_who_moved_may_ask():
    people = trump_number_named()
    people.hold_back(0)                                # seat 1: neither on turn nor the mover
    assert people.message.key == "undo_not_yours" and people.message.seat == 0 and people.table.undo_asked is None
    people.hold_back(1)                                # seat 2 made the move
    assert people.message.key == "undo_ask_station"


def play_until(people: People, done) -> None:
    rules, rng = people.table.rules, random.Random(3)
    while not done(people.state):
        people.table.apply(rng.choice(rules.legal_actions(people.state, rules.to_act(people.state))))


def test_with_virtual_cards_undo_stops_before_a_new_deal():
    people = People(mode="virtual")
    play_until(people, lambda s: s.round == 1)         # the last card of round 1 dealt round 2
    people.table.host_undo()
    assert people.message.key == "undo_stops_at_reveal" and people.table.undo_asked is None
    people.table.undo()                                # not even when called directly
    assert people.state.round == 1


def test_with_real_cards_undo_may_go_back_into_the_last_round():
    people = People(mode="physical")
    rules = people.table.rules
    virtual = People(mode="virtual")
    play_until(virtual, lambda s: s.round == 1)
    for action in virtual.table.actions:               # the same game, played with real cards
        people.table.apply(action)
    people.table.host_undo()
    people.table.host_undo()
    assert people.message.key == "undone" and people.state.round == 0
    assert rules.unseen(people.state) != rules.unseen(virtual.state)


def test_team_up_undo_stops_at_a_drawn_card():
    people = People("team-up", players=2, mode="virtual")
    rules = people.table.rules
    play_until(people, lambda s: rules.unseen(s) != rules.unseen(rules.new_game(people.table.config, 1)))
    people.table.host_undo()
    assert people.message.key == "undo_stops_at_reveal"


def test_a_crazy_kick_race_cannot_be_taken_back():
    people = People("crazy-kick", players=2, mode="virtual")
    people.table.host_undo()
    assert people.message.key == "undo_realtime" and people.message.refusal


def test_a_refusal_stays_at_its_seat_while_others_are_refused_and_goes_when_the_table_moves_on():
    """Issue 14: a refusal is not wiped by anyone else's input; issue 30: it goes once it is
    no longer true. Seat 1's "not your turn" stays while seat 4 is refused too, and is gone
    once seat 3 names the colour (the turn it spoke of has passed), from the seat and the
    message box alike."""
    from display.draw import messages_shown
    people = trump_number_named()
    people.press(0, OK)                                # seat 1: not its turn
    refusal = people.table.snapshot().seats[0].refusal
    assert refusal is not None and refusal.key == "not_your_turn"
    people.press(3, OK)                                # seat 4 is refused too: seat 1's still stands
    snap = people.table.snapshot()
    assert snap.seats[0].refusal == refusal and snap.seats[3].refusal.key == "not_your_turn"
    assert messages_shown(snap)[-2:] == [snap.seats[3].refusal, refusal]    # both reasons, newest first
    people.press(2, PLUS, OK)                          # seat 3 names the colour: the game goes on
    snap = people.table.snapshot()
    assert snap.message is None and all(seat.refusal is None for seat in snap.seats)
    assert messages_shown(snap) == []
    people.press(0, PLUS)                              # seat 1 again, out of turn: refused anew
    assert people.table.snapshot().seats[0].refusal.revision > refusal.revision
    people.press(people.state.to_act, PLUS)            # the seat on turn moves its bid: no refusal there
    assert people.table.snapshot().seats[people.state.to_act].refusal is None


def test_a_refusal_goes_when_the_move_it_spoke_of_is_taken_back():
    people = trump_number_named()
    people.press(0, OK)
    assert people.table.snapshot().seats[0].refusal is not None
    people.table.host_undo()
    people.table.host_undo()                           # seat 2 names the number again
    assert people.table.snapshot().seats[0].refusal is None


def test_the_message_box_keeps_showing_a_standing_refusal(screen, monkeypatch):
    from display import draw
    people = trump_number_named()
    people.press(0, OK)                                # seat 1: not its turn
    people.table.host_undo()                           # the panel asks; seat 3's colour step answers no
    people.press(2, PLUS)                              # and moves its choice: no move, no message
    assert people.table.message is None
    said = []
    real = draw.text
    monkeypatch.setattr(draw, "text", lambda surface, words, *a, **k: said.append(words) or real(surface, words, *a, **k))
    screen.render(people.table.snapshot())
    assert "Not accepted: Anna" in said
