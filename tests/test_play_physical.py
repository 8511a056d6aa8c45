"""A whole game of `spieltisch play` with real (physical) cards: the test deals the cards
and the people at four (or three) simulated stations tap them and press the buttons.
Each person waits for the table's short "accepted" beep before the next one acts."""

from __future__ import annotations

import random
import threading

import pytest

from controller.bots.driver import perform
from controller.games import find_game
from controller.games.partout import Play
from controller.inputs import adapter_for
from controller.app.play import run_table
from controller.table import BUZZ_ACCEPTED
from hardware.sim.station import SimulatedStation

RULES = find_game("partout")
BEEP = ("BUZZ", tuple(map(str, BUZZ_ACCEPTED)))


class People:
    """Follows the game from their own moves and acts through the stations."""

    def __init__(self, players: int, stations: list[SimulatedStation], seed: int) -> None:
        self.stations = stations
        self.rng = random.Random(seed)
        self.state = RULES.new_game({"players": players, "mode": "physical"}, seed)
        self.adapter = adapter_for(RULES)
        self.error: BaseException | None = None

    def deal(self) -> list[list[str]]:
        deck = sorted(self.state.setup.deck)
        self.rng.shuffle(deck)
        size = self.state.setup.hand_size
        return [deck[p * size:(p + 1) * size] for p in range(self.state.players)]

    def play(self) -> None:
        try:
            # sit down when the table has greeted every station (its first LED command)
            for station in self.stations:
                assert station.wait_for(lambda s: bool(s.sent("LED")), timeout=10)
            hands, round_index = self.deal(), 0
            while self.state.to_act is not None:
                if self.state.round != round_index:
                    hands, round_index = self.deal(), self.state.round
                seat = self.state.to_act
                options = RULES.legal_actions(self.state, seat)
                if self.state.phase == "playing":
                    options = [a for a in options if a.card in hands[seat]]
                action = self.rng.choice(options)
                station = self.stations[seat]
                beeps = station.commands.count(BEEP)
                for step in self.adapter.inputs_for(self.state, seat, action):
                    perform(station, "partout", step)
                assert station.wait_for(lambda s: s.commands.count(BEEP) > beeps, timeout=5), action
                self.state = RULES.apply(self.state, action)
                if isinstance(action, Play):
                    hands[seat].remove(action.card)
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            self.error = exc


@pytest.mark.parametrize("players", [3, 4])
def test_a_whole_physical_game_through_spieltisch_play(tmp_path, monkeypatch, players):
    monkeypatch.setenv("SPIELTISCH_DATA", str(tmp_path))
    stations = [SimulatedStation(f"seat-{i + 1}").start() for i in range(players)]
    try:
        people = People(players, stations, seed=players)
        thread = threading.Thread(target=people.play, daemon=True)
        thread.start()
        result = run_table("partout", ports=[s.port for s in stations], players=players,
                           names=["Oma", "Opa", "Lea", "Max"][:players], virtual=False, seed=None, new=True,
                           lang="de", fullscreen=False, headless=True, timeout=60,
                           flood_limit=False)   # these people press at machine speed
        thread.join(10)
        assert people.error is None
        assert result["finished"] and result["config"]["mode"] == "physical"
        assert result["scores"] == list(RULES.outcome(people.state).scores)
        assert result["teams"][0][0] == "Oma"
    finally:
        for s in stations:
            s.close()
