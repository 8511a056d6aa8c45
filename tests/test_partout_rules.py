"""Partout's rules, from the rule book's own words and examples (../shared/rules/partout.txt)
and the decisions written in docs/partout.md."""

from __future__ import annotations

import pytest

from controller.games import IllegalAction, find_game
from controller.games.partout import (
    Bid, Card, NameTrumpColour, NameTrumpNumber, Play, resolve_trick, parse_play,
    team_points, trick_winner, setup_for,
)

RULES = find_game("partout")


# --- the ranking (DIE KARTEN-HÖHE) -----------------------------------------------------

class TestRanking:
    def test_book_example_green_three_is_highest(self):
        # "Spieler 1 sagt 3, Spieler 2 sagt Grün: Grün 3 ist die höchste Wappen-Karte"
        assert trick_winner(["red3", "green9", "green3", "blue3"], 3, "green") == 2

    def test_book_example_other_threes_beat_green(self):
        # "alle weiteren 3er sind die nächsthöchsten" — above every other green card
        assert trick_winner(["green9", "red3"], 3, "green") == 1

    def test_first_played_trump_number_wins_among_them(self):
        assert trick_winner(["red5", "blue3", "black3", "red3"], 3, "green") == 1

    def test_trump_colour_by_value_then_lead_colour(self):
        # "Es folgen 9-4 in Grün, dann 2-1 in Grün" and green beats any plain colour
        assert trick_winner(["green2", "green9", "green4"], 3, "green") == 1
        assert trick_winner(["red9", "green1"], 3, "green") == 1

    def test_lead_colour_cannot_be_beaten_by_other_colours(self):
        # "Zahlen der zuerst gelegten Farbe können nicht von Karten einer anderen Farbe
        # überstochen werden."
        assert trick_winner(["red2", "blue9", "black9"], 3, "green") == 0
        assert trick_winner(["red2", "blue9", "red4"], 3, "green") == 2

    def test_lead_colour_is_the_first_crest_card_after_a_leading_special(self):
        assert trick_winner(["mathematician:5", "blue2", "red9", "blue6"], 3, "green") == 3


class TestSpecialCards:
    def test_royals_beat_every_number_card(self):
        assert trick_winner(["green3", "king"], 3, "green") == 1
        assert trick_winner(["queen", "green3"], 3, "green") == 0

    def test_first_royal_wins_between_king_and_queen(self):
        assert trick_winner(["red1", "queen", "king"], 3, "green") == 1
        assert trick_winner(["king", "queen"], 3, "green") == 0

    @pytest.mark.parametrize("plays, winner", [
        (["king", "jester"], 1),          # after the king
        (["jester", "red4", "queen"], 0),  # before the queen
        (["king", "queen", "jester"], 2),  # decision: both royals
    ])
    def test_jester_beats_royals_before_or_after(self, plays, winner):
        assert trick_winner(plays, 3, "green") == winner

    def test_jester_without_royal_has_no_value(self):
        assert trick_winner(["jester", "red1"], 3, "green") == 1

    def test_dungeon_annuls_value(self):
        assert trick_winner(["green3", "red1", "dungeon:0"], 3, "green") == 1

    def test_dungeon_on_the_royal_takes_the_jesters_value(self):
        # decision: a locked royal is no longer in the trick for the Jester
        assert trick_winner(["king", "jester", "red2", "dungeon:0"], 3, "green") == 2

    def test_dungeon_on_the_jester_gives_the_trick_to_the_royal(self):
        assert trick_winner(["king", "jester", "dungeon:1"], 3, "green") == 0

    def test_dungeon_annuls_a_trump_change(self):
        # the Mathematician made 5 trump; locked, 3 is trump again, so red3 wins
        plays = [parse_play(p) for p in ["red5", "mathematician:5", "red3", "dungeon:1"]]
        result = resolve_trick(plays, 3, "green")
        assert result.winner == 2
        assert result.trump_number == 3
        assert result.locked == {1}

    def test_mathematician_changes_trump_number_in_this_trick(self):
        # "Dies gilt bereits im ausgespielten Stich"
        assert trick_winner(["red3", "mathematician:7", "blue7"], 3, "green") == 2

    def test_alchemist_changes_trump_colour_in_this_trick(self):
        assert trick_winner(["green9", "alchemist:blue", "blue1"], 3, "green") == 2

    def test_trick_without_any_value_goes_to_the_first_card(self):
        assert trick_winner(["mathematician:5", "jester", "alchemist:red"], 3, "green") == 0
        assert trick_winner(["red4", "dungeon:0", "jester"], 3, "green") == 0

    def test_dungeon_leading_locks_nothing(self):
        assert trick_winner(["dungeon", "red4", "red6"], 3, "green") == 2

    def test_dungeon_may_only_lock_an_earlier_card(self):
        with pytest.raises(ValueError):
            trick_winner(["red4", "dungeon:1"], 3, "green")

    def test_unknown_cards_and_choices_are_refused_with_a_message(self):
        with pytest.raises(IllegalAction, match="not a Partout card"):
            trick_winner(["purple4"], 3, "green")
        with pytest.raises(IllegalAction, match="needs a number"):
            trick_winner(["mathematician:x"], 3, "green")
        with pytest.raises(IllegalAction, match="no choice"):
            trick_winner(["red4:2"], 3, "green")


def test_card_notation_round_trips_for_the_whole_deck():
    for name in setup_for(6).deck:
        assert Card.parse(name).notation() == name
    assert len(setup_for(6).deck) == 42


# --- scoring (DIE PUNKTEVERGABE) ----------------------------------------------------------

class TestScoring:
    def test_book_three_team_example(self):
        assert team_points(bid=3, tricks=3, teams=3) == 19
        assert team_points(bid=3, tricks=1, teams=3) == 1
        assert team_points(bid=2, tricks=3, teams=3) == 11

    @pytest.mark.parametrize("bid, bonus2, bonus3", [
        (1, 2, 4), (2, 4, 8), (3, 8, 16), (4, 16, 30), (5, 30, 50), (6, 50, 100), (7, 100, 200)])
    def test_bonus_table(self, bid, bonus2, bonus3):
        assert team_points(bid, 7, 2) == 7 + bonus2
        assert team_points(bid, 7, 3) == 7 + bonus3

    def test_zero_tricks_after_a_bid_costs_one_per_missing_trick(self):
        assert team_points(bid=4, tricks=0, teams=2) == -4

    def test_bid_zero(self):
        assert team_points(bid=0, tricks=0, teams=2) == 0
        assert team_points(bid=0, tricks=2, teams=2) == 2

    def test_bad_arguments(self):
        with pytest.raises(ValueError):
            team_points(1, 1, 4)
        with pytest.raises(ValueError):
            team_points(-1, 1, 2)


# --- set-up, turn order, rounds ------------------------------------------------------------

def play_round_random(state, rng):
    round_index = state.round
    while state.phase != "finished" and state.round == round_index:
        state = RULES.apply(state, rng.choice(RULES.legal_actions(state, state.to_act)))
    return state


class TestSetup:
    @pytest.mark.parametrize("players, deck, hand, tricks, rounds", [
        (3, 34, 10, 5, 6), (4, 34, 7, 7, 8), (6, 42, 7, 7, 6)])
    def test_deck_hands_tricks_rounds(self, players, deck, hand, tricks, rounds):
        setup = setup_for(players)
        assert (len(setup.deck), setup.hand_size, setup.tricks, setup.rounds) == (deck, hand, tricks, rounds)
        state = RULES.new_game({"players": players}, seed=1)
        assert [len(h) for h in state.hands] == [hand] * players
        dealt = [c for h in state.hands for c in h]
        assert len(dealt) == len(set(dealt))
        assert set(dealt) <= setup.deck

    def test_eights_and_nines_removed_for_three_and_four(self):
        for players in (3, 4):
            assert not any(c.endswith(("8", "9")) for c in setup_for(players).deck)
            assert setup_for(players).numbers == (1, 2, 3, 4, 5, 6, 7)

    def test_teams_sit_apart(self):
        assert setup_for(4).teams == ((0, 2), (1, 3))
        assert setup_for(6).teams == ((0, 3), (1, 4), (2, 5))
        assert setup_for(3).teams == ((0,), (1,), (2,))

    def test_other_player_counts_are_refused(self):
        with pytest.raises(IllegalAction, match="3, 4 or 6 players, not 5"):
            RULES.new_game({"players": 5}, seed=1)

    def test_order_of_naming_bidding_and_leading(self):
        s = RULES.new_game({"players": 4, "first_dealer": 2}, seed=3)
        assert (s.dealer, s.phase, s.to_act) == (2, "trump_number", 3)
        s = RULES.apply(s, NameTrumpNumber(3, 4))
        assert (s.phase, s.to_act) == ("trump_colour", 0)
        s = RULES.apply(s, NameTrumpColour(0, "red"))
        assert (s.phase, s.to_act) == ("bidding", 3)       # the trump-number player bids first
        for p in (3, 0, 1, 2):
            s = RULES.apply(s, Bid(p, 1))
        assert (s.phase, s.to_act) == ("playing", 3)       # first player after the dealer leads

    def test_trick_winner_leads_the_next_trick_and_trumps_persist(self):
        s = _bidded({"players": 4, "mode": "physical"}, trump=(3, "green"))
        s = _play_all(s, ["red1", "mathematician:5", "blue2", "red2"])
        assert s.trump_number == 5                      # rest of the round
        winner = (s.dealer + 1 + 3) % 4                 # red2 wins after the lead red1 (index 3)
        assert s.to_act == winner and s.tricks_won[winner] == 1
        s = _play_all(s, ["alchemist:black", "black1", "green7", "red7"])
        assert s.trump_colour == "black"
        assert s.tricks_won[(winner + 1) % 4] == 1      # black1 is trump colour now

    def test_dealer_rotates_and_game_lasts_its_rounds(self):
        import random
        rng = random.Random(5)
        for players, rounds in ((3, 6), (4, 8), (6, 6)):
            s = RULES.new_game({"players": players}, seed=players)
            dealers = []
            while s.phase != "finished":
                dealers.append(s.dealer)
                s = play_round_random(s, rng)
            assert dealers == [r % players for r in range(rounds)]
            assert len(s.history) == rounds
            outcome = RULES.outcome(s)
            assert outcome.scores == tuple(sum(h[2][t] for h in s.history) for t in range(len(outcome.scores)))
            assert outcome.winners == tuple(t for t, x in enumerate(outcome.scores) if x == max(outcome.scores))

    def test_three_players_trick_has_two_cards_from_each(self):
        s = _bidded({"players": 3, "mode": "physical"}, trump=(3, "green"))
        leader = s.to_act
        order = []
        for card in ["red1", "red2", "red3", "red4", "red5", "red6"]:
            order.append(s.to_act)
            s = RULES.apply(s, Play(s.to_act, card))
        assert order == [(leader + i) % 3 for i in range(6)]
        assert sum(s.tricks_won) == 1 and s.tricks_won[order[2]] == 1   # red3 is trump number

    def test_team_bid_is_the_sum_of_the_partners_bids(self):
        s = RULES.new_game({"players": 4, "mode": "physical"}, seed=1)
        s = RULES.apply(s, NameTrumpNumber(1, 3))
        s = RULES.apply(s, NameTrumpColour(2, "green"))
        for p, b in ((1, 2), (2, 0), (3, 1), (0, 1)):
            s = RULES.apply(s, Bid(p, b))
        # team 0 = seats 0, 2 (1 + 0); team 1 = seats 1, 3 (2 + 1)
        assert RULES.public_view(s)["team_bids"] == [1, 3]


def _bidded(config, trump):
    s = RULES.new_game(config, seed=1)
    s = RULES.apply(s, NameTrumpNumber(s.to_act, trump[0]))
    s = RULES.apply(s, NameTrumpColour(s.to_act, trump[1]))
    while s.phase == "bidding":
        s = RULES.apply(s, Bid(s.to_act, 0))
    return s


def _play_all(s, cards):
    for text in cards:
        card, choice = parse_play(text)
        s = RULES.apply(s, Play(s.to_act, card.name, choice))
    return s


# --- refusals: each leaves the state as it was ------------------------------------------------

class TestRefusals:
    def refuse(self, state, action, match):
        with pytest.raises(IllegalAction, match=match) as info:
            RULES.apply(state, action)
        assert info.value.key
        return info.value

    def test_out_of_turn(self):
        s = RULES.new_game({"players": 4}, seed=1)
        err = self.refuse(s, NameTrumpNumber(3, 2), "turn")
        assert err.message("en", ["Ana", "Ben", "Cleo", "Dan"]) == "It is Ben’s turn, not Dan’s."

    def test_wrong_phase(self):
        s = RULES.new_game({"players": 4}, seed=1)
        self.refuse(s, Bid(1, 2), "names the trump number")
        self.refuse(s, Play(1, "red1"), "names the trump number")

    def test_trump_number_out_of_range(self):
        s = RULES.new_game({"players": 4}, seed=1)
        self.refuse(s, NameTrumpNumber(1, 8), "from 1 to 7, not 8")
        self.refuse(s, NameTrumpNumber(1, 0), "from 1 to 7")

    def test_unknown_colour(self):
        s = RULES.apply(RULES.new_game({"players": 4}, seed=1), NameTrumpNumber(1, 2))
        self.refuse(s, NameTrumpColour(2, "purple"), "not a colour")

    def test_bid_out_of_range(self):
        s = RULES.new_game({"players": 4}, seed=1)
        s = RULES.apply(s, NameTrumpNumber(1, 2))
        s = RULES.apply(s, NameTrumpColour(2, "red"))
        self.refuse(s, Bid(1, -1), "below 0")
        self.refuse(s, Bid(1, 8), "highest bid is 7")
        s = RULES.apply(s, Bid(1, 5))
        s = RULES.apply(s, Bid(2, 0))
        err = self.refuse(s, Bid(3, 3), "partner bid 5")
        assert err.params["high"] == 2
        assert RULES.legal_actions(s, 3)[-1] == Bid(3, 2)

    def test_card_already_played(self):
        s = _bidded({"players": 4, "mode": "physical"}, trump=(3, "green"))
        s = RULES.apply(s, Play(s.to_act, "red1"))
        self.refuse(s, Play(s.to_act, "red1"), "already been played")

    def test_card_not_in_this_player_counts_deck(self):
        s = _bidded({"players": 4, "mode": "physical"}, trump=(3, "green"))
        self.refuse(s, Play(s.to_act, "red8"), "not used with 4 players")

    def test_card_not_in_hand_in_virtual_mode(self):
        s = _bidded({"players": 6}, trump=(3, "green"))
        other = s.hands[(s.to_act + 1) % 6][0]
        self.refuse(s, Play(s.to_act, other), "not in your hand")

    def test_special_choices(self):
        s = _bidded({"players": 4, "mode": "physical"}, trump=(3, "green"))
        self.refuse(s, Play(s.to_act, "dungeon", 0), "no card to lock")
        self.refuse(s, Play(s.to_act, "mathematician", 9), "from 1 to 7")
        self.refuse(s, Play(s.to_act, "mathematician"), "from 1 to 7")
        self.refuse(s, Play(s.to_act, "alchemist", "pink"), "trump colour")
        self.refuse(s, Play(s.to_act, "red2", 3), "no choice")
        s = RULES.apply(s, Play(s.to_act, "red1"))
        self.refuse(s, Play(s.to_act, "dungeon"), "Choose which card")
        self.refuse(s, Play(s.to_act, "dungeon", 1), "one of the 1 cards")
        self.refuse(s, Play(s.to_act, "dungeon", True), "one of the 1 cards")

    def test_after_the_game(self):
        import random
        rng = random.Random(2)
        s = RULES.new_game({"players": 6}, seed=2)
        while s.phase != "finished":
            s = play_round_random(s, rng)
        self.refuse(s, Bid(0, 1), "game is over")
        assert RULES.to_act(s) is None and RULES.legal_actions(s, 0) == []

    def test_bad_config(self):
        with pytest.raises(IllegalAction, match="virtual or physical"):
            RULES.new_game({"players": 4, "mode": "telepathic"}, seed=1)
        with pytest.raises(IllegalAction, match="first dealer"):
            RULES.new_game({"players": 4, "first_dealer": 4}, seed=1)

    def test_unknown_action_json(self):
        with pytest.raises(IllegalAction, match="does not know"):
            RULES.action_from_json({"type": "cheat", "player": 1})
        with pytest.raises(IllegalAction, match="does not know"):
            RULES.action_from_json({"type": "bid", "player": 1, "tricks": 2, "extra": 1})


# Written out from the rule book's table (not from the formula under test): a point a
# trick; the table's bonus when the team made its bid; a team that bid and took no trick
# loses a point for each trick it missed.
@pytest.mark.parametrize("bid, tricks, teams, points", [
    (1, 0, 2, -1), (3, 0, 2, -3), (3, 0, 3, -3), (0, 0, 2, 0), (0, 2, 2, 2),
    (1, 1, 2, 1 + 2), (2, 4, 2, 4 + 4), (3, 3, 2, 3 + 8), (4, 5, 2, 5 + 16), (5, 5, 2, 5 + 30),
    (6, 6, 2, 6 + 50), (7, 7, 2, 7 + 100), (5, 4, 2, 4),
    (1, 1, 3, 1 + 4), (2, 2, 3, 2 + 8), (3, 3, 3, 3 + 16), (4, 4, 3, 4 + 30), (5, 6, 3, 6 + 50),
    (6, 6, 3, 6 + 100), (7, 7, 3, 7 + 200), (3, 2, 3, 2),
])
def test_team_points_as_the_rule_book_prints_them(bid, tricks, teams, points):
    assert team_points(bid=bid, tricks=tricks, teams=teams) == points


def test_a_dungeon_two_cards_from_the_end_still_locks_its_card():
    # the Dungeon locks green 3 (trump number and colour); of the rest red 2 is highest (red led)
    assert trick_winner(["green3", "red1", "dungeon:0", "red2"], trump_number=3, trump_colour="green") == 3
    assert trick_winner(["green3", "red1", "red2", "dungeon:0"], trump_number=3, trump_colour="green") == 2


def test_a_dungeon_two_cards_before_the_end_still_locks_its_card():
    """Issue 17: a Dungeon at an even distance from the end of the trick was ignored by a
    loop stepping by two. Locked, the trump green 3 cannot win: red 2 (seat 4) does."""
    assert trick_winner(["green3", "red1", "dungeon:0", "red2"], 3, "green") == 3
    assert trick_winner(["green3", "red1", "red2", "dungeon:0"], 3, "green") == 2


@pytest.mark.parametrize("bid, teams, points", [(1, 2, -1), (2, 2, -2), (1, 3, -1), (3, 3, -3)])
def test_a_team_that_bid_and_took_no_trick_loses_a_point_per_trick_bid(bid, teams, points):
    """Issue 17: `team_points(1, 0, …)` returning 0 survived every test."""
    assert team_points(bid, 0, teams) == points


# --- what a mutation run (tools/mutate.py) showed no test noticed -----------------------------------

def test_the_game_as_the_menu_offers_it():
    assert (RULES.name, RULES.title, RULES.player_counts) == ("partout", "Partout", (3, 4, 6))
    s = RULES.new_game({}, seed=1)                        # four players by default, seat 1 deals
    assert (s.players, s.mode, s.first_dealer, s.dealer, s.round, s.trick_leader) == (4, "virtual", 0, 0, 0, 1)
    assert (s.to_act, RULES.to_act(s), s.tricks_won, s.history) == (1, 1, (0, 0, 0, 0), ())


def test_the_card_list_for_enrolling_is_in_hand_order():
    """Colour by colour (by name: black, blue, green, red), each 1 up to 9, then the
    special cards by name."""
    names = RULES.card_names()
    assert len(names) == 42 and names[:3] == ["black1", "black2", "black3"] and names[8:10] == ["black9", "blue1"]
    specials = sorted(n for n in names if not n[-1].isdigit())
    assert names[-len(specials):] == specials and len(specials) == 6


def test_a_hand_is_sorted_colour_by_colour_then_the_specials():
    s = RULES.new_game({"players": 6}, seed=4)
    order = RULES.card_names()
    for hand in s.hands:
        assert list(hand) == sorted(hand, key=order.index)


def test_the_deal_is_shuffled_and_saved_games_deal_the_same():
    """A game is saved as its seed and its moves: the same seed must deal the same hands in
    every version, or a resumed game would hold other cards. Pinned for seed 7."""
    a, b = RULES.new_game({"players": 4}, seed=7), RULES.new_game({"players": 4}, seed=8)
    assert a.hands != b.hands
    assert a.hands[0] == ("black7", "blue1", "green3", "green6", "red2", "alchemist", "dungeon")


@pytest.mark.parametrize("players, dealer, colour_namer", [(6, 1, 3), (6, 5, 1), (3, 2, 1)])
def test_the_second_player_after_the_dealer_names_the_colour(players, dealer, colour_namer):
    s = RULES.new_game({"players": players, "first_dealer": dealer}, seed=1)
    assert s.to_act == (dealer + 1) % players              # the next one names the number
    s = RULES.apply(s, NameTrumpNumber(s.to_act, 3))
    assert s.to_act == colour_namer


def test_a_locked_card_before_a_mathematician_does_not_stop_the_new_trump_number():
    result = resolve_trick([parse_play(p) for p in ["red1", "mathematician:5", "dungeon:0"]], 3, "green")
    assert result.trump_number == 5 and result.locked == {0}


def test_only_the_seat_on_turn_has_moves_and_a_seat_past_the_last_is_refused():
    s = RULES.new_game({"players": 4}, seed=1)
    assert RULES.legal_actions(s, 2) == [] and RULES.legal_actions(s, 1)
    with pytest.raises(IllegalAction) as err:
        RULES.apply(s, NameTrumpNumber(4, 3))
    assert err.value.key == "no_such_seat"


def test_playable_cards_only_for_the_seat_on_turn_while_playing():
    from controller.games.partout import playable_cards
    s = _bidded({"players": 4}, trump=(3, "green"))
    assert playable_cards(s, s.to_act) == list(s.hands[s.to_act])
    assert playable_cards(s, (s.to_act + 1) % 4) == []
    physical = _bidded({"players": 4, "mode": "physical"}, trump=(3, "green"))
    assert len(playable_cards(physical, physical.to_act)) == 34
    bidding = RULES.new_game({"players": 4}, seed=1)
    assert playable_cards(bidding, bidding.to_act) == []


def test_rounds_still_to_deal_are_what_an_undo_must_not_reveal():
    s = RULES.new_game({"players": 4}, seed=1)
    assert RULES.unseen(s) == (8,)
    s = play_round_random(s, __import__("random").Random(1))
    assert s.round == 1 and RULES.unseen(s) == (7,)


def test_the_public_view_of_a_trick_shows_locks_and_the_trumps_in_force():
    s = _bidded({"players": 4, "mode": "physical"}, trump=(3, "green"))
    s = _play_all(s, ["red1", "mathematician:5", "dungeon:0"])
    view = RULES.public_view(s)
    assert view["trump_number"] == 5 and view["trump_colour"] == "green"     # the mathematician holds already
    assert [p["locked"] for p in view["trick"]] == [True, False, False]
    assert view["cards_left"] == [7 - (p in {s.trick[i][0] for i in range(3)}) for p in range(4)]
    s = _play_all(s, ["red2"])
    view = RULES.public_view(s)
    assert view["trick"] == [] and view["cards_left"] == [6, 6, 6, 6]
    last = view["last_trick"]
    assert [p["card"] for p in last["plays"]] == ["red1", "mathematician", "dungeon", "red2"]
    assert [p["locked"] for p in last["plays"]] == [True, False, False, False]
    assert last["plays"][1]["choice"] == 5 and last["plays"][2]["choice"] == 0
    assert last["winner"] == last["plays"][3]["player"]                     # red2: red1 is locked


def test_cards_left_in_a_physical_round_count_what_each_seat_played():
    s = _bidded({"players": 3, "mode": "physical"}, trump=(3, "green"))
    leader = s.to_act
    s = _play_all(s, ["red1", "red2", "blue1"])            # leader, next, the third
    assert RULES.public_view(s)["cards_left"] == [10 - 1] * 3
    s = _play_all(s, ["blue2"])                            # the leader's second card
    left = RULES.public_view(s)["cards_left"]
    assert left[leader] == 8 and sorted(left) == [8, 9, 9]


def test_a_card_name_is_read_as_a_tag_or_a_person_writes_it():
    s = _bidded({"players": 4}, trump=(3, "green"))
    card = s.hands[s.to_act][0]
    after = RULES.apply(s, Play(s.to_act, f" {card.upper()} "))
    assert after.trick[-1][1] == card


def test_a_finished_game_has_no_moves_and_cards_left_count_down():
    s = RULES.new_game({"players": 4}, seed=2)
    assert RULES.public_view(s)["cards_left"] == [7, 7, 7, 7]
    rng = __import__("random").Random(2)
    while s.phase != "finished":
        s = play_round_random(s, rng)
    assert all(RULES.legal_actions(s, p) == [] for p in range(4))
    three = _bidded({"players": 3, "mode": "physical"}, trump=(3, "green"))
    three = _play_all(three, ["red1", "red2", "red3", "red4", "red5", "red6"])   # a whole trick: 2 each
    assert RULES.public_view(three)["cards_left"] == [8, 8, 8]
