"""Write controller/games/data/crazykick.json: the reconstructed Crazy Kick decks.

The printed card list is not public (see docs/crazy-kick.md). What is confirmed, and
what this script reconstructs from it:

* confirmed: two editions (Schmidt 2006: red vs black, 75 cards a team; dlp 2011: red
  vs white, 60 a team), 11 footballers a team, goalkeepers numbered 1 (Schmidt: Tim and
  Patrick; dlp: Alex and Omar), 8 goal cards a team; a card names 1 or 2 team-mates
  (passes) and 1 or 2 opponents (tackles); the rule book's example attack.
* reconstructed: the other names, the zones by shirt number (1 keeper, 2-5 defence,
  6-8 midfield, 9-11 attack), passes to the same zone or one zone forward (the keeper
  kicks out to midfield or attack), tackles by the opponents facing that zone (the
  keeper's kick by their midfield; a striker can also lose the ball to the opposing
  keeper), goal cards for the strikers and two midfielders; both teams' cards the same
  by shirt numbers (mirrored), so neither deck is luckier.

The output is deterministic (seeded). Run it again after changing a parameter, then
check the figures of ``spieltisch bench`` (attack length, time to a goal).

    python tools/make_crazykick_decks.py
"""

from __future__ import annotations

import json
import random
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "controller" / "games" / "data" / "crazykick.json"

# name, shirt number; the keeper first. Schmidt: the example attack fixes Tim, Stefan,
# Dieter, Max, Paul in one team and Patrick, Jonas, Dennis, Luca in the other; the
# tips' shouts pair Mario with Stefan and Leon with Dominik.
ROSTERS = {
    "schmidt": {
        "title": "Fußball-Ligretto (Schmidt 2006)",
        "teams": [
            ("red", "#c8102e", [("Tim", 1), ("Stefan", 2), ("Mario", 3), ("Dieter", 4), ("Jan", 5),
                                ("Max", 6), ("Niklas", 7), ("Philipp", 8), ("Paul", 9), ("Lukas", 10),
                                ("Simon", 11)]),
            ("black", "#1a1a1a", [("Patrick", 1), ("Axel", 2), ("Felix", 3), ("Leon", 4), ("Dominik", 5),
                                  ("Finn", 6), ("Moritz", 7), ("Julian", 8), ("Jonas", 9), ("Dennis", 10),
                                  ("Luca", 11)]),
        ],
        # cards per zone member: keeper, defenders, midfielders, strikers (67 a team)
        "counts": {1: 5, 2: 6, 3: 6, 4: 6, 5: 6, 6: 7, 7: 7, 8: 7, 9: 6, 10: 6, 11: 5},
    },
    "dlp": {
        "title": "Crazy Kick (dlp games 2011)",
        "teams": [
            ("red", "#c8102e", [("Alex", 1), ("Hervé", 2), ("Jonas", 3), ("Ben", 4), ("Leo", 5),
                                ("Thierry", 6), ("Paul", 7), ("Marco", 8), ("Emil", 9), ("Luis", 10),
                                ("Noah", 11)]),
            ("white", "#f4f4f4", [("Omar", 1), ("Karim", 2), ("Kim", 3), ("Tom", 4), ("Nils", 5),
                                  ("Elias", 6), ("Milan", 7), ("Samir", 8), ("Jan", 9), ("Finn", 10),
                                  ("Theo", 11)]),
        ],
        "counts": {1: 4, 2: 5, 3: 5, 4: 5, 5: 5, 6: 5, 7: 5, 8: 5, 9: 5, 10: 4, 11: 4},   # 52 a team
    },
}
# The rule book's example attack (Schmidt): Tim → Stefan, Stefan loses it to Jonas, Jonas →
# Dennis → Luca, Dieter tackles Luca, Dieter → Max → Paul, Paul scores. Written by shirt
# numbers (the same links in both teams), each is put on the first card of its ball carrier
# so the example is playable with these decks: (carrier, corner, the number it names).
EXAMPLE = ((1, "passes", 2), (2, "tackles", 9), (9, "passes", 10), (10, "passes", 11), (11, "tackles", 4),
           (4, "passes", 6), (6, "passes", 9))
GOAL_CARDS = {9: 2, 10: 2, 11: 2, 7: 1, 8: 1}     # shirt number → goal cards (8 a team)
TWO_PASSES = 0.55       # share of cards naming two team-mates
TWO_TACKLES = 0.45      # share of cards naming two opponents
KEEPER_SAVES = 0.25     # share of a striker's cards on which the opposing keeper can tackle


def zone(number: int) -> int:
    return 0 if number == 1 else 1 if number <= 5 else 2 if number <= 8 else 3


# The keeper kicks the ball out to midfield or up front, where the opponents' midfield can
# intercept it (the book's example keeps its short pass, Tim → Stefan, on one card). With
# the keeper passing to defenders and tackled by the opposing strikers, as at first, the
# team that kicked off scored only 38-41 % of its attacks: a striker who took the ball from
# the keeper stood in front of the goal. Now 52 % (spieltisch bench: ck_kickoff_goal_share).
PASS_ZONES = {0: (2, 3), 1: (1, 2), 2: (2, 3), 3: (3,)}
FACING = {0: 2, 1: 3, 2: 2, 3: 1}     # the opponents' zone that attacks a ball carrier's zone


def pick(rng: random.Random, candidates: list[int], used: dict[tuple[str, int], int], side: str,
         k: int) -> list[int]:
    """k distinct shirt numbers, preferring the least named so every footballer is sought alike."""
    chosen: list[int] = []
    pool = list(candidates)
    for _ in range(min(k, len(pool))):
        least = min(used[side, n] for n in pool)
        number = rng.choice([n for n in pool if used[side, n] == least])
        chosen.append(number)
        used[side, number] += 1
        pool.remove(number)
    return chosen


def team_cards(key: str, counts: dict[int, int]) -> list[dict]:
    """One team's cards by shirt numbers: passes name team-mates, tackles opponents. Both
    teams get these same cards (each with its own names), so neither team's deck is
    luckier: the decks mirror each other card for card."""
    rng = random.Random(f"crazykick-deck:{key}")
    numbers = range(1, 12)
    used = {(side, n): 0 for side in ("mate", "opponent") for n in numbers}
    cards: list[dict] = []
    for number in numbers:
        z = zone(number)
        pass_pool = [m for m in numbers if m != number and zone(m) in PASS_ZONES[z]]
        tackle_pool = [o for o in numbers if zone(o) == FACING[z]]
        links = {corner: wanted for carrier, corner, wanted in EXAMPLE if carrier == number}
        for i in range(counts[number]):
            passes = pick(rng, pass_pool, used, "mate", 2 if rng.random() < TWO_PASSES else 1)
            if z == 3 and rng.random() < KEEPER_SAVES:
                tackles = [1] + pick(rng, tackle_pool, used, "opponent", 1 if rng.random() < TWO_TACKLES else 0)
                used["opponent", 1] += 1
            else:
                tackles = pick(rng, tackle_pool, used, "opponent", 2 if rng.random() < TWO_TACKLES else 1)
            if i == 0:
                for corner, wanted in links.items():
                    named = passes if corner == "passes" else tackles
                    if wanted not in named:
                        named[-1] = wanted
            cards.append({"number": number, "passes": passes, "tackles": tackles})
        cards += [{"number": number, "goal": True}] * GOAL_CARDS.get(number, 0)
    return cards


def make_edition(key: str, spec: dict) -> dict:
    teams = spec["teams"]
    names = [{number: name for name, number in roster} for _, _, roster in teams]
    assert len(set(names[0].values()) | set(names[1].values())) == 22, "names must be unique within an edition"
    template = team_cards(key, spec["counts"])
    cards: list[dict] = []
    for t, (team, _, _) in enumerate(teams):
        mates, opponents = names[t], names[1 - t]
        for c in template:
            if c.get("goal"):
                cards.append({"team": team, "player": mates[c["number"]], "goal": True})
            else:
                cards.append({"team": team, "player": mates[c["number"]],
                              "passes": [mates[n] for n in c["passes"]],
                              "tackles": [opponents[n] for n in c["tackles"]]})
    return {
        "title": spec["title"],
        "teams": [{"name": team, "colour": colour,
                   "players": [{"name": n, "number": num} for n, num in roster]}
                  for team, colour, roster in teams],
        "cards": cards,
    }


def dump(data: dict) -> str:
    """JSON a person can read and diff: one card or one footballer per line."""
    def one(value: object) -> str:
        return json.dumps(value, ensure_ascii=False)
    lines = ["{", f' "_note": {one(data["_note"])},', f' "goals_to_win": {data["goals_to_win"]},',
             f' "goal_pause_s": {data["goal_pause_s"]},', f' "stall_hint_s": {data["stall_hint_s"]},',
             f' "starting_piles": {one(data["starting_piles"])},', f' "uneven_goals": {one(data["uneven_goals"])},',
             f' "uneven_goal_cards_kept": {one(data["uneven_goal_cards_kept"])},', ' "editions": {']
    editions = list(data["editions"].items())
    for e, (key, ed) in enumerate(editions):
        lines += [f"  {one(key)}: {{", f'   "title": {one(ed["title"])},', '   "teams": [']
        for t, team in enumerate(ed["teams"]):
            lines.append(f'    {{"name": {one(team["name"])}, "colour": {one(team["colour"])}, "players": [')
            lines += [f"     {one(p)}" + ("," if i + 1 < len(team["players"]) else "")
                      for i, p in enumerate(team["players"])]
            lines.append("    ]}" + ("," if t + 1 < len(ed["teams"]) else ""))
        lines += ["   ],", '   "cards": [']
        lines += [f"    {one(c)}" + ("," if i + 1 < len(ed["cards"]) else "") for i, c in enumerate(ed["cards"])]
        lines += ["   ]", "  }" + ("," if e + 1 < len(editions) else "")]
    lines += [" }", "}"]
    text = "\n".join(lines) + "\n"
    assert json.loads(text) == data
    return text


UNEVEN_GOALS = {"3": [0, 2], "5": [0, 0], "7": [1, 0]}
UNEVEN_GOAL_CARDS_KEPT = {"3": [True, False]}


def main() -> None:
    data = {
        "_note": "Generated by tools/make_crazykick_decks.py; reconstructed, see docs/crazy-kick.md.",
        "goals_to_win": 5,
        # after a goal play pauses to celebrate, and a whistle starts the next attack
        "goal_pause_s": 2.5,
        # no open card has fitted the centre for this long: the table asks whether the ball is out
        "stall_hint_s": 5.0,
        # piles each player lays, for team 0 and team 1 (seats alternate between the teams,
        # so with 3, 5 or 7 players team 0 is the larger): the rule book's box
        "starting_piles": {"3": [2, 4], "5": [2, 3], "7": [2, 3], "even": [3, 3]},
        # the handicap variant of an uneven table (--handicap): goals each team needs fewer
        # than goals_to_win, team 0 then team 1, so equal bots win about half the matches
        # (spieltisch bench --only balance; docs/crazy-kick.md, "Uneven tables")
        "uneven_goals": UNEVEN_GOALS,
        # and which team's scored goal cards go back into its cards instead of being set
        # aside (3 players: the pair's; whole goals alone give 60 % or 42 %)
        "uneven_goal_cards_kept": UNEVEN_GOAL_CARDS_KEPT,
        "editions": {key: make_edition(key, spec) for key, spec in ROSTERS.items()},
    }
    # the rule book's example attack must be playable (checked again by the tests)
    OUT.write_text(dump(data), encoding="utf-8")
    for key, ed in data["editions"].items():
        print(key, len(ed["cards"]), "cards")


if __name__ == "__main__":
    main()
