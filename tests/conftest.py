from __future__ import annotations

import os
import queue
import sys
from pathlib import Path
from typing import Any, TypeVar

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from controller.table.cards import tag_text, virtual_uid  # noqa: E402
from controller.table.eventlog import EventLog  # noqa: E402
from controller.games import find_game  # noqa: E402
from controller.table import Table  # noqa: E402
from hardware.events import EventQueue  # noqa: E402
from hardware.link import StationLink  # noqa: E402
from hardware.sim.station import SimulatedStation  # noqa: E402

_Event = TypeVar("_Event")


def next_event(events: EventQueue, kind: type[_Event], timeout: float = 5.0) -> _Event:
    """The next event of one kind from a link's queue, skipping the others."""
    import time
    deadline = time.monotonic() + timeout
    while True:
        event = events.get(timeout=max(0.01, deadline - time.monotonic()))
        if isinstance(event, kind):
            return event


def wait_until(predicate, timeout: float = 5.0, what: str = "the condition") -> None:
    """Waits for ``predicate()`` to hold (another thread makes it so), failing after
    ``timeout``: a test waits for what it needs, not for a guessed time."""
    import time
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout} s for {what}")
        time.sleep(0.002)


def stop_group(table) -> None:
    """Whatever is left of the table's process group, gone (a failing test leaves none behind)."""
    import os
    import signal
    try:
        os.killpg(table.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    table.wait(timeout=10)


def gone(pid: int) -> bool:
    import os
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    with open(f"/proc/{pid}/stat") as stat:                 # a zombie is gone too
        return stat.read().split(") ")[1].startswith("Z")


def record_texts(monkeypatch) -> list[tuple[str, int, Any]]:
    """Every text the views draw from now on: (words, the size they are drawn at after
    fitting their width, the rectangle drawn, in its region's coordinates)."""
    import inspect
    from display import draw
    drawn: list[tuple[str, int, Any]] = []
    original = draw.text

    def noted(*args, **kw):
        given = inspect.signature(original).bind(*args, **kw)
        given.apply_defaults()
        a = given.arguments
        at = original(*args, **kw)
        drawn.append((a["words"], draw.fitted_size(a["words"], a["size"], a["bold"], a["max_width"]), at))
        return at
    monkeypatch.setattr(draw, "text", noted)
    return drawn


class Harness:
    """A table with simulated stations behind real StationLinks. Tests act like people
    (``press``, ``tap``) and ``settle`` hands the table every event up to the station's
    last frame, waiting on the queue, never sleeping."""

    def __init__(self, players: int, mode: str, data_dir: Path, seed: int = 1, game: str = "partout",
                 **options) -> None:
        self.events: queue.Queue = queue.Queue()
        self.sims = [SimulatedStation(f"sim-{i + 1}").start() for i in range(players)]
        # whole games at machine speed: not a person's event rate
        self.links = [StationLink(s.port, self.events, flood_limit=False).open() for s in self.sims]
        self.store = EventLog(data_dir / "spieltisch.db")
        self.rules = find_game(game)
        self.table = Table(self.rules, config={"players": players, "mode": mode, **options}, seed=seed,
                           stations=[s.station_id for s in self.sims],
                           names=["Anna", "Ben", "Clara", "David", "Eva", "Felix"][:players],
                           log_store=self.store)
        while not self.events.empty():          # the HELLOs
            self.table.handle(self.events.get_nowait())
        self.send(self.table.initial_feedback())

    def send(self, commands) -> None:
        by_id = {link.station_id: link for link in self.links}
        for c in commands:
            by_id[c.station].send(c.kind, *c.args)

    def settle(self, seat: int, timeout: float = 3.0) -> None:
        sim = self.sims[seat]
        while self.table.processed.get(sim.station_id) != sim.last_seq:
            self.send(self.table.handle(self.events.get(timeout=timeout)))

    def press(self, seat: int, *buttons: int) -> None:
        for b in buttons:
            self.sims[seat].press(b)
        self.settle(seat)

    def tap(self, seat: int, card: str, *, text: bool = True, uid: str | None = None) -> None:
        uid = uid or virtual_uid(self.rules.name, card)
        self.sims[seat].tap(uid, tag_text(self.rules.name, card) if text else None)
        self.settle(seat)

    @property
    def state(self):
        return self.table.state

    def close(self) -> None:
        for link in self.links:
            link.close()
        for sim in self.sims:
            sim.close()
        self.store.close()


@pytest.fixture(scope="module")
def screen():
    """A headless screen: the views draw on its 1920×1080 canvas."""
    from display.app import Screen
    s = Screen(headless=True)
    yield s
    s.close()


@pytest.fixture
def make_table(tmp_path):
    made = []

    def make(players: int = 4, mode: str = "physical", seed: int = 1, game: str = "partout", **options) -> Harness:
        h = Harness(players, mode, tmp_path, seed, game, **options)
        made.append(h)
        return h
    yield make
    for h in made:
        h.close()


MPY_CHECKS = Path(__file__).parent / "mpy"


def micropython_for_the_checks() -> None:
    """MicroPython's WebAssembly build for ``tests/mpy`` (npm ci on first use), installed once
    however many test workers ask at the same time (``pytest -n``), as ``--stations firmware``
    installs its own."""
    import shutil
    from hardware.sim.firmware_station import FirmwareUnavailable, install_once
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.fail("Node.js (node and npm) is needed to run the firmware under MicroPython")
    try:
        install_once(MPY_CHECKS)
    except FirmwareUnavailable as exc:
        pytest.fail(str(exc))


@pytest.fixture(autouse=True)
def data_folder_of_its_own(tmp_path_factory, monkeypatch):
    """Each test's tables keep their games in a folder of its own, never the user's
    (``$XDG_DATA_HOME``: the family's folder and the demos' beside it; a test may still
    choose ``SPIELTISCH_DATA``). A table locks its folder, and ``pytest -n`` runs tests side
    by side: two demos in the default folder refused each other."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("data")))

