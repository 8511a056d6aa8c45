"""Fairness figures of the real-time games (Crazy Kick) on a model: how well the clock
sync maps a station's press stamp to the host clock, how often the arbiter orders close
presses right and how long it holds them (each station asked, FENCE, and answering over
its own in-order link), with exact wake-ups in simulated time; and what a press costs the
host. The same on the real path (pty stations, links, the runner, the host's clock) is
``race.py``, which prints the model's ordering and hold beside its own; the model is kept
to tell the algorithm's share of an error from the path's."""

from __future__ import annotations

import random
import statistics
import time
from typing import Any

from controller.bench.measure import Target, percentile
from hardware.link import QuickPings, StationLink

TARGETS: dict[str, Target] = {
    "ck_model_order_pct_500us": (float("nan"), "info", "%", "model (exact wake-ups, no IRQ, no threads): neighbouring "
                                 "presses 0.5 ms apart put in true order (8 stations, 0-4 ms each way, ±200 ppm, "
                                 "each race decided on every station's answer); the real path's figure is "
                                 "ck_race_right_pct_500us"),
    "ck_model_order_pct_250us": (float("nan"), "info", "%", "the same model, 0.25 ms apart"),
    "ck_model_arrival_pct_500us": (float("nan"), "info", "%", "the same model's pairs 0.5 ms apart, arrival order"),
    "ck_model_hold_ms_max": (float("nan"), "info", "ms", "the model's hold (simulated time): frame arrival → "
                             "release, worst press; the real path's is ck_race_hold_ms_max"),
    "ck_model_hold_ms_median": (float("nan"), "info", "ms", "the same, median (a round trip to the slowest of eight "
                                "stations, less what the other presses of a burst already asked)"),
    "ck_model_pico_order_pct_500us": (float("nan"), "info", "%", "the same model over a Pico's own USB (0.1-1.8 "
                                      "ms each way): 0.5 ms apart"),
    "ck_model_pico_hold_ms_median": (float("nan"), "info", "ms", "the model's hold over the Pico's link, median"),
    "ck_model_pico_hold_ms_max": (float("nan"), "info", "ms", "the model's hold over the Pico's link, worst press"),
    "ck_model_decided_without": (float("nan"), "info", "races", "the model's races decided without a station's "
                                 "answer (the 15 ms bound)"),
    "clock_sync_error_ms_p99": (0.25, "max", "ms", "model of the sync alone: press time on the host clock vs truth "
                                "after 10 s of pings every 20 ms (0-4 ms asymmetric delay, ±200 ppm)"),
    "clock_sync_error_ms_median": (float("nan"), "info", "ms", "the same, median"),
    "ck_press_ms_p99": (0.5, "max", "ms", "host processing per press: arbiter + input adapter + rules + table"),
    "ck_press_ms_median": (float("nan"), "info", "ms", "the same, median"),
}

# Two links, each way, uniform, here and on the race bench's real path (race.py). A USB-serial
# adapter's (the bench's link until 2026-11-25, kept as its pessimistic case): 0-4 ms, as a
# bridge whose timer holds bytes up to 4 ms (an FTDI's is 16 ms by default, 1 ms set). A Pico's
# own USB (MicroPython writes every frame out at once: no such timer): up to one 1 ms USB
# full-speed frame, plus up to one pass of the station's loop (under 0.8 ms with a silent
# reader) before it reads a FENCE or queues a press; the pass is counted on the way back too,
# so this case is pessimistic for answers and PONGs (since firmware 1.5.1 an answer leaves
# before the reader's bus transfer of its pass, a PONG at once: docs/stations.md, "Progress").
LINK_DELAY_NS = 4_000_000
ADAPTER_NS = (0.0, float(LINK_DELAY_NS))
PICO_NS = (100_000.0, 1_800_000.0)
PING_NS = StationLink.PING_INTERVAL_NS   # the link's sync exchange interval
QUICK_PING_NS = StationLink.QUICK_PING_INTERVAL_NS   # and while it asks an unsure station more often


def _synced_station(rng: random.Random, seconds: float = 10.0, link_ns: tuple[float, float] = ADAPTER_NS):
    """A station clock with a random offset and up to ±200 ppm drift, and a ClockSync that
    has exchanged pings with it for ``seconds`` over a random link (``link_ns`` each way)."""
    from hardware.clocksync import ClockSync
    from hardware.sim.station import StationClock
    clock = StationClock(rng.randrange(1 << 30), rng.uniform(-200, 200))
    sync = ClockSync()
    end = _keep_syncing(rng, clock, sync, 1_000_000_000, 1_000_000_000 + int(seconds * 1e9), link_ns)
    return clock, sync, end


def _keep_syncing(rng, clock, sync, start: int, end: int, link_ns: tuple[float, float] = ADAPTER_NS) -> int:
    """Exchanges every PING_NS from ``start`` until ``end``; returns the time after the last."""
    t = start
    while t < end:
        down, up = rng.uniform(*link_ns), rng.uniform(*link_ns)
        sync.add(t, clock.ticks(int(t + down)), int(t + down + up))
        t += PING_NS
    return t


def clock_sync_errors_ms(stations: int = 40, presses: int = 50, seed: int = 1) -> list[float]:
    """Press time mapped to the host clock minus the true press time, after 10 s of sync."""
    rng = random.Random(seed)
    errors = []
    for _ in range(stations):
        clock, sync, t = _synced_station(rng)
        for _ in range(presses):
            press = t + rng.uniform(0, PING_NS)
            errors.append(abs(sync.to_host_ns(clock.ticks(int(press))) - press) / 1e6)
            _keep_syncing(rng, clock, sync, t, t + PING_NS)
            t += PING_NS
    return errors


class _Station:
    """One station of the model: its crystal, its link each way, its host's ClockSync, and
    how often it answers (at most one exchange per ``answered`` racing intervals: busy)."""

    def __init__(self, rng: random.Random, link_ns: tuple[float, float], link: str | None, answered: int,
                 wandering: bool) -> None:
        from hardware.clocksync import ClockSync
        from hardware.sim.station import StationClock
        from controller.bench import syncmodel
        if wandering:
            self.clock: Any = syncmodel.WanderingCrystal(
                rng.randrange(1 << 30), syncmodel.BASE_PPM + rng.uniform(-150, 150), syncmodel.WANDER_PPM,
                rng.uniform(*syncmodel.WANDER_PERIOD_S), rng.uniform(0, 6.3))
        else:
            self.clock = StationClock(rng.randrange(1 << 30), rng.uniform(-200, 200))
        self.link = syncmodel.link_model(link)() if link is not None else \
            syncmodel.Link(syncmodel.uniform(*link_ns), syncmodel.uniform(*link_ns))
        self.sync = ClockSync()
        # ``answered`` > 1: a busy station (its loop held by card reads, a slow hub) that
        # answers at most one exchange per ``answered`` racing intervals of its own time,
        # whatever the asking rate: the firmware keeps only the newest PING per loop pass
        # (firmware/station.py), so asking more often overwrites more PINGs, it gets no more
        # answers. (Until 2026-11-28 one PING in ``answered`` by count: the links' quick pings
        # then got four times the answers, and the sparse figures were measured with about
        # four exchanges a second, not one.)
        self.busy_ns = (answered - 1) * PING_NS
        self._free_at = rng.uniform(0, answered * PING_NS)     # when its loop reads a PING next

    def down(self, rng: random.Random, at: float) -> float:
        return self.link.down(rng, at)

    def up(self, rng: random.Random, at: float) -> float:
        """The way back, and the host's stall if the host reads it late."""
        back = at + self.link.up(rng, at)
        if self.link.host is not None:
            back += self.link.host.late_by(back)
        return back - at

    def keep_syncing(self, rng: random.Random, start: int, end: int, quick: bool = True) -> int:
        """PINGs from ``start`` to ``end`` as a racing link sends them: every PING_NS, and
        ``quick``, every QUICK_PING_INTERVAL_NS while the link would ask more often
        (``StationLink.ping_interval_ns``: ``QuickPings.wanted_for``). A busy
        station answers the first PING it reads once its loop is free again."""
        t = start
        asking = QuickPings()
        while t < end:
            if t >= self._free_at:
                at_station, back = self.link.exchange(rng, t)
                self.sync.add(t, self.clock.ticks(int(at_station)), int(back))
                self._free_at = at_station + self.busy_ns
            unsure = quick and asking.wanted_for(self.sync, t)
            t += QUICK_PING_NS if unsure else PING_NS
        return t


def ordering_accuracy(bursts: int = 400, seed: int = 1, stations: int = 8, gap_ns: float = 500_000,
                      link_ns: tuple[float, float] = ADAPTER_NS, *, link: str | None = None, answered: int = 1,
                      wandering: bool = False, hung: bool = False, warmup_s: float = 10.0,
                      quick: bool = True) -> dict[str, float]:
    """A model: bursts of presses ``gap_ns`` apart at 8 stations, each station's link
    ``link_ns`` each way (a USB-serial adapter's 0-4 ms unless told) and in order (a
    FENCE waits behind what went before it, as in the
    simulated stations); the arbiter is woken exactly when it asks to be and at every
    frame, and each FENCE is answered the moment it reaches its station. The share of
    neighbouring pairs it puts in true order, the same in arrival order, its hold (press
    arrival → release) and the races it decided without a station. ``link``: one of
    ``syncmodel.link_model``'s instead of ``link_ns`` uniform; ``answered``: each station
    answers at most one sync exchange per this many racing intervals of its own time (busy),
    however often it is asked; ``wandering``: the crystals wander
    (``syncmodel.WanderingCrystal``), not only drift; ``hung``: the last station never
    answers a FENCE (nor presses); ``warmup_s``: the sync before the first burst; ``quick``:
    the links ask an unsure station four times as often while that lowers it (``QuickPings``). Each press
    carries its station's sync bound, and the arbiter knows every station's."""
    import heapq
    from controller.table.arbiter import Arbiter
    rng = random.Random(seed)
    models = [_Station(rng, link_ns, link, answered, wandering) for _ in range(stations)]
    t = 1_000_000_000 + int(warmup_s * 1e9)
    for model in models:
        model.keep_syncing(rng, 1_000_000_000, t, quick)
    synced = [(model.clock, model.sync, t) for model in models]
    arbiter = Arbiter(stations=[str(s) for s in range(stations)])
    right = right_by_arrival = 0
    holds: list[float] = []
    pressing = stations - 1 if hung else stations
    for _ in range(bursts):
        order = list(range(pressing))
        rng.shuffle(order)
        start = t + rng.uniform(0, 20e6)
        presses = [(start + k * gap_ns, s) for k, s in enumerate(order)]
        line = [start] * stations                    # per station: when its link's last frame is through
        queue: list[tuple] = []
        count = iter(range(1 << 30))
        for s, model in enumerate(models):
            arbiter.set_error(str(s), model.sync.error_ns(int(start)))

        def send(s: int, at: float, kind: str, *data) -> None:
            way = models[s].down if kind == "fence" else models[s].up
            line[s] = max(at + way(rng, at), line[s])      # in order, as USB keeps it
            heapq.heappush(queue, (line[s], next(count), kind, s, data))

        for press, s in presses:
            heapq.heappush(queue, (press, next(count), "pressed", s, ()))
        released: list[int] = []
        arrived_at: dict[int, float] = {}
        while queue:
            now, _, kind, s, data = heapq.heappop(queue)
            clock, sync, _ = synced[s]
            if kind == "pressed":                     # the station's frame leaves now
                send(s, now, "press", clock.ticks(int(now)))
            elif kind == "press":
                arrived_at[s] = now
                arbiter.push(s, station=str(s), pressed_ns=sync.to_host_ns(data[0]), arrived_ns=int(now),
                             error_ns=sync.error_ns(int(now)))
            elif kind == "fence":                     # it reached the station: stamped, answered
                if not (hung and s == stations - 1):
                    send(s, now, "progress", clock.ticks(int(now)), data[0])
            elif kind == "progress":
                arbiter.progress(str(s), upto_ns=sync.to_host_ns(data[0]), arrived_ns=int(now), asked_ns=data[1])
            for item in arbiter.due(int(now)):
                holds.append((now - arrived_at[item]) / 1e6)
                released.append(item)
            for station in arbiter.fences(int(now)):
                send(int(station), now, "fence", int(now))
            deadline = arbiter.next_deadline()
            if deadline is not None and (not queue or deadline < queue[0][0]):
                heapq.heappush(queue, (max(deadline, now), next(count), "wake", 0, ()))
        place = {item: n for n, item in enumerate(released)}
        came = {s: n for n, s in enumerate(sorted(arrived_at, key=lambda s: arrived_at[s]))}
        for (_, a), (_, b) in zip(presses, presses[1:]):
            right += place[a] < place[b]
            right_by_arrival += came[a] < came[b]
        t = int(start + 100e6)
        for model in models:
            model.keep_syncing(rng, int(start), int(t), quick)
    pairs = bursts * (pressing - 1)
    return {"arbiter": right / pairs, "arrival": right_by_arrival / pairs, "hold_ms_max": max(holds),
            "hold_ms_median": statistics.median(holds), "hold_ms_p99": percentile(holds, 99),
            "without": arbiter.without, "ties": arbiter.ties}


def press_processing_ms(seed: int = 1) -> list[float]:
    """Host time per press in a bot match: arbiter push and release, input adapter, rules
    core, table feedback (the durable log write is measured on its own above)."""
    from controller.games.crazykick import RULES
    from controller.bots.crazykick import KickBot
    from controller.table import Table
    from controller.table.realtime import RealtimeRunner
    from hardware.events import ButtonEvent

    class NoLink:
        def send(self, *args):
            return True

    stations = [f"s{i}" for i in range(4)]
    table = Table(RULES, config={"players": 4}, seed=seed, stations=stations)
    runner = RealtimeRunner(table, None, {s: NoLink() for s in stations})  # type: ignore[arg-type]
    bots = [KickBot(seat, seed) for seat in range(4)]
    costs: list[float] = []
    now, seq = 1_000_000_000, 0
    while not table.finished and seq < 20_000:
        plans = [(p.at_ms, seat, p) for seat, bot in enumerate(bots) if (p := bot.plan(table.state, now / 1e6))]
        if not plans:
            break
        at_ms, seat, plan = min(plans)
        now = max(now, int(at_ms * 1e6))
        for step in table.adapter.inputs_for(table.state, seat, plan.action):
            event = ButtonEvent(stations[seat], seq, step.arg, True, 0, now, now)
            seq += 1
            start = time.perf_counter_ns()
            runner.accept(event)
            runner.clock = lambda: now + 10_000_000      # past the hold
            runner.release()
            costs.append((time.perf_counter_ns() - start) / 1e6)
    return costs


def figures(quick: bool = False) -> dict[str, float]:
    out: dict[str, float] = {}
    bursts = 150 if quick else 400
    half = ordering_accuracy(bursts=bursts, gap_ns=500_000)
    out["ck_model_order_pct_500us"] = 100 * half["arbiter"]
    out["ck_model_arrival_pct_500us"] = 100 * half["arrival"]
    out["ck_model_hold_ms_max"] = half["hold_ms_max"]
    out["ck_model_hold_ms_median"] = half["hold_ms_median"]
    out["ck_model_decided_without"] = float(half["without"])
    out["ck_model_order_pct_250us"] = 100 * ordering_accuracy(bursts=bursts, gap_ns=250_000)["arbiter"]
    pico = ordering_accuracy(bursts=bursts, gap_ns=500_000, link_ns=PICO_NS)
    out["ck_model_pico_order_pct_500us"] = 100 * pico["arbiter"]
    out["ck_model_pico_hold_ms_median"] = pico["hold_ms_median"]
    out["ck_model_pico_hold_ms_max"] = pico["hold_ms_max"]
    errors = clock_sync_errors_ms(stations=20 if quick else 40)
    out["clock_sync_error_ms_p99"] = percentile(errors, 99)
    out["clock_sync_error_ms_median"] = statistics.median(errors)
    costs = [c for seed in range(2 if quick else 5) for c in press_processing_ms(seed)]
    out["ck_press_ms_p99"] = percentile(costs, 99)
    out["ck_press_ms_median"] = statistics.median(costs)
    return out
