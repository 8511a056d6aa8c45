"""Write controller/games/data/crazykick.json: the reconstructed Crazy Kick decks.

The printed card list is not public (see docs/crazy-kick.md). What is confirmed, and
what this script reconstructs from it:

* confirmed: two editions (Schmidt 2006: red vs black, 75 cards a team; dlp 2011: red
  vs white, 60 a team), 11 footballers a team, goalkeepers numbered 1 (Schmidt: Tim and
  Patrick; dlp: Alex and Omar), 8 goal cards a team; a card names 1 or 2 team-mates
  (passes) and 1 or 2 opponents (tackles); the rule book's example attack.
* reconstructed: the other names, the zones by shirt number (1 keeper, 2-5 defence,
  6-8 midfield, 9-11 attack), passes to the same zone or one zone forward (the keeper
  to defenders), tackles by the opponents facing that zone (a striker can also lose
  the ball to the opposing keeper), goal cards for the strikers and two midfielders.

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
# Dennis → Luca, Dieter tackles Luca, Dieter → Max → Paul, Paul scores. Each link is put on
# the first card of its ball carrier so the example is playable with these decks.
EXAMPLE = {"schmidt": {"Tim": ("passes", "Stefan"), "Stefan": ("tackles", "Jonas"),
                       "Jonas": ("passes", "Dennis"), "Dennis": ("passes", "Luca"),
                       "Luca": ("tackles", "Dieter"), "Dieter": ("passes", "Max"),
                       "Max": ("passes", "Paul")}}
GOAL_CARDS = {9: 2, 10: 2, 11: 2, 7: 1, 8: 1}     # shirt number → goal cards (8 a team)
TWO_PASSES = 0.55       # share of cards naming two team-mates
TWO_TACKLES = 0.45      # share of cards naming two opponents
KEEPER_SAVES = 0.25     # share of a striker's cards on which the opposing keeper can tackle


def zone(number: int) -> int:
    return 0 if number == 1 else 1 if number <= 5 else 2 if number <= 8 else 3


PASS_ZONES = {0: (1,), 1: (1, 2), 2: (2, 3), 3: (3,)}
FACING = {0: 3, 1: 3, 2: 2, 3: 1}     # the opponents' zone that attacks a ball carrier's zone


def pick(rng: random.Random, candidates: list[str], used: dict[str, int], k: int) -> list[str]:
    """k distinct names, preferring the least used so every footballer is sought alike."""
    chosen: list[str] = []
    pool = list(candidates)
    for _ in range(min(k, len(pool))):
        least = min(used[n] for n in pool)
        best = [n for n in pool if used[n] == least]
        name = rng.choice(best)
        chosen.append(name)
        used[name] += 1
        pool.remove(name)
    return chosen


def make_edition(key: str, spec: dict) -> dict:
    rng = random.Random(f"crazykick-deck:{key}")
    teams = spec["teams"]
    numbers = {name: number for _, _, roster in teams for name, number in roster}
    assert len(numbers) == 22, "names must be unique within an edition"
    used = {name: 0 for name in numbers}
    cards: list[dict] = []
    for t, (team, _, roster) in enumerate(teams):
        mates = [n for n, _ in roster]
        opponents = [n for n, _ in teams[1 - t][2]]
        for name, number in roster:
            z = zone(number)
            pass_pool = [m for m in mates if m != name and zone(numbers[m]) in PASS_ZONES[z]]
            tackle_pool = [o for o in opponents if zone(numbers[o]) == FACING[z]]
            keeper = next(o for o in opponents if numbers[o] == 1)
            example = EXAMPLE.get(key, {}).get(name)
            for i in range(spec["counts"][number]):
                passes = pick(rng, pass_pool, used, 2 if rng.random() < TWO_PASSES else 1)
                if z == 3 and rng.random() < KEEPER_SAVES:
                    tackles = [keeper] + pick(rng, tackle_pool, used, 1 if rng.random() < TWO_TACKLES else 0)
                    used[keeper] += 1
                else:
                    tackles = pick(rng, tackle_pool, used, 2 if rng.random() < TWO_TACKLES else 1)
                if i == 0 and example is not None:
                    corner, wanted = example
                    names = passes if corner == "passes" else tackles
                    if wanted not in names:
                        names[-1] = wanted
                cards.append({"team": team, "player": name, "passes": passes, "tackles": tackles})
            for _ in range(GOAL_CARDS.get(number, 0)):
                cards.append({"team": team, "player": name, "goal": True})
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
             f' "starting_piles": {one(data["starting_piles"])},', ' "editions": {']
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


def main() -> None:
    data = {
        "_note": "Generated by tools/make_crazykick_decks.py; reconstructed, see docs/crazy-kick.md.",
        "goals_to_win": 5,
        # piles each player lays, for team 0 and team 1 (seats alternate between the teams,
        # so with 3, 5 or 7 players team 0 is the larger): the rule book's box
        "starting_piles": {"3": [2, 4], "5": [2, 3], "7": [2, 3], "even": [3, 3]},
        "editions": {key: make_edition(key, spec) for key, spec in ROSTERS.items()},
    }
    # the rule book's example attack must be playable (checked again by the tests)
    OUT.write_text(dump(data), encoding="utf-8")
    for key, ed in data["editions"].items():
        print(key, len(ed["cards"]), "cards")


if __name__ == "__main__":
    main()
