"""The table through simulated stations: soft keys, taps, feedback, and every refusal
the issue names changing nothing but the message and a red flash."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.games import texts
from controller.inputs.base import BACK, MINUS, OK, PLUS
from controller.table import BUZZ_REFUSED, LED_REFUSED, LED_YOUR_TURN
from controller.table.cards import CardKeys
from hardware.protocol import encode_frame


def name_trumps_and_bid(h, number=3, colour_steps=1, bids=(1, 1, 1, 1)):
    """Seat 2 (after dealer seat 1) names the number, seat 3 the colour, all bid."""
    s = h.state
    h.press(s.to_act, *([PLUS] * (number - 1)), OK)
    h.press(h.state.to_act, *([PLUS] * colour_steps), OK)
    for b in bids:
        h.press(h.state.to_act, *([PLUS] * b), OK)
    assert h.state.phase == "playing"


def assert_refused(h, seat, key, before):
    """The refusal names its reason, flashes that station red with a low beep, and the
    game state and the log are exactly as they were."""
    state, logged = before
    assert h.table.message.key == key and h.table.message.refusal and h.table.message.seat == seat
    assert h.state == state
    assert len(h.store.load(h.table.game_id).actions) == logged
    sim = h.sims[seat]
    assert sim.wait_for(lambda s: ("LED", (LED_REFUSED, "300")) in s.commands and
                        ("BUZZ", tuple(map(str, BUZZ_REFUSED))) in s.commands)


def snap(h):
    return h.state, len(h.store.load(h.table.game_id).actions)


class TestSoftKeys:
    def test_trumps_and_bids_on_the_buttons(self, make_table):
        h = make_table()
        assert h.state.to_act == 1
        h.press(1, PLUS, PLUS, MINUS, PLUS, OK)                 # 1 → 3
        assert h.state.trump_number == 3
        h.press(2, PLUS, PLUS, OK)                               # red → green → blue
        assert h.state.trump_colour == "blue"
        h.press(1, PLUS, PLUS, OK)
        assert h.state.bids[1] == 2
        snap = h.table.snapshot()
        assert snap.seats[2].prompt == ("prompt_bid", {"value": 0, "high": 7})
        assert [k.key if k else None for k in snap.seats[2].soft_keys] == [None, None, None, "key_minus", "key_ok", "key_plus"]
        assert snap.seats[0].soft_keys == (None,) * 6

    def test_the_seat_to_act_is_green(self, make_table):
        h = make_table()
        assert h.sims[1].wait_for(lambda s: s.led == LED_YOUR_TURN)
        h.press(1, OK)
        assert h.sims[2].wait_for(lambda s: s.led == LED_YOUR_TURN)
        # waiting again: the dim glow of its team's colour (Partout with 4 is played in teams)
        from controller.games.team_colours import TEAM_COLOURS
        from controller.table.table import team_glow
        assert h.sims[1].wait_for(lambda s: s.led == team_glow(TEAM_COLOURS[h.state.setup.team_of[1]]))

    def test_special_card_choice_then_back(self, make_table):
        h = make_table()
        name_trumps_and_bid(h)
        leader = h.state.to_act
        h.tap(leader, "red1")
        seat = h.state.to_act
        h.tap(seat, "mathematician")
        assert h.table.snapshot().seats[seat].pending == {"what": "mathematician", "value": 3}
        h.press(seat, BACK)                                  # changed their mind
        assert h.table.snapshot().seats[seat].pending is None
        h.tap(seat, "dungeon")
        assert h.table.snapshot().seats[seat].pending == {"what": "dungeon", "value": 0}
        h.press(seat, OK)
        assert h.state.trick[-1] == (seat, "dungeon", 0)

    def test_mathematician_choice_applies_in_the_trick(self, make_table):
        h = make_table()
        name_trumps_and_bid(h)
        h.tap(h.state.to_act, "red1")
        seat = h.state.to_act
        h.tap(seat, "mathematician")
        h.press(seat, PLUS, PLUS, OK)                        # 3 → 5
        assert h.table.snapshot().view["trump_number"] == 5

    def test_plain_uid_tag_from_the_registry(self, make_table):
        h = make_table()
        name_trumps_and_bid(h)
        h.store.register_card("04AABBCCDDEEFF", "partout", "king")
        seat = h.state.to_act
        h.tap(seat, "king", text=False, uid="04aabbccddeeff")
        assert h.state.trick[-1] == (seat, "king", None)

    def test_an_enrolled_sticker_plays_its_card_whatever_a_phone_wrote_on_it(self, make_table):
        """Issue 29: a phone rewrote the enrolled king's sticker to "partout:red5" and the
        table played red5. The registry's UID decides; the text is not read."""
        h = make_table()
        name_trumps_and_bid(h)
        h.store.register_card("04AABBCCDDEEFF", "partout", "king")
        seat = h.state.to_act
        h.sims[seat].tap("04AABBCCDDEEFF", "partout:red5")
        h.settle(seat)
        assert h.state.trick[-1] == (seat, "king", None)

    def test_undo_takes_back_the_last_move_in_the_log_too(self, make_table):
        h = make_table()
        h.press(1, PLUS, OK)
        assert h.state.trump_number == 2
        h.send(h.table.undo())
        assert h.state.trump_number is None and h.state.to_act == 1
        saved = h.store.load(h.table.game_id)
        assert saved.actions == []


class TestRefusals:
    def test_unknown_card(self, make_table):
        h = make_table()
        name_trumps_and_bid(h)
        seat, before = h.state.to_act, snap(h)
        h.tap(seat, "red1", text=False, uid="04DEADBEEF0001")
        assert_refused(h, seat, "unknown_tag", before)

    def test_card_from_another_game(self, make_table):
        h = make_table()
        name_trumps_and_bid(h)
        seat, before = h.state.to_act, snap(h)
        h.sims[seat].tap("04CAFE00000001", "teamplay:7")
        h.settle(seat)
        assert_refused(h, seat, "tag_other_game", before)

    @pytest.mark.parametrize("text", ["st1:nosuchgame:x", "st1:partout:" + "ä" * 16, "st1::", "st1:partout:"])
    def test_a_sticker_record_no_table_wrote_is_refused_at_the_seat(self, make_table, text):
        """Issue 29: any phone app can write "st1:<a game that does not exist>:x"; it raised
        KeyError out of the table's input handling (a token of other letters: TypeError)
        and the game stopped."""
        h = make_table()
        CardKeys.load(Path(h.store.path).parent).own  # noqa: B018 - this table has a card key
        name_trumps_and_bid(h)
        seat, before = h.state.to_act, snap(h)
        h.sims[seat].tap("04CAFE00000002", text)
        h.settle(seat)
        assert_refused(h, seat, "tag_record_unreadable", before)

    def test_plain_text_naming_a_card_enrolled_on_another_sticker_is_refused(self, make_table):
        """Issue 29: unsigned text never overrides a card the table knows: a blank sticker a
        phone labelled "partout:king" is not a second king."""
        h = make_table()
        name_trumps_and_bid(h)
        h.store.register_card("04AABBCCDDEEFF", "partout", "king")
        seat, before = h.state.to_act, snap(h)
        h.sims[seat].tap("04CAFE00000003", "partout:king")
        h.settle(seat)
        assert_refused(h, seat, "tag_text_enrolled_elsewhere", before)
        assert texts.render("en", "tag_text_enrolled_elsewhere", h.table.message.params) == \
            "This sticker’s text says it is the King, but the table knows the King by another sticker."

    def test_a_tag_frame_with_a_bad_escape_is_answered_at_its_seat(self, make_table):
        """Issue 29: the frame was dropped and the person tapping heard nothing. Now the tap
        counts by its UID alone: a sticker this table does not know is refused with its
        UID, and the station is told (ERR frame TAG)."""
        h = make_table()
        name_trumps_and_bid(h)
        seat, before = h.state.to_act, snap(h)
        sim = h.sims[seat]
        sim.send_raw(encode_frame("TAG", sim.last_seq + 1, "04CAFE00000004", 5, "partout:king%ZZ"))
        h.send(h.table.handle(h.events.get(timeout=3)))
        assert_refused(h, seat, "unknown_tag", before)
        assert sim.wait_for(lambda s: ("ERR", ("frame", "TAG")) in s.commands)

    def test_card_already_played_this_round(self, make_table):
        h = make_table()
        name_trumps_and_bid(h)
        h.tap(h.state.to_act, "green4")
        seat, before = h.state.to_act, snap(h)
        h.tap(seat, "green4")
        assert_refused(h, seat, "card_already_played", before)

    def test_card_not_in_this_player_counts_deck(self, make_table):
        h = make_table(players=4)
        name_trumps_and_bid(h)
        seat, before = h.state.to_act, snap(h)
        h.tap(seat, "blue9")
        assert_refused(h, seat, "card_not_in_deck", before)

    def test_tap_out_of_turn(self, make_table):
        h = make_table()
        name_trumps_and_bid(h)
        seat = (h.state.to_act + 1) % 4
        before = snap(h)
        h.tap(seat, "red2")
        assert_refused(h, seat, "not_your_turn", before)

    def test_special_card_out_of_turn_is_refused_at_the_tap(self, make_table):
        h = make_table()
        name_trumps_and_bid(h)
        seat = (h.state.to_act + 2) % 4
        before = snap(h)
        h.tap(seat, "alchemist")
        assert_refused(h, seat, "not_your_turn", before)
        assert h.table.snapshot().seats[seat].pending is None

    def test_buttons_out_of_turn(self, make_table):
        h = make_table()
        before = snap(h)
        h.press(3, OK)
        assert_refused(h, 3, "not_your_turn", before)

    def test_bid_out_of_range(self, make_table):
        h = make_table()
        h.press(1, OK)
        h.press(2, OK)
        h.press(1, *([PLUS] * 6), OK)                 # seat 1 bids 6
        h.press(2, OK)
        before = snap(h)
        h.press(3, PLUS, PLUS)                        # partner of seat 1: at most 1
        assert_refused(h, 3, "bid_over_team", before)
        assert h.table.snapshot().seats[3].pending == {"what": "bidding", "value": 1}
        h.press(3, OK)
        assert h.state.bids[3] == 1

    def test_bid_below_zero(self, make_table):
        h = make_table()
        h.press(1, OK)
        h.press(2, OK)
        before = snap(h)
        h.press(1, MINUS)
        assert_refused(h, 1, "bid_negative", before)

    def test_trump_number_beyond_the_deck(self, make_table):
        h = make_table(players=4)
        before = snap(h)
        h.press(1, MINUS)
        assert_refused(h, 1, "number_out_of_range", before)

    def test_unused_button_and_button_when_a_card_is_due(self, make_table):
        h = make_table()
        before = snap(h)
        h.press(1, 1)
        assert_refused(h, 1, "button_unused", before)
        name_trumps_and_bid(h)
        seat, before = h.state.to_act, snap(h)
        h.press(seat, OK)
        assert_refused(h, seat, "tap_a_card", before)

    def test_card_during_bidding(self, make_table):
        h = make_table()
        h.press(1, OK)
        h.press(2, OK)
        before = snap(h)
        h.tap(1, "red1")
        assert_refused(h, 1, "phase_bidding", before)

    def test_the_refusal_is_readable_in_every_language(self, make_table):
        from controller.games import texts
        h = make_table()
        h.press(3, OK)
        m = h.table.message
        names = [s.name for s in h.table.snapshot().seats]
        for lang in texts.LANGUAGES:
            sentence = texts.render(lang, m.key, m.params, names)
            assert "Ben" in sentence and "David" in sentence and "{" not in sentence


def test_a_flooding_station_is_named_at_its_seat_and_nothing_changes(make_table):
    from hardware.events import StationFlooding
    h = make_table()
    before = snap(h)
    h.table.handle(StationFlooding(h.sims[2].station_id, 150, 0))
    m = h.table.message
    assert m.key == "station_flooding" and m.seat == 2 and m.refusal
    assert "Clara" in texts.render("en", m.key, m.params, h.table.names) and "150 inputs" in \
        texts.render("en", m.key, m.params, h.table.names)
    assert snap(h) == before


def test_station_unplugged_is_reported(make_table):
    h = make_table()
    h.sims[2].unplug()
    event = h.events.get(timeout=3)
    h.table.handle(event)
    assert h.table.message.key == "station_lost" and h.table.message.params["seat"] == 2
    assert h.table.snapshot().seats[2].connected is False
