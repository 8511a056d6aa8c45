"""Team UP!'s learning hints (docs/team-up.md, "Learning hints"). Nothing is hidden (the
order cards drawn lie open), so the hints are the same for everybody.

Before drawing: draw, or stop together, and the score as it stands with its reckoning
(5 a complete floor, −1 a package not on the pallet, −1 a card face down: the −27 at the
start is the 27 packages still beside the pallet). With a card drawn: the packages it
allows that fit somewhere and in how many places; or, when none fits, that the card goes
face down.
"""

from __future__ import annotations

from controller.games.teamup import (
    COLOUR_NAME, PACKAGES, PER_FLOOR, FaceDown, Place, Stop, TeamUp, TeamupState, colour_of, face_down_count, pallet_of,
    state_score,
)
from controller.learn import Hint


def hints(rules: TeamUp, state: TeamupState, seat: int, hand_known: bool) -> list[Hint]:
    if state.to_act != seat:
        return []
    legal = rules.legal_actions(state, seat)
    out: list[Hint] = []
    if state.phase == "draw":
        # real order cards are drawn from the pile and tapped: the rules list a Draw per card left
        tapped = state.mode == "physical" and len(state.deck) == len(state.moves)
        key = "learn_teamup_tap" if tapped else "learn_teamup_draw"
        out.append(Hint(key + "_or_stop" if any(isinstance(a, Stop) for a in legal) else key))
    places = [a.package for a in legal if isinstance(a, Place)]
    if places:
        kinds = sorted({f"{p.shape}:{COLOUR_NAME[colour_of(p)]}" for p in places})
        out.append(Hint("learn_teamup_fits", {"packages": kinds, "n": len(places)}))
    elif any(isinstance(a, FaceDown) for a in legal):
        out.append(Hint("learn_teamup_face_down"))
    pallet = pallet_of(state.placed)
    floors = pallet.complete_floors()
    out.append(Hint("learn_teamup_score", {"floors": floors, "points": floors * PER_FLOOR,
                                            "left": PACKAGES - sum(pallet.used.values()),
                                            "down": face_down_count(state), "n": state_score(state)}))
    return out
