"""Station figures for ``spieltisch bench``: host decoding speed, and how long a press takes
from the (simulated) station writing its frame to the event waiting on the table's queue,
alone and while another station floods."""

from __future__ import annotations

import queue
import random
import statistics
import threading
import time

from controller.bench.measure import Target, median_of, percentile
from controller.table.runner import event_queue
from hardware.hostclock import now_ns
from hardware.link import StationLink
from hardware.protocol import FrameDecoder, encode_frame
from hardware.sim.station import SimulatedStation

TARGETS: dict[str, Target] = {
    "decode_frames_per_s": (50_000, "min", "frames/s", "host frame decoder on one core (mixed BTN/PONG/TAG)"),
    "link_frames_per_s": (50_000, "min", "frames/s", "decoder + checks + events onto the queue, one core"),
    "press_to_queue_ms_median": (0.3, "max", "ms", "simulated station writes a press → event on the table's queue"),
    "press_to_queue_ms_p99": (2.0, "max", "ms", "the same, 99th percentile"),
    "press_to_queue_flood_ms_median": (0.3, "max", "ms", "the same while another station floods"),
    "press_to_queue_flood_ms_p99": (2.0, "max", "ms", "the same, 99th percentile"),
}


def sample_stream(frames: int, seed: int = 1) -> bytes:
    """What a busy station sends: presses, clock-sync answers and now and then a card."""
    rng = random.Random(seed)
    parts = []
    seq = 0
    for n in range(frames):
        kind = rng.random()
        if kind < 0.35:
            parts.append(encode_frame("PONG", n % 65536, rng.randrange(1 << 30)))
            continue
        if kind < 0.95:
            parts.append(encode_frame("BTN", seq, rng.randrange(6), rng.choice("DU"), rng.randrange(1 << 30)))
        else:
            parts.append(encode_frame("TAG", seq, "04A1B2C3D4E5F6", rng.randrange(1 << 30), "partout:red5"))
        seq = (seq + 1) % 65536
    return b"".join(parts)


def decode_rate(data: bytes, frames: int) -> float:
    decoder = FrameDecoder()
    start = time.perf_counter()
    for i in range(0, len(data), 4096):
        decoder.feed(data[i:i + 4096])
    elapsed = time.perf_counter() - start
    assert decoder.frames == frames
    return frames / elapsed


def link_rate(data: bytes, frames: int) -> float:
    """The reader thread's work per chunk, without the serial port: decode, check, queue."""
    events = event_queue()
    link = StationLink("bench://", events, flood_limit=False)
    link.station_id = "bench"
    link._hello.set()
    start = time.perf_counter()
    for i in range(0, len(data), 4096):
        now = now_ns()
        for frame in link.decoder.feed(data[i:i + 4096]):
            link._handle(frame, now)
    return frames / (time.perf_counter() - start)


def press_latencies_ms(presses: int, flood: bool = False) -> list[float]:
    import logging
    logging.getLogger("hardware.link").setLevel(logging.ERROR)   # the flood is meant
    events = event_queue()
    person = SimulatedStation("person").start()
    flooder = SimulatedStation("flooder").start() if flood else None
    links = [StationLink(s.port, events).open() for s in (person, flooder) if s is not None]
    received: dict[int, int] = {}
    done = threading.Event()

    def table() -> None:                   # the table's thread: takes events as they come
        while not done.is_set():
            try:
                event = events.get(timeout=0.1)
            except queue.Empty:
                continue
            if getattr(event, "station", None) == "person" and hasattr(event, "button"):
                received[event.seq] = now_ns()

    consumer = threading.Thread(target=table, daemon=True)
    consumer.start()
    worker = None
    if flooder is not None:
        worker = threading.Thread(target=flooder.flood, args=(10_000_000,), daemon=True)
        worker.start()
    sent: dict[int, int] = {}
    try:
        time.sleep(0.2)
        for i in range(presses):
            t0 = now_ns()
            seq = person.press(i % 6, release=False)
            sent[seq] = t0
            time.sleep(0.012)              # a person's pace, inside the event budget
        deadline = time.monotonic() + 2
        while len(received) < len(sent) and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        done.set()
        for link in links:
            link.close()
        person.close()
        if flooder is not None:
            flooder.close()
        if worker is not None:
            worker.join(2)
        consumer.join(1)
    return [(received[s] - t0) / 1e6 for s, t0 in sent.items() if s in received]


def figures(quick: bool = False) -> dict[str, float]:
    frames = 20_000 if quick else 100_000
    data = sample_stream(frames)
    out = {
        "decode_frames_per_s": median_of(3 if quick else 5, lambda: decode_rate(data, frames)),
        "link_frames_per_s": median_of(3 if quick else 5, lambda: link_rate(data, frames)),
    }
    presses = 100 if quick else 300
    alone = press_latencies_ms(presses)
    out["press_to_queue_ms_median"] = statistics.median(alone)
    out["press_to_queue_ms_p99"] = percentile(alone, 99)
    flooded = press_latencies_ms(presses, flood=True)
    out["press_to_queue_flood_ms_median"] = statistics.median(flooded)
    out["press_to_queue_flood_ms_p99"] = percentile(flooded, 99)
    return out
