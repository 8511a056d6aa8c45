"""Crazy Kick's rules core: the decks, can_play, the rule book's example attack, every
refusal, goals, reshuffles, the ball out, and whole bot matches."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings, strategies as st

from controller.games import IllegalAction, find_game
from controller.games.crazykick import (
    RULES, BallOut, Flip, Play, Reshuffle, _replace, can_play, load_deck, starting_piles,
)
from controller.bots.crazykick import Reaction, simulate_match


def card(deck, player, passes=(), tackles=(), goal=False):
    for c in deck:
        if c.player == player and c.goal == goal and set(passes) <= set(c.passes) and set(tackles) <= set(c.tackles):
            return c
    raise LookupError(player)


def arrange(state, piles_by_seat, centre=()):
    """Put given cards on seats' piles (bottom → top) and the centre; take them out of hands."""
    used = {c for seat in piles_by_seat.values() for pile in seat for c in pile} | set(centre)
    hands = tuple(tuple(c for c in h if c not in used) for h in state.hands)
    piles = list(state.piles)
    for seat, seat_piles in piles_by_seat.items():
        piles[seat] = tuple(tuple(p) for p in seat_piles) + tuple(() for _ in range(state.pile_count[seat] - len(seat_piles)))
    return state._replace(hands=hands, piles=tuple(piles), centre=tuple(centre), votes=frozenset())


def every_card(state):
    cards = [c for h in state.hands for c in h] + [c for seat in state.piles for p in seat for c in p]
    return cards + list(state.centre) + [c for g in state.goals for c in g]


# -- the decks ------------------------------------------------------------------------------------

@pytest.mark.parametrize("edition, per_team, teams, keepers", [
    ("schmidt", 75, ("red", "black"), {"Tim", "Patrick"}),
    ("dlp", 60, ("red", "white"), {"Alex", "Omar"}),
])
def test_deck_matches_the_box(edition, per_team, teams, keepers):
    deck = load_deck(edition)
    assert Counter(c.team for c in deck) == {teams[0]: per_team, teams[1]: per_team}
    assert Counter(c.team for c in deck if c.goal) == {teams[0]: 8, teams[1]: 8}
    for team in teams:
        assert len({c.player for c in deck if c.team == team}) == 11
    assert {c.player for c in deck if c.number == 1} == keepers
    team_of = {c.player: c.team for c in deck}
    for c in deck:
        if c.goal:
            assert not c.passes and not c.tackles and c.number >= 6
            continue
        assert 1 <= len(c.passes) <= 2 and 1 <= len(c.tackles) <= 2, c
        assert all(team_of[n] == c.team for n in c.passes) and all(team_of[n] != c.team for n in c.tackles)
        assert c.player not in c.passes


@pytest.mark.parametrize("edition", ["schmidt", "dlp"])
def test_no_card_is_a_dead_end(edition):
    deck = load_deck(edition)
    for top, follows in zip(deck, deck.follows):
        if not top.goal:
            assert len(follows) >= 5, top


@pytest.mark.parametrize("edition", ["schmidt", "dlp"])
def test_the_two_teams_decks_mirror_each_other(edition):
    """Neither team's deck is luckier (docs/crazy-kick.md, The decks): read by shirt
    numbers, each team has the same cards: the same passes, tackles and goal cards."""
    deck = load_deck(edition)

    def by_numbers(team_index):
        return Counter((c.number, c.goal, tuple(sorted(deck.numbers[n] for n in c.passes)),
                        tuple(sorted(deck.numbers[n] for n in c.tackles)))
                       for c in deck if c.team_index == team_index)
    assert by_numbers(0) == by_numbers(1)


def test_unknown_edition_is_refused():
    with pytest.raises(IllegalAction) as err:
        load_deck("panini")
    assert err.value.key == "ck_unknown_edition" and "schmidt" in str(err.value)


# -- can_play -----------------------------------------------------------------------------------

def test_can_play_passes_tackles_goals_and_kickoff():
    deck = load_deck("schmidt")
    tim = card(deck, "Tim", passes=["Stefan"])
    stefan = card(deck, "Stefan", tackles=["Jonas"])
    jonas = card(deck, "Jonas", passes=["Dennis"])
    assert can_play(tim, None) and not can_play(stefan, None)
    assert can_play(stefan, tim)                                  # a pass
    assert can_play(jonas, stefan)                                # a tackle
    assert not can_play(tim, stefan)                              # Stefan does not pass back to Tim
    paul_goal = card(deck, "Paul", goal=True)
    paul = card(deck, "Paul", passes=[])
    assert can_play(paul_goal, paul) and not can_play(paul_goal, jonas)
    assert not can_play(stefan, paul_goal)                        # nothing follows a goal


def test_the_rule_books_example_attack_is_playable():
    """Tim kicks off; Stefan; Jonas takes it; Dennis; Luca; Dieter tackles; Max; Paul scores."""
    deck = load_deck("schmidt")
    chain = [card(deck, "Tim", passes=["Stefan"]), card(deck, "Stefan", tackles=["Jonas"]),
             card(deck, "Jonas", passes=["Dennis"]), card(deck, "Dennis", passes=["Luca"]),
             card(deck, "Luca", tackles=["Dieter"]), card(deck, "Dieter", passes=["Max"]),
             card(deck, "Max", passes=["Paul"]), card(deck, "Paul"), card(deck, "Paul", goal=True)]
    assert [c.team for c in chain] == ["red", "red", "black", "black", "black", "red", "red", "red", "red"]
    state = RULES.new_game({"players": 2}, seed=1)
    red = [c.id for c in chain if c.team == "red"]
    black = [c.id for c in chain if c.team == "black"]
    # seat 0 plays red, seat 1 black: each card on its own pile, played in the example's order
    state = arrange(state, {0: [[red[0]], [red[1]], [red[2]]], 1: [[black[0]], [black[1]], [black[2]]]})
    kinds = []
    for seat, pile in [(0, 0), (0, 1), (1, 0), (1, 1), (1, 2), (0, 2)]:
        state = RULES.apply(state, Play(seat, pile))
        kinds.append(state.last.kind)
    assert kinds == ["kickoff", "pass", "tackle", "pass", "pass", "tackle"]
    for c in red[3:]:                      # Max, Paul, Paul's goal
        state = arrange(state, {0: [[c]] + [list(p) for p in state.piles[0][1:]]}, centre=state.centre)
        state = RULES.apply(state, Play(0, 0))
    assert state.last.kind == "goal" and state.scores == (1, 0)
    assert deck[state.goals[0][0]].player == "Paul"
    assert state.centre == () and all(not any(p) for p in state.piles)   # a new attack: all cards back


# -- setup --------------------------------------------------------------------------------------

@pytest.mark.parametrize("players, piles", [(2, (3, 3)), (3, (2, 4)), (4, (3, 3)), (5, (2, 3)), (6, (3, 3)),
                                             (7, (2, 3)), (8, (3, 3))])
def test_teams_piles_and_deal(players, piles):
    state = RULES.new_game({"players": players}, seed=5)
    assert starting_piles(players) == piles
    sizes = Counter(state.team_of)
    assert abs(sizes[0] - sizes[1]) <= 1 and sizes[0] >= sizes[1]
    for seat, team in enumerate(state.team_of):
        assert state.pile_count[seat] == piles[team]
    deck = load_deck("schmidt")
    for team in (0, 1):                  # each team's cards, split about evenly between team-mates
        counts = [len(state.hands[s]) for s in range(players) if state.team_of[s] == team]
        assert sum(counts) == 75 and max(counts) - min(counts) <= 1
        assert all(deck[c].team_index == team for s in range(players) if state.team_of[s] == team
                   for c in state.hands[s])
    assert sorted(every_card(state)) == list(range(150))


@pytest.mark.parametrize("players, lone_or_smaller, larger", [(3, 4, 2), (5, 3, 2), (7, 3, 2)])
def test_an_uneven_table_lays_the_piles_of_the_books_box(players, lone_or_smaller, larger):
    """The book's box, "3, 5 oder 7 Kicker?": "3 Kicker: Der einzelne Spieler blättert 4
    offene Karten nebeneinander auf und die Spieler des 2-er-Teams je 2. 5 Kicker: Die
    Spieler des 3-er-Teams blättern je 2 offene Karten nebeneinander auf, die Spieler des
    2-er-Teams je 3. 7 Kicker: Die Spieler des 4-er-Teams blättern je 2 offene Karten
    nebeneinander auf, die Spieler des 3-er-Teams je 3." The deal gives each seat that many
    piles, and the how-to page says the same numbers in every language (it said "two or
    four" at 3, 5 and 7 alike)."""
    from controller.games import texts
    state = RULES.new_game({"players": players}, seed=5)
    sizes = Counter(state.team_of)
    larger_team = max((0, 1), key=lambda t: sizes[t])
    assert sizes[larger_team] == sizes[1 - larger_team] + 1 == (players + 1) // 2
    for seat, team in enumerate(state.team_of):
        assert state.pile_count[seat] == (larger if team == larger_team else lone_or_smaller)
        assert len(state.piles[seat]) == state.pile_count[seat]
    said = {"en": ("the lone player four, the pair two each", "the larger team two each, the smaller three each"),
            "de": ("der einzelne Spieler 4, die Spieler des 2er-Teams je 2",
                   "die Spieler des größeren Teams je 2, die des kleineren je 3"),
            "fr": ("le joueur seul 4, ceux de l’équipe de 2 chacun 2",
                   "ceux de la plus grande équipe chacun 2, ceux de la plus petite chacun 3"),
            "it": ("chi gioca da solo 4, la coppia 2 a testa", "la squadra più grande 2 a testa, la più piccola 3 a testa")}
    for lang, (three, five_or_seven) in said.items():
        page = next(p for p in texts.how_to_play("crazy-kick", lang) if p.picture["kind"] == "piles").text
        assert three in page and five_or_seven in page, lang
        assert not any(w in page for w in ("two or four", "zwei oder vier", "deux ou quatre", "due o quattro"))


@pytest.mark.parametrize("config, key", [({"players": 1}, "ck_player_count"), ({"players": 9}, "ck_player_count"),
                                         ({"players": 4, "mode": "physical"}, "ck_virtual_only"),
                                         ({"players": 4, "goals": 0}, "ck_goals_out_of_range"),
                                         ({"players": 4, "goals": 9}, "ck_goals_out_of_range"),   # 8 goal cards a team
                                         ({"players": 4, "edition": "x"}, "ck_unknown_edition")])
def test_bad_configs_are_refused(config, key):
    with pytest.raises(IllegalAction) as err:
        RULES.new_game(config, 1)
    assert err.value.key == key


# -- flips, plays and their refusals --------------------------------------------------------------

def refused(state, action, key):
    with pytest.raises(IllegalAction) as err:
        RULES.apply(state, action)
    assert err.value.key == key, err.value.key
    return err.value


def non_keeper_hand(state, seat):
    deck = load_deck(state.edition)
    hand = sorted(state.hands[seat], key=lambda c: deck[c].keeper)
    return state._replace(hands=tuple(tuple(hand) if s == seat else h for s, h in enumerate(state.hands)))


def test_the_starting_piles_are_laid_first_then_a_flip_may_go_onto_any_pile():
    """The book: "Sobald die drei Karten offen ausliegen, kann jeder Spieler von seinen
    Handkarten weitere Karten einzeln aufdecken und sie auf einen beliebigen seiner offenen
    Stapel ablegen", and after a reshuffle "rentre dans le jeu en formant à nouveau trois
    piles devant lui". Until all starting piles are laid (since the deal or the last
    reshuffle), a flip goes onto an empty pile; then onto any, and a pile played empty may
    stay empty."""
    state = non_keeper_hand(RULES.new_game({"players": 2}, seed=2), 0)
    state = RULES.apply(state, Flip(0, 0))
    error = refused(state, Flip(0, 0), "ck_fill_empty_pile")     # pile 1 again, piles 2 and 3 empty
    assert "2" in error.message("en")
    assert [a for a in RULES.legal_actions(state, 0) if isinstance(a, Flip)] == [Flip(0, 1), Flip(0, 2)]
    state = RULES.apply(RULES.apply(state, Flip(0, 2)), Flip(0, 1))   # all three laid, in any order
    assert [len(p) for p in state.piles[0]] == [1, 1, 1] and state.laid[0]
    assert [a for a in RULES.legal_actions(state, 0) if isinstance(a, Flip)] == [Flip(0, 0), Flip(0, 1), Flip(0, 2)]
    emptied = state._replace(piles=state.piles[:0] + (((), state.piles[0][1], state.piles[0][2]),) + state.piles[1:])
    after = RULES.apply(emptied, Flip(0, 2))                        # pile 1 played empty may stay empty
    assert [len(p) for p in after.piles[0]] == [0, 1, 2]
    refused(state, Flip(0, 3), "ck_no_such_pile")
    # after a reshuffle the piles are laid anew
    flipped = state._replace(hands=((),) + state.hands[1:])
    again = RULES.apply(flipped, Reshuffle(0))
    assert not again.laid[0] and not any(again.piles[0])
    again = non_keeper_hand(again, 0)
    again = RULES.apply(again, Flip(0, 1))
    refused(again, Flip(0, 1), "ck_fill_empty_pile")
    # a saved match from before the field: a seat whose piles all hold cards has laid them
    data = RULES.state_to_json(state)
    del data["laid"]
    assert RULES.state_from_json(data).laid == (True, False)


def test_the_first_keeper_flipped_kicks_off():
    deck = load_deck("schmidt")
    state = RULES.new_game({"players": 2}, seed=2)
    keeper = next(c for c in state.hands[1] if deck[c].keeper)
    hand = (keeper,) + tuple(c for c in state.hands[1] if c != keeper)
    state = state._replace(hands=(state.hands[0], hand))
    state = RULES.apply(state, Flip(1, 0))
    assert state.centre == (keeper,) and state.last.kind == "kickoff" and state.attacks == 1
    assert not any(state.piles[1])


def test_plays_that_do_not_fit_are_refused_and_change_nothing():
    deck = load_deck("schmidt")
    tim = card(deck, "Tim", passes=["Stefan"])
    stefan = card(deck, "Stefan", tackles=["Jonas"])
    luca = next(c for c in deck if c.player == "Luca" and not c.goal)
    paul_goal = card(deck, "Paul", goal=True)
    state = arrange(RULES.new_game({"players": 2}, seed=3), {0: [[stefan.id], [paul_goal.id], []], 1: [[luca.id]]})
    refused(state, Play(0, 0), "ck_kickoff_needs_keeper")
    state = arrange(state, {0: [[stefan.id], [paul_goal.id], []], 1: [[luca.id]]}, centre=[tim.id])
    before = state
    err = refused(state, Play(1, 0), "ck_does_not_fit")
    assert "Luca" in str(err) and "Tim" in str(err)
    refused(state, Play(0, 1), "ck_goal_needs_ball")
    refused(state, Play(0, 2), "ck_pile_empty")
    refused(state, Play(0, 5), "ck_no_such_pile")
    refused(state, Play(7, 0), "no_such_seat")
    refused(state, BallOut(0), "ck_ball_not_out")          # Stefan lies open and fits Tim
    assert state == before


def test_a_press_that_lost_the_race_is_told_so():
    """Two players hold a card that fits Tim; the first one played wins, the second is too late."""
    deck = load_deck("schmidt")
    tim = next(c for c in deck if c.player == "Tim" and len(c.passes) == 2)
    first, second = tim.passes
    firsts = [c.id for c in deck if c.player == first and not c.goal][:1]
    seconds = [c.id for c in deck if c.player == second and not c.goal and not can_play(c, deck[firsts[0]])][:1]
    state = arrange(RULES.new_game({"players": 4}, seed=3), {0: [firsts], 2: [seconds]}, centre=[tim.id])
    state = RULES.apply(state, Play(0, 0))
    err = refused(state, Play(2, 0), "ck_too_late")
    assert err.params["winner"] == 0 and "Seat 1 was faster" in str(err)


def test_an_empty_hand_reshuffles_its_piles():
    state = non_keeper_hand(RULES.new_game({"players": 8}, seed=4), 0)
    for k in range(len(state.hands[0])):
        state = RULES.apply(state, Flip(0, k % 3))
    held = sorted(c for p in state.piles[0] for c in p)
    refused(state, Flip(0, 0), "ck_hand_empty")
    state2 = RULES.apply(state, Reshuffle(0))
    assert sorted(state2.hands[0]) == held and not any(state2.piles[0])
    refused(state2, Reshuffle(0), "ck_hand_not_empty")
    empty = state2._replace(hands=tuple(() if s == 0 else h for s, h in enumerate(state2.hands)))
    refused(empty, Reshuffle(0), "ck_no_cards")
    refused(empty, Flip(0, 0), "ck_no_cards")


# -- the ball out ---------------------------------------------------------------------------------

def stuck_state():
    """The cards that could follow the top are all in the centre already (the book: "weil
    alle gesuchten Karten bereits im Spielstapel stecken"); every pile is empty."""
    deck = load_deck("schmidt")
    state = RULES.new_game({"players": 2}, seed=6)
    top = card(deck, "Tim", passes=["Stefan"])
    follows = sorted(deck.follows[top.id])
    return arrange(state, {}, centre=[*follows[:-1], follows[-1], top.id]), top


def test_ball_out_needs_both_teams_and_returns_all_but_the_top():
    """The book: "Wenn beide Teams sich darüber einig sind, wird das Spiel kurz unterbrochen
    und alle gespielten Karten - bis auf die oberste - werden an die Teams verteilt." One
    team's word does not stop the game (flips go on); the other team's word completes it."""
    state, top = stuck_state()
    assert BallOut(0) in RULES.legal_actions(state, 0)
    state = RULES.apply(state, BallOut(0))
    refused(state, BallOut(0), "ck_already_agreed")
    assert state.votes == {0} and BallOut(0) not in RULES.legal_actions(state, 0)
    state = RULES.apply(state, Flip(0, 0))                # the game goes on until both agree
    assert state.votes == {0}
    total = len(every_card(state))
    state = RULES.apply(state, BallOut(1))
    assert state.centre == (top.id,) and state.votes == frozenset() and state.last.kind == "ball_out"
    assert len(every_card(state)) == total
    deck = load_deck("schmidt")
    for seat in (0, 1):
        assert all(deck[c].team_index == state.team_of[seat] for c in state.hands[seat])


def test_the_teams_agree_without_the_table_looking_into_a_hand():
    """The book: "Wenn beide Teams sich darüber einig sind": the teams judge whether a card
    can still be played, the referee does not reveal face-down cards. So the ball-out
    follows a word from each team even while a card that fits lies face down in a hand,
    and the table's stall hint names nobody."""
    from controller.games.crazykick import STALL_HINT_S, stalled
    deck = load_deck("schmidt")
    paul = next(c for c in deck if c.player == "Paul" and not c.goal)
    state = arrange(RULES.new_game({"players": 4}, seed=1), {}, centre=[paul.id])    # every pile empty
    assert any(c in deck.follows[paul.id] for h in state.hands for c in h)          # one lies face down
    assert stalled(state) and RULES.idle_hint(state) == (STALL_HINT_S, "ck_stall_hint", {})
    state = RULES.apply(state, BallOut(2))                # seat 3, the red team
    assert RULES.idle_hint(state) == (STALL_HINT_S, "ck_stall_hint_agreed", {"team": "red"})
    refused(state, BallOut(0), "ck_already_agreed")       # the team has spoken: one word a team
    state = RULES.apply(state, BallOut(3))                # the black team
    assert state.last.kind == "ball_out" and state.centre == (paul.id,)


def test_a_teams_word_lapses_when_an_open_card_fits_again():
    """The ball-out is for when "keine Karte mehr gespielt werden kann": a flip that lays
    a fitting card open ends the stall, and with it a team's word given during it."""
    deck = load_deck("schmidt")
    paul = next(c for c in deck if c.player == "Paul" and not c.goal)
    state = arrange(RULES.new_game({"players": 2}, seed=1), {}, centre=[paul.id])
    fit = next(c for c in state.hands[1] if c in deck.follows[paul.id])
    state = RULES.apply(state, BallOut(0))
    hand = (fit,) + tuple(c for c in state.hands[1] if c != fit)
    state = RULES.apply(state._replace(hands=(state.hands[0], hand)), Flip(1, 0))
    assert state.votes == frozenset() and BallOut(0) not in RULES.legal_actions(state, 0)
    refused(state, BallOut(1), "ck_ball_not_out")
    refused(RULES.new_game({"players": 2}, seed=1), BallOut(0), "ck_ball_not_out")    # no attack yet


# -- goals, the end, replay -------------------------------------------------------------------------

def test_first_to_the_goals_wins_and_the_game_ends():
    stats = simulate_match({"players": 4, "goals": 2}, seed=9)
    assert stats.result["finished"] and max(stats.result["scores"]) == 2
    assert len(stats.attack_plays) == sum(stats.result["scores"])


@pytest.mark.parametrize("players", [2, 3, 5, 8])
@pytest.mark.parametrize("edition", ["schmidt", "dlp"])
def test_whole_bot_matches_finish_with_the_goals_each_team_needs(players, edition):
    stats = simulate_match({"players": players, "edition": edition}, seed=players)
    needed = RULES.new_game({"players": players}, seed=0).needed
    winner = stats.result["winner"]
    assert stats.result["finished"] and stats.result["scores"][winner] == needed[winner]
    assert stats.result["scores"][1 - winner] < needed[1 - winner]


def test_same_seed_same_match_and_replay_reaches_the_same_state():
    a = simulate_match({"players": 4}, seed=11)
    b = simulate_match({"players": 4}, seed=11)
    assert a.result == b.result and a.match_seconds == b.match_seconds


def test_json_round_trip_and_replay():
    rules = find_game("crazy-kick")
    state = rules.new_game({"players": 3}, seed=12)
    actions = []
    for step in range(200):
        seat = step % 3
        legal = rules.legal_actions(state, seat)
        if legal:
            action = legal[step % len(legal)]
            state = rules.apply(state, action)
            actions.append(rules.action_from_json(rules.action_to_json(action)))
    assert rules.state_from_json(rules.state_to_json(state)) == state
    assert rules.replay({"players": 3}, 12, actions) == state


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), players=st.integers(2, 8), choices=st.lists(st.integers(0, 1000), max_size=400))
def test_no_card_appears_twice_and_goals_add_up(seed, players, choices):
    state = RULES.new_game({"players": players, "edition": "dlp" if seed % 2 else "schmidt"}, seed)
    size = len(load_deck(state.edition))
    for choice in choices:
        seat = choice % players
        legal = RULES.legal_actions(state, seat)
        if not legal:
            continue
        state = RULES.apply(state, legal[(choice // players) % len(legal)])
        cards = every_card(state)
        assert len(cards) == len(set(cards)) == size
        assert list(state.scores) == [len(g) for g in state.goals]
        if state.winner is not None:
            break


def test_reaction_times_parse():
    assert Reaction.parse("300-500").play_high == 500
    with pytest.raises(ValueError):
        Reaction.parse("600-100")


def test_a_match_to_eight_goals_can_end():
    """Goal cards are set aside once scored: 8 a team, so 8 is the most a match can go to."""
    from controller.bots.crazykick import simulate_match
    stats = simulate_match({"players": 4, "goals": 8}, 2)
    assert stats.result["finished"] and max(stats.result["scores"]) == 8


# -- what a mutation run (tools/mutate.py) showed no test noticed ----------------------------------

def test_the_game_as_the_menu_offers_it():
    assert (RULES.name, RULES.title, RULES.realtime, RULES.bots_fill_seats) == ("crazy-kick", "Crazy Kick", True, True)
    assert RULES.player_counts == (2, 3, 4, 5, 6, 7, 8)
    assert [(o.name, tuple(o.choices)) for o in RULES.options] == [("edition", ("schmidt", "dlp")), ("handicap", ()), ("learn", ())]
    assert RULES.card_names() == []                      # no tags: every card lives in the table


def test_a_new_match_starts_level_with_four_players_by_default():
    state = RULES.new_game({}, seed=1)
    assert len(state.team_of) == 4 and state.edition == "schmidt" and state.goals_to_win == 5
    assert state.scores == (0, 0) and state.goals == ((), ()) and state.winner is None
    assert state.votes == frozenset() and state.last is None
    assert (state.attacks, state.plays) == (0, 0) and state.centre == ()
    assert RULES.new_game({"goals": 1}, seed=1).goals_to_win == 1      # the least and the most allowed
    assert RULES.new_game({"goals": 8}, seed=1).goals_to_win == 8


def test_the_deal_is_shuffled():
    a, b = RULES.new_game({"players": 2}, seed=1), RULES.new_game({"players": 2}, seed=2)
    assert list(a.hands[0]) != sorted(a.hands[0]) and a.hands != b.hands


def test_attacks_and_plays_are_counted():
    deck = load_deck("schmidt")
    tim = card(deck, "Tim", passes=["Stefan"])
    stefan = next(c for c in deck if c.player == "Stefan" and not c.goal and can_play(c, tim))
    state = arrange(RULES.new_game({"players": 2}, seed=3), {0: [[tim.id], [stefan.id]]})
    state = RULES.apply(state, Play(0, 0))
    assert (state.attacks, state.plays, state.last.kind) == (1, 1, "kickoff")
    state = RULES.apply(state, Play(0, 1))
    assert (state.attacks, state.plays, state.last.kind) == (1, 2, "pass")


def test_a_flipped_keeper_kick_off_counts_as_a_play():
    deck = load_deck("schmidt")
    state = RULES.new_game({"players": 2}, seed=2)
    keeper = next(c for c in state.hands[0] if deck[c].keeper)
    state = state._replace(hands=((keeper,) + tuple(c for c in state.hands[0] if c != keeper), state.hands[1]))
    state = RULES.apply(state, Flip(0, 0))
    assert (state.attacks, state.plays) == (1, 1)


def test_refusals_name_the_pile_as_the_player_counts_it():
    state = non_keeper_hand(RULES.new_game({"players": 2}, seed=2), 0)
    assert refused(state, Play(0, 5), "ck_no_such_pile").params == {"pile": 6, "piles": 3}
    assert refused(state, Play(0, "a"), "ck_no_such_pile").params == {"pile": "a", "piles": 3}
    assert refused(state, Play(0, 2), "ck_pile_empty").params == {"pile": 3}
    refused(state, Play(2, 0), "no_such_seat")           # a seat one past the last


def test_an_empty_hand_with_one_pile_laid_is_told_to_reshuffle():
    state = non_keeper_hand(RULES.new_game({"players": 2}, seed=2), 0)
    state = state._replace(hands=(state.hands[0][:1], state.hands[1]))
    state = RULES.apply(state, Flip(0, 0))               # one pile laid, two empty, the hand empty
    refused(state, Flip(0, 1), "ck_hand_empty")
    assert Reshuffle(0) in RULES.legal_actions(state, 0)


def test_a_reshuffle_shuffles():
    state = non_keeper_hand(RULES.new_game({"players": 8}, seed=4), 0)
    for k in range(len(state.hands[0])):
        state = RULES.apply(state, Flip(0, k % 3))
    laid = [c for p in state.piles[0] for c in p]
    after = RULES.apply(state, Reshuffle(0))
    assert list(after.hands[0]) != laid and list(after.hands[0]) != laid[::-1]


def test_what_a_seat_may_do():
    deck = load_deck("schmidt")
    tim = card(deck, "Tim", passes=["Stefan"])
    stefan = next(c for c in deck if c.player == "Stefan" and not c.goal and can_play(c, tim))
    other = next(c for c in deck if not c.keeper and not can_play(c, tim) and c.team == "black")
    state = arrange(RULES.new_game({"players": 2}, seed=3), {0: [[stefan.id], [other.id]]}, centre=[tim.id])
    # a hand while the starting piles are laid: flip onto the empty pile, and play what fits
    assert RULES.legal_actions(state, 0) == [Flip(0, 2), Play(0, 0)]
    assert RULES.legal_actions(state._replace(laid=(True, False)), 0) == [Flip(0, 0), Flip(0, 1), Flip(0, 2), Play(0, 0)]
    state = state._replace(hands=((), state.hands[1]))
    assert RULES.legal_actions(state, 0) == [Reshuffle(0), Play(0, 0)]
    won = state._replace(winner=0)
    assert RULES.legal_actions(won, 0) == [] and RULES.legal_actions(won, 1) == []


def test_can_play_answers_yes_or_no():
    deck = load_deck("schmidt")
    goal = next(c for c in deck if c.goal)
    tim = card(deck, "Tim", passes=["Stefan"])
    assert can_play(tim, goal) is False and can_play(tim, None) is True
    assert {can_play(c, tim) for c in deck} == {True, False}


def test_the_ball_out_shuffles_the_returned_cards_into_the_hands():
    """Four players: the centre's cards go back shuffled, dealt round the team, and each hand
    shuffled again; the new top is the old one."""
    deck = load_deck("schmidt")
    state = RULES.new_game({"players": 4}, seed=6)
    top = card(deck, "Tim", passes=["Stefan"])
    follows = sorted(deck.follows[top.id])
    others = [c.id for c in deck if c.id not in follows and c.id != top.id][:20]
    centre = others + follows + [top.id]
    state = arrange(state, {}, centre=centre)
    before = state.hands
    for seat in range(2):                                 # a word from each team
        state = RULES.apply(state, BallOut(seat))
    assert state.last.card == top.id and state.centre == (top.id,)
    returned = [c for c in centre[:-1]]
    for seat in range(4):
        back = [c for c in state.hands[seat] if c in returned]
        assert list(state.hands[seat]) != list(before[seat]) + back          # shuffled, not appended
    team0 = [c for c in returned if deck[c].team_index == 0]
    in_order = [team0[i::2] for i in range(2)]                               # dealt unshuffled
    got = [[c for c in state.hands[seat] if c in team0] for seat in (0, 2)]
    assert [sorted(g) for g in got] != [sorted(g) for g in in_order]


def test_the_public_view_shows_the_table():
    deck = load_deck("schmidt")
    tim = card(deck, "Tim", passes=["Stefan"])
    stefan = next(c for c in deck if c.player == "Stefan" and not c.goal and can_play(c, tim))
    state = arrange(RULES.new_game({"players": 3}, seed=3), {1: [[stefan.id]]}, centre=[tim.id])
    view = RULES.public_view(state)
    assert view["players"] == 3 and view["team_of"] == [0, 1, 0] and view["teams"] == [[0, 2], [1]]
    assert view["edition_title"] == deck.title and view["team_names"] == list(deck.team_names)
    assert view["centre"]["player"] == "Tim" and view["covered"] is None and view["centre_count"] == 1
    assert view["ball"] == tim.team_index == 0
    assert view["hands"] == [len(h) for h in state.hands]
    assert view["piles"][1][0] == {"count": 1, "top": view["piles"][1][0]["top"]}
    assert view["piles"][1][0]["top"]["id"] == stefan.id and view["piles"][1][1] == {"count": 0, "top": None}
    assert view["last"] is None and view["votes"] == [] and view["winner"] is None
    state = RULES.apply(state, Play(1, 0))
    view = RULES.public_view(state)
    assert view["covered"]["player"] == "Tim" and view["centre"]["id"] == stefan.id and view["centre_count"] == 2
    assert view["last"] == {"kind": "pass", "seat": 1, "card": view["centre"]}
    assert view["plays"] == 1 and view["attacks"] == 0
    empty = RULES.public_view(RULES.new_game({"players": 2}, seed=1))
    assert empty["centre"] is None and empty["ball"] is None and empty["goals"] == [[], []]


def test_a_state_with_votes_and_a_last_event_survives_json():
    import json
    state, _ = stuck_state()
    state = RULES.apply(state, BallOut(1))
    state = state._replace(last=None)
    again = RULES.state_from_json(json.loads(json.dumps(RULES.state_to_json(state))))
    assert again == state and again.votes == frozenset({1})
    state, top = stuck_state()
    state = RULES.apply(RULES.apply(state, BallOut(0)), BallOut(1))
    assert state.last is not None
    assert RULES.state_from_json(json.loads(json.dumps(RULES.state_to_json(state)))) == state


def state_digest(state) -> str:
    """The cards where they lie and the match's counters (not the handicap, which the
    config sets, nor the record of every goal scored, the same as the goal cards set aside
    at an even table, nor whether the starting piles are laid, which the piles' history
    says: all came after these digests were pinned and change no card)."""
    import hashlib
    import json
    data = RULES.state_to_json(state)
    assert state.kept == (False, False) and state.scored == state.goals
    for added in ("needed", "kept", "scored", "laid"):
        del data[added]
    data["stuck"] = False            # the table's own call of the ball-out, gone (the teams agree)
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


def test_a_saved_match_replays_to_the_same_cards():
    """A match is saved as its seed and its actions (docs/architecture.md): the same seed
    must deal, reshuffle and re-deal after each goal exactly as the version that saved it,
    or a resumed match would hand out other cards. Pinned here: a 4-player match of 760
    steps (704 flips, 49 plays, 7 reshuffles, five goals) and a ball out. If a change
    of the rules or the decks means to alter this, old saved matches no longer resume: say
    so in docs/crazy-kick.md ("Saved matches across versions")."""
    state = RULES.new_game({"players": 4}, seed=12)
    for step in range(3000):
        legal = pinned_walks_choices(state, step % 4)
        if state.winner is not None:
            break
        if legal:
            state = RULES.apply(state, legal[(step * 7) % len(legal)])
    assert (step, state.scores, state.shuffles) == (760, (0, 5), 12)
    assert state_digest(state) == "6955b5c16838f448"
    state, _ = stuck_state()
    state = RULES.apply(RULES.apply(state, BallOut(0)), BallOut(1))
    assert state_digest(state) == "a3c818501439b6cf"


def pinned_walks_choices(state, seat):
    """The moves the pinned walk chose from when it was pinned: a flip onto an empty pile
    while there was one, and no word on the ball-out (it never met one). The walk is the
    same; the deal, reshuffles and goals it reaches are what the digest holds."""
    legal = [a for a in RULES.legal_actions(state, seat) if not isinstance(a, BallOut)]
    empty = [k for k, pile in enumerate(state.piles[seat]) if not pile]
    if empty and state.hands[seat]:
        legal = [a for a in legal if not isinstance(a, Flip) or a.pile in empty]
    return legal


def test_a_goal_pauses_play_and_the_winning_goal_ends_the_match():
    from controller.games.crazykick import GOAL_PAUSE_S
    deck = load_deck("schmidt")
    paul = next(c for c in deck if c.player == "Paul" and not c.goal)
    goal = next(c for c in deck if c.player == "Paul" and c.goal)
    before = arrange(RULES.new_game({"players": 4}, seed=1), {0: [[goal.id]]}, centre=[paul.id])
    after = RULES.apply(before, Play(0, 0))
    assert after.scores == (1, 0) and RULES.pause_after(before, after) == (GOAL_PAUSE_S, "ck_goal_pause") == (2.5, "ck_goal_pause")
    assert RULES.pause_after(after, RULES.apply(after, Flip(1, 0))) is None           # other moves: no pause
    last = before._replace(scores=(4, 0))
    assert RULES.pause_after(last, RULES.apply(last, Play(0, 0))) is None             # the final whistle instead


def test_a_stall_is_what_lies_open():
    """No open card fits the centre: a stall, whatever the hands hold. Before the kick-off
    and at the end: no stall; an open card that fits: none, and no hint."""
    from controller.games.crazykick import stalled
    deck = load_deck("schmidt")
    paul = next(c for c in deck if c.player == "Paul" and not c.goal)
    state = arrange(RULES.new_game({"players": 4}, seed=1), {}, centre=[paul.id])    # every pile empty
    follows = deck.follows[paul.id]
    assert stalled(state)
    holder = next(s for s in range(4) if any(c in follows for c in state.hands[s]))
    fit = next(c for c in state.hands[holder] if c in follows)
    open_fit = arrange(state, {holder: [[fit]]}, centre=[paul.id])
    assert not stalled(open_fit) and RULES.idle_hint(open_fit) is None
    under = arrange(state, {holder: [[fit, next(c for c in deck if c.id not in follows and c.id != paul.id)]]},
                    centre=[paul.id])
    assert stalled(under)                                 # a fitting card under a pile is not open
    assert stalled(RULES.new_game({"players": 4}, seed=1)) is False
    assert stalled(state._replace(winner=0)) is False


# -- uneven tables: the handicap ---------------------------------------------------------------------

def winning_goal(players, team, config=None):
    """A state of an uneven match where a seat of ``team`` can play a goal card at once."""
    deck = load_deck("schmidt")
    goal = next(c for c in deck if c.goal and c.team_index == team)
    before = next(c for c in deck if not c.goal and goal.id in deck.follows[c.id])
    state = RULES.new_game({"players": players, **(config or {})}, seed=1)
    seat = state.team_of.index(team)
    return arrange(state, {seat: [[goal.id]]}, centre=[before.id]), seat


@pytest.mark.parametrize("players, needed", [(3, (5, 3)), (5, (5, 5)), (7, (4, 5)), (4, (5, 5)), (8, (5, 5))])
def test_the_handicap_variant_gives_each_team_the_goals_that_even_out_their_chances(players, needed):
    """docs/crazy-kick.md, "Uneven tables", with ``handicap`` on: at 3 players the pair
    needs 5 goals and the lone player 3, at 7 the four need 4 and the three 5; each team
    wins with its own last goal, not one before."""
    state = RULES.new_game({"players": players, "handicap": True}, seed=1)
    assert state.needed == needed and state.goals_to_win == 5
    for team in (0, 1):
        start, seat = winning_goal(players, team, {"handicap": True})
        almost = start._replace(scores=_replace(start.scores, team, needed[team] - 1))
        assert RULES.apply(almost, Play(seat, 0)).winner == team
        early = start._replace(scores=_replace(start.scores, team, needed[team] - 2))
        assert RULES.apply(early, Play(seat, 0)).winner is None


@pytest.mark.parametrize("config, pair_keeps", [({"handicap": True}, True), ({"handicap": False}, False)])
def test_at_three_players_the_pairs_goal_cards_go_back_into_their_cards(config, pair_keeps):
    """docs/crazy-kick.md, "Uneven tables": at 3 players the pair's scored goal cards go
    back into the pair's cards for the next deal (the lone player's are set aside, as the
    book says); the header still names every scorer; the winning goal ends the match and
    is set aside; with the book's rule every goal card is set aside."""
    deck = load_deck("schmidt")
    for team in (0, 1):
        start, seat = winning_goal(3, team, config)
        goal_card = start.piles[seat][0][-1]
        after = RULES.apply(start, Play(seat, 0))
        keeps = pair_keeps and team == 0
        assert after.winner is None and after.scores[team] == 1 and after.scored[team] == (goal_card,)
        assert (goal_card in after.goals[team]) is not keeps
        assert (goal_card in {c for s in range(3) for c in every_card_of_seat(after, s)}) is keeps
        assert sorted(every_card(after)) == sorted(c.id for c in deck)          # no card lost, none twice
        assert RULES.public_view(after)["goals"][team] == [deck[goal_card].player]
        last = start._replace(scores=_replace(start.scores, team, start.needed[team] - 1))
        won = RULES.apply(last, Play(seat, 0))
        assert won.winner == team and goal_card in won.goals[team]
    assert RULES.new_game({"players": 3, **config}, seed=1).kept == (pair_keeps, False)
    for players in (2, 4, 5, 7, 8):
        assert RULES.new_game(new_config(players), seed=1).kept == (False, False)


def new_config(players: int) -> dict:
    """A new match's config, as the menu and the command line make it (nothing chosen)."""
    return RULES.prepare_config({"players": players}, lambda: [])


def every_card_of_seat(state, seat):
    return list(state.hands[seat]) + [c for p in state.piles[seat] for c in p]


def test_a_match_saved_before_the_goal_cards_were_kept_resumes_with_the_books_rule():
    import json
    state = RULES.new_game({"players": 3}, seed=1)
    old = RULES.state_to_json(state._replace(scores=(1, 0), goals=((7,), ()), scored=((7,), ())))
    del old["kept"], old["scored"]
    again = RULES.state_from_json(json.loads(json.dumps(old)))
    assert again.kept == (False, False) and again.scored == ((7,), ()) == again.goals


@pytest.mark.parametrize("players", [3, 5, 7])
def test_an_uneven_table_plays_as_the_book_prints_by_default(players):
    """The book: "Hat eine Mannschaft 5 Tore geschossen, wird abgepfiffen und sie verläßt
    als Sieger den Platz" — at every table, the uneven ones too: no handicap unless the
    variant is chosen; every goal card scored is set aside."""
    state = RULES.new_game(new_config(players), seed=1)
    assert state.needed == (5, 5) and state.kept == (False, False)
    assert RULES.new_game(dict(new_config(7), goals=3), seed=1).needed == (3, 3)
    assert RULES.new_game({"players": players, "handicap": False}, seed=1).needed == (5, 5)
    start, seat = winning_goal(players, 1, new_config(players))
    assert RULES.apply(start._replace(scores=(0, 3)), Play(seat, 0)).winner is None    # 4 of 5: play on
    assert RULES.apply(start._replace(scores=(0, 4)), Play(seat, 0)).winner == 1


def test_a_match_saved_with_the_handicap_as_the_default_keeps_it():
    """Before the book's rule became the default, the handicap was on unless ``book_goals``
    was set: a saved config that switched it off explicitly still says so, and one with
    ``book_goals`` false had it on (docs/crazy-kick.md, "Uneven tables")."""
    assert RULES.new_game({"players": 3, "book_goals": True}, seed=1).needed == (5, 5)
    assert RULES.new_game({"players": 3, "book_goals": False}, seed=1).needed == (5, 3)


def test_the_handicap_keeps_within_one_goal_and_the_goal_cards_there_are():
    """A match to 1 goal cannot need fewer; none can need more than the 8 goal cards a team
    has (they are set aside once scored)."""
    on = {"handicap": True}
    assert RULES.new_game({"players": 7, "goals": 1, **on}, seed=1).needed == (1, 1)
    assert RULES.new_game({"players": 3, "goals": 8, **on}, seed=1).needed == (8, 6)
    assert RULES.new_game({"players": 3, "goals": 2, **on}, seed=1).needed == (2, 1)
    assert RULES.new_game({"players": 3, "goals": 1, **on}, seed=1).needed == (1, 1)
    assert RULES.public_view(RULES.new_game({"players": 3, **on}, seed=1))["needed"] == [5, 3]


def test_the_handicap_is_a_variant_of_the_menu_and_the_command_line_and_the_page_says_which_is_on():
    """The book has no handicap ("Hat eine Mannschaft 5 Tore geschossen, wird abgepfiffen"):
    off unless chosen, in the box's menu (a game option) or with ``--handicap``, which other
    games refuse with one line; the how-to page's aim says the book's 5 goals, or the
    handicap's aims when it is on."""
    import argparse
    from controller.app.cli import _game_arguments, game_options
    from controller.app.menu import OK, PLUS, Activity, Menu
    from controller.games import GAMES, texts
    from tests.test_box import choose
    menu = Menu(stations=8)
    choose(menu, "menu_play")
    choose(menu, RULES.title)
    while menu.lines()[1][menu.chosen].params.get("n") != 3:
        menu.press(PLUS)
    menu.press(OK)
    line = next(line for line in menu.lines()[1] if line.key == "menu_option_handicap")
    assert line.params["value"] == "off"
    activity = choose(menu, "menu_option_handicap")
    assert next(line for line in menu.lines()[1] if line.key == "menu_option_handicap").params["value"] == "on"
    activity = choose(menu, "menu_start")
    assert isinstance(activity, Activity) and activity.options == {"handicap": True}
    parser = argparse.ArgumentParser()
    _game_arguments(parser)
    assert game_options(parser.parse_args(["crazy-kick", "--players", "3", "--handicap"]), RULES) == {"handicap": True}
    assert game_options(parser.parse_args(["crazy-kick"]), RULES) == {}
    with pytest.raises(IllegalAction) as err:
        game_options(parser.parse_args(["partout", "--handicap"]), GAMES["partout"])
    assert err.value.key == "option_not_for_game" and "--handicap" in str(err.value)
    assert "not" in RULES.options[1].help and "because" in RULES.options[1].help       # one sentence on why
    book = {lang: texts.how_to_play("crazy-kick", lang)[0].text for lang in texts.LANGUAGES}
    on = {lang: texts.how_to_play("crazy-kick", lang, ["handicap"])[0].text for lang in texts.LANGUAGES}
    assert "both teams need 5 goals" in book["en"] and "Beide Mannschaften brauchen 5 Tore" in book["de"]
    assert "les deux équipes doivent marquer 5 buts" in book["fr"] and "entrambe le squadre devono segnare 5 gol" in book["it"]
    assert "the lone player needs 3 goals and the pair 5" in on["en"] and "the four need 4" in on["en"]
    assert "der einzelne Spieler 3 Tore" in on["de"] and "le joueur seul doit marquer 3 buts" in on["fr"]
    assert "deve segnare 3 gol e la coppia 5" in on["it"]
    assert all(book[lang] != on[lang] for lang in texts.LANGUAGES)


def test_a_bot_says_the_ball_is_out_once_its_teams_cards_lie_open_and_none_fits():
    """The book: "Wenn beide Teams sich darüber einig sind". A bot agrees as a person who
    has looked through the team's cards: every team-mate's hand flipped through (their cards
    all lie open on their piles) and none fits. Until then it flips; with nothing of its own
    that fits while a team-mate still flips, it waits."""
    from controller.bots.crazykick import KickBot
    deck = load_deck("schmidt")
    paul = next(c for c in deck if c.player == "Paul" and not c.goal)
    follows = deck.follows[paul.id]
    state = RULES.new_game({"players": 4}, seed=1)
    misfits = [[c for c in state.hands[s] if c not in follows][:3] for s in range(4)]
    state = arrange(state, {s: [[c] for c in misfits[s]] for s in range(4)}, centre=[paul.id])
    bot = KickBot(0, seed=1)
    assert isinstance(bot.plan(state, 0.0).action, Flip)                    # its hand still holds cards
    empty = state._replace(hands=((),) + state.hands[1:])
    assert KickBot(0, seed=1).plan(empty, 0.0) is None                      # seat 3, its team-mate, still flips
    team_done = empty._replace(hands=((), state.hands[1], (), state.hands[3]))
    plan = KickBot(0, seed=1).plan(team_done, 0.0)
    assert plan.action == BallOut(0)
    agreed = RULES.apply(team_done, BallOut(2))
    assert KickBot(0, seed=1).plan(agreed, 0.0) is None                     # its team has spoken
    fits = next(c for c in state.hands[0] if c in follows)
    under = team_done._replace(piles=(((fits, misfits[0][0]),) + team_done.piles[0][1:],) + team_done.piles[1:])
    assert isinstance(KickBot(0, seed=1).plan(under, 0.0).action, Reshuffle)  # a fitting card under a pile


def test_an_old_saved_match_with_neither_switch_resumes_with_the_handicap_it_was_played_with(tmp_path):
    """The old menu stored an option only when toggled, so an unfinished 3-player match
    started with the old default (the handicap on) has neither ``handicap`` nor
    ``book_goals``: it resumes with the handicap it was played with, not silently under
    the book's rule. A new match's config always says (``prepare_config``), the book's
    rule unless chosen."""
    from controller.table.eventlog import EventLog
    from controller.table.table import Table
    old = {"players": 3, "edition": "schmidt", "mode": "virtual"}       # the old menu, nothing toggled
    store = EventLog(tmp_path / "old.db")
    game_id = store.start_game("crazy-kick", old, 5, ["a", "b", "c"])
    state = non_keeper_hand(RULES.new_game(old, 5), 1)
    for pile in range(4):                                               # the lone player lays four piles
        action = Flip(1, pile)
        state = RULES.apply(state, action)
        store.append(game_id, RULES.action_to_json(action))
    table = Table.resume(RULES, store.load(game_id), store)
    assert table.state.needed == (5, 3) and table.state.kept == (True, False)
    assert table.state.piles == state.piles
    new = RULES.prepare_config({"players": 3, "edition": "schmidt"}, lambda: [])
    assert new["handicap"] is False and RULES.new_game(new, 5).needed == (5, 5)
    chosen = RULES.prepare_config({"players": 3, "handicap": True}, lambda: [])
    assert chosen["handicap"] is True and RULES.new_game(chosen, 5).needed == (5, 3)


@pytest.mark.parametrize("players", [2, 4, 5, 6, 8])
def test_the_handicap_is_offered_only_where_it_changes_something(players):
    """The handicap changes the aims or the goal cards at 3 and 7 players only: the menu
    offers it there alone, and ``--handicap`` at another count is refused with one line
    that says where it applies (a switch that does nothing would mislead)."""
    import argparse
    from controller.app.cli import _game_arguments, game_options
    from controller.app.menu import OK, PLUS, Menu
    from tests.test_box import choose
    assert [n for n in range(2, 9) if RULES.options[1].offered_at(n)] == [3, 7]
    for count, offered in ((players, False), (7, True)):
        menu = Menu(stations=8)
        choose(menu, "menu_play")
        choose(menu, RULES.title)
        while menu.lines()[1][menu.chosen].params.get("n") != count:
            menu.press(PLUS)
        menu.press(OK)
        keys = [line.key for line in menu.lines()[1]]
        assert ("menu_option_handicap" in keys) is offered and "menu_option_edition" in keys
        assert keys[menu.chosen] == "menu_start"
    parser = argparse.ArgumentParser()
    _game_arguments(parser)
    with pytest.raises(IllegalAction) as err:
        game_options(parser.parse_args(["crazy-kick", "--players", str(players), "--handicap"]), RULES)
    assert err.value.key == "option_not_at_count"
    assert err.value.message("en") == (f"--handicap is for Crazy Kick with 3 or 7 players only: with {players} it "
                                       "would change nothing.")
