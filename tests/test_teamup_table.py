"""Team UP! at the table through simulated stations: the ghost package on the buttons, a
refusal a player sees (the reason, a red flash, nothing changed), the hint, stopping with
a confirmation, the view turned by a waiting player, physical order cards, and whole games
made of presses only."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from controller.bots.teamup import TeamUpBot
from controller.games import find_game
from controller.app.recording import finished_games
from controller.games.teamup import (
    CARD_KIND, DATA, Draw, FaceDown, Place, Stop, as_package, current_card, fitting, kind_of_card, pallet_of,
    screen_steps,
)
from controller.inputs.teamup import DRAW, HINT, MORE, MOVE_RIGHT, PACKAGE, PLACE, STOP, TURN
from controller.table import BUZZ_REFUSED, LED_REFUSED

RULES = find_game("team-up")
LINE = [as_package(p) for p in DATA["puzzle"]["line"]]


def flashed_red(h, seat) -> bool:
    return h.sims[seat].wait_for(lambda s: ("LED", (LED_REFUSED, "300")) in s.commands and
                                 ("BUZZ", tuple(map(str, BUZZ_REFUSED))) in s.commands)


def ghost(h, seat):
    return as_package(h.table.snapshot().seats[seat].pending["ghost"])


def act(h, action):
    for step in h.table.adapter.inputs_for(h.state, action.player, action):
        h.tap(action.player, step.arg) if step.kind == "tap" else h.press(action.player, step.arg)
    message = h.table.snapshot().message
    assert message is None or not message.refusal, (action, message)


def test_a_turn_on_the_buttons_draw_move_turn_choose_and_place(make_table):
    h = make_table(players=2, mode="virtual", seed=1, game="team-up", puzzle=True)
    keys = [k.key if k else None for k in h.table.snapshot().seats[0].soft_keys]
    assert keys[DRAW] == "teamup_key_draw" and keys[STOP] == "teamup_key_stop"
    h.press(0, DRAW)
    assert h.state.phase == "place"                               # card 1: red, any shape
    g = ghost(h, 0)
    assert g.colour == "R" and h.table.snapshot().seats[0].pending["problem"] is None   # starts where it fits
    (sx, sy), _ = screen_steps(0)
    h.press(0, MOVE_RIGHT)
    moved = ghost(h, 0)
    assert (moved.x, moved.y) == ((g.x + sx) % (6 - g.dx + 1), (g.y + sy) % (4 - g.dy + 1))
    h.press(0, TURN)
    assert (ghost(h, 0).dx, ghost(h, 0).dy) == (g.dy, g.dx)
    shapes = set()
    for _ in range(3):
        h.press(0, PACKAGE)
        shapes.add(ghost(h, 0).shape)
    assert shapes == {"A", "B", "C"} and all(ghost(h, 0).colour == "R" for _ in range(1))
    act(h, Place.of(0, LINE[0]))
    assert h.state.placed[-1] == LINE[0] and h.state.to_act == 1


def test_a_refused_placement_says_why_flashes_red_and_changes_nothing(make_table):
    h = make_table(players=2, mode="virtual", seed=1, game="team-up", puzzle=True)
    h.press(0, DRAW)
    while True:                                                    # walk the ghost to a place it may not go
        pending = h.table.snapshot().seats[0].pending
        if pending["problem"] is not None:
            break
        h.press(0, MOVE_RIGHT)
    before = h.state
    h.press(0, PLACE)
    assert h.state == before and len(h.table.actions) == 1       # only the draw
    m = h.table.message
    assert m.refusal and m.seat == 0 and m.key == pending["problem"][0]
    assert flashed_red(h, 0)


def test_the_hint_moves_the_ghost_to_a_place_that_is_accepted(make_table):
    h = make_table(players=1, mode="virtual", seed=3, game="team-up")
    h.press(0, DRAW, MORE, HINT)
    hinted = ghost(h, 0)
    assert h.table.snapshot().seats[0].pending["problem"] is None
    h.press(0, PLACE)
    assert h.state.placed[-1] == hinted


def test_stopping_needs_a_second_press(make_table):
    h = make_table(players=2, mode="virtual", seed=2, game="team-up")
    h.press(0, STOP)
    assert h.state.phase == "draw"
    keys = [k.key if k else None for k in h.table.snapshot().seats[0].soft_keys]
    assert keys[STOP] == "teamup_key_confirm_stop"
    h.press(0, 3)                                                   # anything else: play on
    assert h.state.phase == "draw"
    h.press(0, STOP, STOP)
    assert h.state.phase == "over" and h.table.result()["scores"] == [-27]


def test_a_waiting_player_turns_the_view_and_the_arrows_follow_it(make_table):
    h = make_table(players=2, mode="virtual", seed=1, game="team-up", puzzle=True)
    h.press(0, DRAW)
    h.press(1, 0)                                                   # seat 2 is not on turn: turns the view
    assert h.table.snapshot().seats[0].pending["view_turn"] == 1
    g = ghost(h, 0)
    h.press(0, MOVE_RIGHT)
    (sx, sy), _ = screen_steps(1)
    assert (sx, sy) == (0, 1) and ghost(h, 0).y == (g.y + 1) % (4 - g.dy + 1) and ghost(h, 0).x == g.x


def test_physical_order_cards_are_tapped(make_table):
    h = make_table(players=2, mode="physical", seed=4, game="team-up")
    h.press(0, DRAW)
    assert h.table.message.key == "teamup_tap_card" and h.state.phase == "draw"
    h.tap(0, "17")
    assert h.state.phase == "place" and h.state.deck == (17,)
    h.sims[1].tap("04AABBCCDDEEFF", "partout:red5")
    h.settle(1)
    assert h.table.message.key == "tag_other_game"


@pytest.mark.parametrize("seed, players, options", [(1, 2, {"puzzle": True}), (6, 3, {}), (8, 1, {})])
def test_whole_games_made_of_presses_end_as_the_rules_say(make_table, seed, players, options):
    """The bots' moves made at the stations, press by press; the game the table kept must
    be the one the rules make of the same moves, and replay from its log."""
    h = make_table(players=players, mode="virtual", seed=seed, game="team-up", **options)
    truth = RULES.new_game({"players": players, "mode": "virtual", **options}, seed)
    bot, rng = TeamUpBot(), random.Random(seed)
    steps = 0
    while truth.phase != "over":
        steps += 1
        assert steps < 200
        action = bot.choose(RULES, truth, truth.to_act, rng)
        truth = RULES.apply(truth, action)
        act(h, action)
        assert h.state == truth
    assert h.table.result()["scores"] == list(RULES.outcome(truth).scores)
    saved = h.store.load(h.table.game_id)
    assert saved.finished
    assert RULES.replay(h.table.config, seed, [RULES.action_from_json(a) for a in saved.actions]) == h.state
    if options.get("puzzle"):
        assert RULES.outcome(truth).scores == (25,)              # with the order known, the bots build it perfect
    pending = h.table.snapshot().seats[0].pending                 # at the end: the best these cards allowed
    assert pending["hindsight"]["score"] >= RULES.outcome(truth).scores[0]
    line = [p for p in pending["hindsight"]["line"] if p is not None]
    h.press(0, 2, 2)
    assert h.table.snapshot().seats[0].pending["solution_step"] == 2
    assert len(line) >= 2


def test_face_down_and_its_refusal_at_the_buttons(make_table):
    h = make_table(players=1, mode="virtual", seed=1, game="team-up", puzzle=True)
    h.press(0, DRAW, MORE, 5)                                       # face down: refused, a package fits
    assert h.table.message.key == "teamup_still_fits" and h.state.phase == "place"
    # all red packages used: a red card goes face down from the first row's place key
    placed = (h.state.placed[0],) + tuple(LINE[:26])
    h.table.state = h.state._replace(placed=placed, moves=tuple(range(1, 27)),
                                     deck=tuple(range(1, 27)) + (33,) + tuple(n for n in range(27, 37) if n != 33),
                                     phase="draw")
    h.table.adapter.reset()
    h.press(0, DRAW)
    keys = [k.key if k else None for k in h.table.snapshot().seats[0].soft_keys]
    assert keys[PLACE] == "teamup_key_face_down"
    h.press(0, PLACE)
    assert h.state.moves[-1] == -1 and isinstance(h.table.actions[-1], FaceDown)
    assert pallet_of(h.state.placed).complete_floors() == 4
    assert not any(isinstance(a, (Stop, Draw)) and a.player != 0 for a in h.table.actions)


def test_a_package_goes_up_on_the_sixth_floor_at_the_buttons(make_table):
    """On the sixth-floor pallet (tests/vectors/teamup_high.json) a white card's package
    fits only on top of the five-floor tower: the bottom-middle key offers "place", not
    "face down", and the ghost, moved there with the buttons, is placed on floor 6."""
    high = json.loads((Path(__file__).parent / "vectors" / "teamup_high.json").read_text(encoding="utf-8"))
    placed = tuple(as_package(p) for p in high["sixth_floor"]["placed"])
    h = make_table(players=1, mode="virtual", seed=4, game="team-up")
    white = next(n for n in h.state.deck if CARD_KIND[n] == "W")
    others = [n for n in h.state.deck if n != white]
    h.table.state = h.state._replace(placed=placed, moves=tuple(range(1, 15)),
                                     deck=tuple(others[:14]) + (white,) + tuple(others[14:]))
    h.table.adapter.reset()
    h.press(0, DRAW)
    assert current_card(h.state) == white
    keys = [k.key if k else None for k in h.table.snapshot().seats[0].soft_keys]
    assert keys[PLACE] == "teamup_key_place"
    target = max(fitting(pallet_of(placed), kind_of_card(white)))       # the last place up there
    assert target.z == 5 and ghost(h, 0) != target
    act(h, Place.of(0, target))
    assert h.state.placed[-1] == target and h.state.moves[-1] == len(placed)


def test_the_ghost_starts_at_the_lowest_place_it_fits(make_table):
    """The puzzle's 26 packages and card 27: its bar fits in the last gap of the fifth floor
    and on top of the pallet too; the ghost starts in the gap."""
    h = make_table(players=1, mode="virtual", seed=1, game="team-up", puzzle=True)
    h.table.state = h.state._replace(placed=(h.state.placed[0],) + tuple(LINE[:26]), moves=tuple(range(1, 27)))
    h.table.adapter.reset()
    h.press(0, DRAW)
    assert any(p.z == 5 for p in fitting(pallet_of(h.state.placed), kind_of_card(current_card(h.state))))
    assert ghost(h, 0) == LINE[26] and h.table.snapshot().seats[0].pending["problem"] is None


def test_the_challenge_at_the_table_plays_the_cards_the_last_game_drew(make_table):
    """A game stopped after one card: its result keeps that card, and the challenge that
    follows (as `play` and `demo` prepare it from the finished games) has exactly that card
    in its pile, ends when it is used up, and shows the first game's score to beat."""
    first = make_table(players=2, mode="virtual", seed=6, game="team-up")
    first.press(0, DRAW)
    card = current_card(first.state)
    act(first, Place.of(0, next(fitting(pallet_of(first.state.placed), kind_of_card(card)))))
    first.press(1, STOP, STOP)
    assert first.state.phase == "over" and first.table.result()["drawn"] == [card]
    # the best the cards drawn allowed, not the whole shuffled pile's 25: one card, one package
    hindsight = first.table.snapshot().seats[0].pending["hindsight"]
    assert hindsight["score"] == first.table.result()["scores"][0] == -26 and len(hindsight["line"]) == 1
    config = RULES.prepare_config({"players": 2, "mode": "virtual", "challenge": True},
                                  lambda: finished_games(first.store, "team-up", demo=False))
    assert config["deck"] == [card] and config["to_beat"] == first.table.result()["scores"][0]
    again = make_table(players=2, mode="virtual", seed=7, game="team-up",
                       **{k: v for k, v in config.items() if k not in ("players", "mode")})
    assert again.table.snapshot().view["cards_left"] == 1
    again.press(0, DRAW)
    assert current_card(again.state) == card
    act(again, Place.of(0, next(fitting(pallet_of(again.state.placed), kind_of_card(card)))))
    assert again.state.phase == "over" and again.state.ended == "no_cards"
    # what the log keeps for the next challenge: the card the ending move placed too (the
    # result is written with that move, from the state the move made)
    (stored,) = [r for r in again.store.results() if r["id"] == again.table.game_id]
    assert stored["drawn"] == [card] and stored["finished"]


def test_a_game_that_ends_by_its_last_card_keeps_every_card_it_drew_for_the_challenge(make_table):
    """The result is written in the same transaction as the move that ends the game: it must
    be read from the state that move made, or the pile of the next challenge loses the last
    card ("Alle verwendeten Karten … bilden so den Stapel")."""
    from controller.games.teamup import drawn_cards
    h = make_table(players=2, mode="virtual", seed=3, game="team-up", deck=[5, 17, 30],
                   neutral=["N", None, 0, 0, 0, 2, 2, 3], challenge=True)
    for _ in range(3):
        h.press(h.state.to_act if h.state.to_act is not None else 0, DRAW)
        card = current_card(h.state)
        place = next(fitting(pallet_of(h.state.placed), kind_of_card(card)), None)
        act(h, Place.of(h.state.to_act, place)) if place is not None else act(h, FaceDown(h.state.to_act))
    assert h.state.phase == "over" and h.state.ended == "no_cards"
    (stored,) = [r for r in h.store.results() if r["id"] == h.table.game_id]
    assert stored["drawn"] == list(drawn_cards(h.state)) == [5, 17, 30]


@pytest.mark.parametrize("then, now, by_others", [(["Anna", "Ben"], ["Clara"], True),
                                                  (["Anna", "Ben"], ["anna"], False),
                                                  (["Anna", "Ben"], [""], False),
                                                  ([], ["Clara"], False)])
def test_the_table_knows_whether_a_challenge_is_played_by_another_team(tmp_path, monkeypatch, then, now, by_others):
    """The book: "So kann auch ein anderes Team herausgefordert werden" — the other team gets
    the pile prepared and face down. The table knows who sits: a challenge at which nobody
    sat at the game that drew the pile is played by others (``by_others``), and their pile's
    order is not known to them; the same people, or people not named, play their own pile."""
    from controller.app.play import run_table
    from controller.table.eventlog import EventLog
    from hardware.sim.station import SimulatedStation
    monkeypatch.setenv("SPIELTISCH_DATA", str(tmp_path))
    with EventLog(tmp_path / "spieltisch.db") as store:
        first = store.start_game("team-up", {"players": 2, "mode": "virtual"}, 3, ["a", "b"])
        if then:
            store.seat_people(first, {seat: store.person(name) for seat, name in enumerate(then)})
        store.finish(first, {"game": "team-up", "config": {"players": 2, "mode": "virtual"}, "seed": 3,
                             "scores": [-26], "drawn": [5], "finished": True})
    with SimulatedStation("sim-challenger") as person:
        with pytest.raises(TimeoutError):                     # nobody presses: the game waits
            run_table("team-up", ports=[person.port], players=1, names=now, virtual=True, seed=5, new=True,
                      lang="en", fullscreen=False, headless=True, timeout=3, options={"challenge": True})
    with EventLog(tmp_path / "spieltisch.db") as store:
        saved = store.load(store.unfinished_ids("team-up")[0])
    assert saved.config["from_game"] == first and saved.config["deck"] == [5]
    assert saved.config["by_others"] is by_others
    assert RULES.new_game(saved.config, saved.seed).order_known is not by_others
