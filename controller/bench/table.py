"""The live table's figures: what a move costs between the stations and the disk.

- **Commit.** A station's frame arriving → the action durably in the event log, through
  real StationLinks and simulated stations on pseudo-terminals (Partout, one input at a
  time as people make them). Beside it, in the same run, interleaved with the moves, a
  bare fdatasync of what SQLite's WAL writes for one action (two 4 KB pages with their
  frame headers, where the WAL writes them: appended, then again from the front once it
  holds ``eventlog.WAL_PAGES``) on the same disk: the ratio is what the table adds to the
  disk's own cost. Taken apart in the same run: the reader thread's hand-off of the frame
  to the table's thread, the log's own write (SQLite's commit), and the table's work
  around it.
- **A slow disk.** A Pi's SD card can take 5-20 ms to flush. The table answers a press only
  once its move is durable, so a Crazy Kick player feels the flush: a match of eight bots
  on the real clock (stations in a process of their own, USB's 0-4 ms each way, the
  table's screen drawing in its own process) with every durable commit made slower by
  ``SLOW_FSYNC_MS`` (``SlowCommits``), and each press timed from the moment the station
  stamped it to its answer (the beep of a move taken, or the red flash and low beep of a
  refusal) leaving for the station.
- **Resume.** 10,000 logged actions of each game (random legal play at its largest table,
  games chained where one is shorter), read back and replayed as ``spieltisch play`` does
  when it starts."""

from __future__ import annotations

import contextlib
import os
import random
import statistics
import tempfile
import time
from typing import Any, NamedTuple

from controller.bench.measure import Target, percentile
from controller.games import GAMES, find_game
from hardware.hostclock import now_ns

SLOW_FSYNC_MS = (0, 5, 20)           # added to each durable commit: this disk, and an SD card's range
PRESS_SECONDS = {"quick": 6.0, "default": 10.0, "long": 40.0}   # of Crazy Kick per flush time
RESUME_ACTIONS = 10_000
WAL_FRAME = 24 + 4096                # a WAL frame: its header and one page

TARGETS: dict[str, Target] = {
    "frame_to_commit_ms_median": (float("nan"), "info", "ms",
                                  "station bytes arriving → action durably in the log (Partout, one input at a time)"),
    "frame_to_commit_ms_p99": (1.0, "max", "ms", "the same, 99th percentile"),
    "bare_fsync_ms_median": (float("nan"), "info", "ms", "in the same run: two WAL frames written where the WAL "
                             "writes them and fdatasync'd, SQLite left out (this disk's own cost of one action)"),
    "bare_fsync_ms_p99": (float("nan"), "info", "ms", "the same, 99th percentile"),
    "commit_over_fsync": (1.3, "max", "×", "frame → committed, over the bare fdatasync (medians of the same run)"),
    "frame_to_table_ms_median": (float("nan"), "info", "ms", "of frame → committed: the reader thread's stamp → the "
                                 "table's thread holding the event (the hand-off)"),
    "log_write_ms_median": (float("nan"), "info", "ms", "… the log's own durable write (SQLite's statements "
                            "and commit, as the table calls them)"),
    "table_work_ms_median": (float("nan"), "info", "ms", "… the rest: the input adapter, the card registry, the "
                             "rules and the table before and after the write (median of each action's rest)"),
    "log_write_over_fsync": (float("nan"), "info", "×", "the log's own write over the bare fdatasync"),
    "fsync_commit_ms_median": (float("nan"), "info", "ms", "one durable SQLite commit on this disk, alone"),
    "frame_to_applied_ms_median": (0.2, "max", "ms", "bytes arriving → action applied, log without fsync"),
    "frame_to_applied_ms_p99": (1.0, "max", "ms", "the same, 99th percentile"),
}
for _ms in SLOW_FSYNC_MS:
    _disk = "this disk" if _ms == 0 else f"each commit {_ms} ms slower (an SD card)"
    TARGETS[f"ck_press_to_answer_ms_median_fsync{_ms}"] = (
        float("nan"), "info", "ms", f"Crazy Kick, 8 bots on the real clock, {_disk}: a press (station's stamp) → "
                                    "its answer (beep, or red flash) leaving for the station, median")
    TARGETS[f"ck_press_to_answer_ms_p99_fsync{_ms}"] = (
        5 + 2 * _ms + 15, "max", "ms", "… 99th percentile (set for a 5 ms hold, two flushes and 15 ms of the loop; "
                                       "the hold now waits up to 15 ms: docs/architecture.md)")
    TARGETS[f"ck_press_to_answer_ms_max_fsync{_ms}"] = (float("nan"), "info", "ms", "… the slowest")
    TARGETS[f"ck_presses_answered_fsync{_ms}"] = (float("nan"), "info", "presses", "… presses measured")
for _name in sorted(GAMES):
    TARGETS[f"resume_10k_actions_s_{_name}"] = (
        0.5, "max", "s", f"{GAMES[_name].title}: 10,000 logged actions read and replayed (CPU s; games chained)")
TARGETS["resume_10k_actions_s"] = (0.5, "max", "s", "the slowest game's")


# -- commit ----------------------------------------------------------------------------------------------

class BareFsync:
    """What SQLite's WAL does on the disk for one action, without SQLite: two frames written
    to a file and fdatasync'd, appended while the file is shorter than the log's WAL
    (``eventlog.WAL_PAGES``), then again from its front, as the WAL after a checkpoint."""

    def __init__(self, folder: str) -> None:
        from controller.table.eventlog import WAL_PAGES
        self.fd = os.open(os.path.join(folder, "bare-wal"), os.O_RDWR | os.O_CREAT, 0o600)
        self.offset = 0
        self.frames = os.urandom(2 * WAL_FRAME)
        self.wal_bytes = WAL_PAGES * WAL_FRAME

    def __call__(self) -> float:
        start = time.perf_counter_ns()
        os.pwrite(self.fd, self.frames, self.offset)
        (os.fdatasync if hasattr(os, "fdatasync") else os.fsync)(self.fd)
        elapsed = (time.perf_counter_ns() - start) / 1e6
        self.offset += len(self.frames)
        if self.offset + len(self.frames) > self.wal_bytes:
            self.offset = 0
        return elapsed

    def close(self) -> None:
        os.close(self.fd)


class CommitTimes(NamedTuple):
    """``frame_latencies_ms``'s answer, ms: per accepted action (the last three are parts
    of the first), and per action the bare flush beside it."""
    committed: list[float]         # the frame's arrival (the reader's stamp) → committed
    handoff: list[float]           # … → the table's thread holding the event
    log_write: list[float]         # … the log's own write, as the table calls it
    table_work: list[float]        # … the rest: adapter, card registry, rules, the table
    bare: list[float]              # BareFsync, once per action, when durable


def frame_latencies_ms(durable: bool, games: int = 2) -> CommitTimes:
    """Whole games at 4 simulated stations behind real StationLinks, one input at a time
    as people make them: each accepted action timed from the arrival of its last frame's
    bytes (taken by the reader thread) to the moment it is committed to the event log (the
    table's ``handle`` returned: the answer is ready too), and taken apart; and, when
    ``durable``, before each one's last input a bare fdatasync (``BareFsync``) on the same
    disk."""
    from controller.table.runner import event_queue
    from controller.bots.driver import perform
    from controller.bots.partout import PartoutBot
    from controller.table import Table
    from controller.table.eventlog import EventLog
    from hardware.link import StationLink
    from hardware.sim.station import SimulatedStation

    rules = find_game("partout")
    times = CommitTimes([], [], [], [], [])
    with tempfile.TemporaryDirectory(dir=os.path.expanduser("~")) as data_dir:
        store = EventLog(os.path.join(data_dir, "bench.db"), durable=durable)
        written: list[float] = []
        for name in ("append", "append_final"):       # the log's own share, timed where the table calls it
            def timed(*args: Any, _write: Any = getattr(store, name), **kw: Any) -> Any:  # noqa: B008 - this name's, bound now
                start = time.perf_counter_ns()
                try:
                    return _write(*args, **kw)
                finally:
                    written.append((time.perf_counter_ns() - start) / 1e6)
            setattr(store, name, timed)
        fsync = BareFsync(data_dir)
        sims = [SimulatedStation(f"bench-{i}").start() for i in range(4)]
        events = event_queue()
        links = [StationLink(sim.port, events, flood_limit=False).open() for sim in sims]
        try:
            for game in range(games):
                table = Table(rules, config={"players": 4}, seed=game, stations=[s.station_id for s in sims],
                              log_store=store)
                bot = PartoutBot()
                while not table.finished:
                    seat = table.state.to_act
                    action = bot.choose(rules, table.state, seat, random.Random(len(table.actions)))
                    steps = list(table.adapter.inputs_for(table.state, seat, action))
                    for n, step in enumerate(steps, 1):
                        if durable and n == len(steps):
                            # once per action, as the log's commits (the file grows as the WAL
                            # does), and after the same pause as the commit that follows
                            times.bare.append(fsync())
                        perform(sims[seat], "partout", step, release=False)
                        before, writes = len(table.actions), len(written)
                        while True:
                            event = events.get(timeout=5)
                            held = now_ns()
                            table.handle(event)
                            if getattr(event, "seq", None) == sims[seat].last_seq:
                                break
                        if len(table.actions) > before:
                            committed = (now_ns() - event.arrived_ns) / 1e6
                            handoff = (held - event.arrived_ns) / 1e6
                            log_write = sum(written[writes:])
                            times.committed.append(committed)
                            times.handoff.append(handoff)
                            times.log_write.append(log_write)
                            times.table_work.append(committed - handoff - log_write)
        finally:
            for link in links:
                link.close()
            for sim in sims:
                sim.close()
            store.close()
            fsync.close()
    return times


def fsync_commit_ms(n: int = 200) -> float:
    from controller.table.eventlog import EventLog
    with tempfile.TemporaryDirectory(dir=os.path.expanduser("~")) as data_dir:
        store = EventLog(os.path.join(data_dir, "b.db"))
        gid = store.start_game("partout", {}, 0, [])
        times = []
        for i in range(n):
            t = time.perf_counter_ns()
            store.append(gid, {"type": "bid", "player": 0, "tricks": i})
            times.append((time.perf_counter_ns() - t) / 1e6)
        store.close()
    return statistics.median(times)


# -- a slow disk -----------------------------------------------------------------------------------------

class SlowCommits:
    """An SQLite connection whose every durable commit takes ``delay_s`` longer, as on an SD
    card whose flush is slow: the wait comes after SQLite's own commit, and like a flush it
    lets the interpreter go (other threads run meanwhile). A commit is a write outside a
    transaction (autocommit) or the COMMIT of a transaction that wrote. A WAL checkpoint
    (every ``eventlog.WAL_PAGES`` pages: about every 500th move) flushes three times more
    on a real card, twice in the commit that checkpoints and once in the next (the WAL's
    new header); not modelled."""

    WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE")

    def __init__(self, db: Any, delay_s: float) -> None:
        self._db = db
        self.delay_s = delay_s
        self._wrote = False
        self.commits = 0

    def execute(self, sql: str, *args: Any) -> Any:
        verb = sql.lstrip().split(None, 1)[0].upper()
        cursor = self._db.execute(sql, *args)
        if verb in self.WRITES:
            if self._db.in_transaction:
                self._wrote = True
            else:
                self._flush()
        elif verb == "COMMIT" and self._wrote:
            self._flush()
        if verb in ("COMMIT", "ROLLBACK"):
            self._wrote = False
        return cursor

    def _flush(self) -> None:
        self.commits += 1
        if self.delay_s > 0:
            time.sleep(self.delay_s)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._db, name)


def press_to_answer_ms(fsync_ms: float, seconds: float, players: int = 8, seed: int = 1) -> list[float]:
    """A Crazy Kick match of bots on the real clock for ``seconds``, every durable commit
    ``fsync_ms`` slower: per press the table answered, ms from the station's stamp (mapped
    to the host's clock) to the answer's frame written to the station's port."""
    import logging
    from controller.table.runner import event_queue
    from controller.app.play import SNAPSHOT_MODULES, open_links, simulated_stations
    from controller.bots.driver import RealtimeBotDriver
    from controller.table import Table
    from controller.table.eventlog import EventLog
    from controller.table.realtime import RealtimeRunner
    from display.screen_process import ScreenProcess
    from hardware.events import ButtonEvent

    class TimedRunner(RealtimeRunner):
        """The real runner; it notes when each press came and when its answer left."""

        def __init__(self, *args: Any, **kw: Any) -> None:
            super().__init__(*args, **kw)
            self.waiting: dict[str, int] = {}          # station → its press's stamp, until answered
            self.answered_ms: list[float] = []

        def handle(self, event: Any) -> None:
            if isinstance(event, ButtonEvent) and event.pressed:
                self.waiting[event.station] = event.pressed_ns
            super().handle(event)

        def send(self, commands: list[Any]) -> None:
            if self._held_feedback is None:            # going out now, not held for a commit
                now = now_ns()
                for command in commands:
                    pressed = self.waiting.pop(command.station, None)
                    if pressed is not None:
                        self.answered_ms.append((now - pressed) / 1e6)
            super().send(commands)

    rules = find_game("crazy-kick")
    quiet = logging.getLogger("controller")
    level = quiet.level
    quiet.setLevel(logging.ERROR)                       # refused presses are meant
    try:
        with tempfile.TemporaryDirectory(dir=os.path.expanduser("~")) as data_dir, contextlib.ExitStack() as stack:
            store = EventLog(os.path.join(data_dir, "bench.db"))
            stack.callback(store.close)
            store._db = SlowCommits(store._db, fsync_ms / 1000)  # type: ignore[assignment]  # (a connection, slow to commit)
            events = event_queue()
            sims = simulated_stations([f"slow-disk-{os.getpid()}-{i}" for i in range(players)], stack,
                                      own_process=True, link_delay_ms=(0.0, 4.0))
            links = open_links([sim.port for sim in sims], events, stack, bots=True)
            table = Table(rules, config={"players": players}, seed=seed, stations=[s.station_id for s in sims],
                          log_store=store)
            screen = ScreenProcess(headless=True, max_fps=60, preload=SNAPSHOT_MODULES)
            stack.callback(screen.close)
            screen.interactive = True                   # as with the TV: its keys looked at 60 times a second
            bots = RealtimeBotDriver(rules, table.adapter, dict(enumerate(sims)), seed=seed)
            stack.callback(bots.close)
            runner = TimedRunner(table, events, links, screen=screen, bots=bots)
            with contextlib.suppress(TimeoutError):
                runner.run(timeout=seconds)
            return runner.answered_ms
    finally:
        quiet.setLevel(level)


# -- resume ----------------------------------------------------------------------------------------------

def logged_games(store: Any, game: str, actions: int) -> list[int]:
    """Games of random legal play at ``game``'s largest table, logged in ``store`` until they
    hold ``actions`` actions between them; their ids."""
    from controller.table.table import Table
    rules = GAMES[game]
    players = max(rules.player_counts)
    stations = [f"s{i}" for i in range(players)]
    ids, total, seed = [], 0, 0
    while total < actions:
        table = Table(rules, config={"players": players, "mode": "virtual"}, seed=seed, stations=stations,
                      log_store=store)
        rng = random.Random(seed)
        seed += 1
        while not table.finished and total < actions:
            to_act = rules.to_act(table.state)
            seats = range(players) if rules.realtime else [] if to_act is None else [to_act]
            legal = [a for seat in seats for a in rules.legal_actions(table.state, seat)]
            if not legal:
                break
            rng.shuffle(legal)
            # a move that goes on rather than one that ends the game at once (Team UP!'s "stop")
            table.apply(next((a for a in legal if rules.outcome(rules.apply(table.state, a)) is None), legal[0]))
            total += 1
        if table.game_id is not None:                # (it has a log: it has an id)
            ids.append(table.game_id)
    return ids


def resume_seconds(game: str, runs: int = 3) -> float:
    """CPU seconds to open the log (its checks included) and resume each of ``logged_games``
    from it, as ``spieltisch play`` does when it starts; the median of ``runs``."""
    from controller.table.eventlog import EventLog
    from controller.table.table import Table
    rules = GAMES[game]
    stations = [f"s{i}" for i in range(max(rules.player_counts))]
    with tempfile.TemporaryDirectory(dir=os.path.expanduser("~")) as data_dir:
        path = os.path.join(data_dir, "bench.db")
        with EventLog(path, durable=False) as store:          # written fast: only its reading is measured
            ids = logged_games(store, game, RESUME_ACTIONS)
        times = []
        for _ in range(runs):
            start = time.process_time()
            with EventLog(path) as store:
                for game_id in ids:
                    Table.resume(rules, store.load(game_id), store, stations=stations)
            times.append(time.process_time() - start)
    return statistics.median(times)


def figures(quick: bool = False, long: bool = False) -> dict[str, float]:
    out: dict[str, float] = {}
    durable = frame_latencies_ms(True, games=1 if quick else 3)
    out["frame_to_commit_ms_median"] = statistics.median(durable.committed)
    out["frame_to_commit_ms_p99"] = percentile(durable.committed, 99)
    out["bare_fsync_ms_median"] = statistics.median(durable.bare)
    out["bare_fsync_ms_p99"] = percentile(durable.bare, 99)
    out["commit_over_fsync"] = out["frame_to_commit_ms_median"] / out["bare_fsync_ms_median"]
    out["frame_to_table_ms_median"] = statistics.median(durable.handoff)
    out["log_write_ms_median"] = statistics.median(durable.log_write)
    out["table_work_ms_median"] = statistics.median(durable.table_work)
    out["log_write_over_fsync"] = out["log_write_ms_median"] / out["bare_fsync_ms_median"]
    fast = frame_latencies_ms(False, games=1 if quick else 3).committed
    out["frame_to_applied_ms_median"] = statistics.median(fast)
    out["frame_to_applied_ms_p99"] = percentile(fast, 99)
    out["fsync_commit_ms_median"] = fsync_commit_ms()
    seconds = PRESS_SECONDS["quick" if quick else "long" if long else "default"]
    for ms in SLOW_FSYNC_MS:
        answered = press_to_answer_ms(ms, seconds)
        out[f"ck_press_to_answer_ms_median_fsync{ms}"] = statistics.median(answered)
        out[f"ck_press_to_answer_ms_p99_fsync{ms}"] = percentile(answered, 99)
        out[f"ck_press_to_answer_ms_max_fsync{ms}"] = max(answered)
        out[f"ck_presses_answered_fsync{ms}"] = len(answered)
    for game in sorted(GAMES):
        out[f"resume_10k_actions_s_{game}"] = resume_seconds(game)
    out["resume_10k_actions_s"] = max(out[f"resume_10k_actions_s_{game}"] for game in sorted(GAMES))
    return out
