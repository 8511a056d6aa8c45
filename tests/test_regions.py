"""Dirty rectangles: a screen repainted only where its snapshot changed is, pixel for
pixel, the screen drawn afresh, frame after frame of whole games."""

from __future__ import annotations

import pygame
import pytest

from controller.bench.frames import snapshots
from controller.games import GAMES
from display.app import Screen

REGIONAL = sorted(GAMES)


def pixels(surface: pygame.Surface) -> bytes:
    return pygame.image.tobytes(surface, "RGB")


@pytest.mark.parametrize("game", REGIONAL)
def test_repainting_only_what_changed_draws_the_same_frames(game):
    kept, fresh = Screen(headless=True, lang="de"), Screen(headless=True, lang="de")
    shots = snapshots(game, seed=7, moves=120)
    assert len(shots) > 20
    for number, snap in enumerate(shots):
        kept.render(snap)
        fresh._views.clear()                       # a new view: nothing kept, everything drawn afresh
        fresh.render(snap)
        assert pixels(kept.canvas) == pixels(fresh.canvas), f"{game}: frame {number} differs"
    kept.close()
    fresh.close()


@pytest.mark.parametrize("game", REGIONAL)
def test_with_the_learning_hints_repainting_only_what_changed_draws_the_same_frames(game):
    """The hints change with every move (the message box; Crazy Kick: each seat's line and its
    piles framed): the regions that show them are repainted when they do."""
    kept, fresh = Screen(headless=True, lang="fr"), Screen(headless=True, lang="fr")
    shots = snapshots(game, seed=5, moves=60, options={"learn": True})
    assert any(seat.hints for snap in shots for seat in snap.seats)
    for number, snap in enumerate(shots):
        kept.render(snap)
        fresh._views.clear()
        fresh.render(snap)
        assert pixels(kept.canvas) == pixels(fresh.canvas), f"{game}: frame {number} differs"
    kept.close()
    fresh.close()


@pytest.mark.parametrize("game", REGIONAL)
def test_another_player_count_on_the_same_screen_leaves_nothing_of_the_last(game):
    counts = sorted(GAMES[game].player_counts)
    kept, fresh = Screen(headless=True, lang="en"), Screen(headless=True, lang="en")
    for players in (counts[-1], counts[0], counts[-1]):
        shots = snapshots(game, seed=players, moves=5, players=players)
        for snap in shots:
            kept.render(snap)
        fresh._drawn_by = None
        fresh.render(shots[-1])
        assert pixels(kept.canvas) == pixels(fresh.canvas), (game, players)


def test_team_up_ghost_moving_over_the_pallet_leaves_no_trace():
    """Between placements the ghost moves and turns with the buttons; only where it was and
    is is repainted, and the frame is the one drawn whole."""
    import random
    from controller.games.teamup import Stop
    from controller.table.table import Table
    from hardware.events import ButtonEvent
    rules = GAMES["team-up"]
    table = Table(rules, config={"players": 2, "mode": "virtual"}, seed=4, stations=["a", "b"])
    kept, fresh = Screen(headless=True, lang="en"), Screen(headless=True, lang="en")
    rng, seq = random.Random(4), 0
    for step in range(160):
        seat = rules.to_act(table.state)
        if seat is None:
            break
        seq += 1
        if step % 9 == 8:                               # now and then a move, so the pallet grows
            legal = [a for a in rules.legal_actions(table.state, seat) if not isinstance(a, Stop)]
            table.apply(rng.choice(legal))
        else:                                           # next spot, turn the view, back
            table.handle(ButtonEvent("ab"[seat], seq, rng.choice([1, 1, 1, 2, 3]), True, 0, 0, 0))
        snap = table.snapshot()
        kept.render(snap)
        fresh._views.clear()
        fresh.render(snap)
        assert pixels(kept.canvas) == pixels(fresh.canvas), f"step {step} differs"


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_team_up_players_panel_parts_lie_where_the_panel_is_plain(players, screen):
    """Each part of the players' panel is repainted on the panel's own colour: none reaches
    the panel's rounded corners (or its parts would square them off)."""
    from display import draw
    from display.teamup_view import seat_parts, seats_rect
    surface = pygame.Surface((1920, 1080))
    surface.fill(draw.FELT)
    draw.panel(surface, seats_rect())
    parts = list(seat_parts(players).values())
    assert all(not a.colliderect(b) for i, a in enumerate(parts) for b in parts[i + 1:])
    for part in parts:
        corners = [(part.left, part.top), (part.right - 1, part.top), (part.left, part.bottom - 1),
                   (part.right - 1, part.bottom - 1)]
        assert all(tuple(surface.get_at(c))[:3] == draw.PANEL for c in corners), part


def test_team_up_soft_keys_fit_inside_their_part_of_the_panel():
    from display.teamup_view import KEY_SIZE, seat_parts, seats_rect
    keys = seat_parts(4)["keys"]
    left = seats_rect().left + 8                        # where _keys puts the first column
    assert keys.left <= left and left + 3 * KEY_SIZE[0] + 12 <= keys.right
