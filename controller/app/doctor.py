"""``spieltisch doctor`` and the menu's "Check the table": every layer a first build can get
wrong, one line each, ✓ (fine), ✗ (wrong: the line says what to fix) or – (not checked, and
why), in the screen's language.

The layers, in order: Python; pygame-ce and its SDL; the SDL video drivers this SDL has
and the screen mode it gets (on a console without a desktop the table uses kmsdrm, which
loads libgbm, libdrm, libEGL and libGLESv2 at run time); the sound device; the groups the
table's user needs; the host panel's GPIO (``hardware/panel.py``); the data directory
(writable, free space, the database whole: the store's own checks,
``controller/table/eventlog.py``); every station (found and opened as ``spieltisch
stations`` does): its id, its firmware against the table's, its reader, how long a card
laid on it during the check takes to reach the table, the USB round trip, and its clock's
drift over the check's window (10 s); and every Pico in BOOTSEL mode (``hardware/bootsel.py``):
what puts MicroPython on it, or what keeps the table from doing so.

Everything the checks look at comes through :class:`Environment`, so a test can give each
layer what it needs to fail. Composition root: it may wire hardware.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from controller.games import texts
from hardware.events import EventQueue

OK, FAIL, SKIP = "ok", "fail", "skip"
SYMBOL = {OK: "✓", FAIL: "✗", SKIP: "–"}
PYTHON_AT_LEAST = (3, 10)
PYGAME_AT_LEAST = (2, 5)
GROUPS = ("dialout", "video", "render", "input", "gpio", "audio")
PI_ONLY_GROUPS = ("gpio",)     # Raspberry Pi OS has it (the host panel's pins); Debian elsewhere has not
# what kmsdrm loads at run time, and the Debian package that has it
KMSDRM_LIBRARIES = (("gbm", "libgbm1"), ("drm", "libdrm2"), ("EGL", "libegl1"), ("GLESv2", "libgles2"))
FREE_SPACE_MB = 100            # below this a long evening's logs (and SQLite's own files) may not fit
WINDOW_S = 10.0                # how long the stations are listened to (drift, a card laid on)
ROUND_TRIP_MS = 5.0            # a full-speed USB CDC round trip is 1-2 ms
DRIFT_PPM = 200.0              # a Pico's crystal is within ±30 ppm; the fit's noise over 10 s is a few ppm
CARD_READ_MS = 100.0           # the goal for a tap to reach the table (docs/stations.md)


@dataclass(frozen=True)
class Finding:
    status: str                       # OK, FAIL or SKIP
    key: str                          # its sentence in the catalogues
    params: dict[str, Any] = field(default_factory=dict)

    def text(self, lang: str) -> str:
        return texts.render(lang, self.key, self.params)

    def line(self, lang: str) -> str:
        return f"{SYMBOL[self.status]} {self.text(lang)}"


def _import_pygame() -> Any:
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame
    return pygame


def sdl_drivers() -> tuple[list[str], list[str]]:
    """The video and audio drivers the SDL that pygame loaded was built with (asked of the
    library itself: the list does not need a screen)."""
    import ctypes
    _import_pygame()
    with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
        paths = {line.split()[-1] for line in maps if "/libSDL2" in line}
    library = next((p for p in sorted(paths) if os.path.basename(p).startswith(("libSDL2-2", "libSDL2.so"))), None)
    if library is None:
        raise OSError("pygame's SDL library is not loaded")
    sdl = ctypes.CDLL(library)
    sdl.SDL_GetVideoDriver.restype = sdl.SDL_GetAudioDriver.restype = ctypes.c_char_p
    return ([sdl.SDL_GetVideoDriver(i).decode() for i in range(sdl.SDL_GetNumVideoDrivers())],
            [sdl.SDL_GetAudioDriver(i).decode() for i in range(sdl.SDL_GetNumAudioDrivers())])


SCREEN_PROBE = r"""
import json, os
os.environ["PYGAME_HIDE_SUPPORT_PROMPT"] = "1"
import pygame
out = {}
try:
    pygame.display.init()
    out["driver"] = pygame.display.get_driver()
    sizes = pygame.display.get_desktop_sizes()
    out["size"] = list(sizes[0]) if sizes else None
except Exception as exc:
    out["video_error"] = str(exc) or type(exc).__name__
try:
    pygame.mixer.init()
    from pygame._sdl2 import audio
    out["audio"] = [str(name) for name in audio.get_audio_device_names(False)]
except Exception as exc:
    out["audio_error"] = str(exc) or type(exc).__name__
print(json.dumps(out))
"""


def probe_screen(driver: str | None) -> dict[str, Any]:
    """Open the screen and the sound as the table would, in a process of its own (the
    display is let go when it ends): the driver, the mode, the sound devices, or why not."""
    env = dict(os.environ)
    if driver:
        env["SDL_VIDEODRIVER"] = driver
    try:
        done = subprocess.run([sys.executable, "-c", SCREEN_PROBE], env=env, capture_output=True, text=True,
                              timeout=30)
        return json.loads(done.stdout.strip().splitlines()[-1])
    except (subprocess.SubprocessError, OSError, ValueError, IndexError) as exc:
        reason = str(exc) or type(exc).__name__
        return {"video_error": reason, "audio_error": reason}


def live_screen() -> dict[str, Any] | None:
    """The screen this process has open already (the box's), or None: it cannot be opened
    a second time beside itself."""
    try:
        pygame = sys.modules.get("pygame")
        if pygame is None or not pygame.display.get_init() or pygame.display.get_surface() is None:
            return None
        out: dict[str, Any] = {"driver": pygame.display.get_driver(),
                               "size": list(pygame.display.get_surface().get_size())}
        if pygame.mixer.get_init():
            from pygame._sdl2 import audio
            out["audio"] = [str(name) for name in audio.get_audio_device_names(False)]
        else:
            out["audio_error"] = "the sound is not open"
        return out
    except Exception as exc:                  # noqa: BLE001 - a check says what it saw, never raises
        return {"video_error": str(exc), "audio_error": str(exc)}


def user_groups(user: str) -> tuple[set[str], set[str], set[str]]:
    """(the groups ``user`` is in by /etc/group, the groups this session has, every group
    this system has)."""
    import grp
    import pwd
    every = {g.gr_name for g in grp.getgrall()}
    try:
        gid = pwd.getpwnam(user).pw_gid
        listed = {grp.getgrgid(g).gr_name for g in os.getgrouplist(user, gid)}
    except KeyError:
        listed = set()
    session = set()
    for g in os.getgroups():
        with contextlib.suppress(KeyError):
            session.add(grp.getgrgid(g).gr_name)
    return listed, session, every


def _session_user() -> str:
    import getpass
    return getpass.getuser()


def _is_raspberry_pi() -> bool:
    try:
        return "Raspberry Pi" in Path("/proc/device-tree/model").read_text(errors="replace")
    except OSError:
        return False


def _user() -> str:
    import getpass
    return os.environ.get("SUDO_USER") or getpass.getuser()


def _ports() -> list[str]:
    from controller.table.stations import candidate_ports
    return candidate_ports()


def _probe(port: str, events: EventQueue, stack: contextlib.ExitStack) -> Any:
    from controller.table.stations import probe
    return probe(port, events, stack)


def _bootsel() -> list[Any]:
    from hardware.bootsel import bootsel_picos
    return list(bootsel_picos())


def _bootsel_blocked(pico: Any) -> Any:
    from hardware.bootsel import readiness
    return readiness(pico)


def _table_version() -> str:
    from hardware.stationflash import table_firmware_version
    return table_firmware_version()


def _data_dir() -> Path:
    from controller.table.eventlog import default_data_dir
    return default_data_dir()


@dataclass
class Environment:
    """What the checks look at; the defaults are this machine."""

    python: tuple[int, ...] = tuple(sys.version_info[:3])
    import_pygame: Callable[[], Any] = _import_pygame
    drivers: Callable[[], tuple[list[str], list[str]]] = sdl_drivers
    screen: Callable[[str | None], dict[str, Any]] = probe_screen
    live_screen: Callable[[], dict[str, Any] | None] = live_screen
    find_library: Callable[[str], str | None] = None            # type: ignore[assignment]
    environ: dict[str, str] = field(default_factory=lambda: dict(os.environ))
    user: Callable[[], str] = _user
    session_user: Callable[[], str] = _session_user
    groups: Callable[[str], tuple[set[str], set[str], set[str]]] = user_groups
    is_raspberry_pi: Callable[[], bool] = _is_raspberry_pi
    pin_factory: Any = None                  # gpiozero's (tests: MockFactory); None: gpiozero's default
    panel_pins: tuple[int, int, int, int] | None = None
    data_dir: Callable[[], Path] = _data_dir
    free_mb: Callable[[Path], int] = lambda folder: __import__("shutil").disk_usage(folder).free // (1 << 20)
    ports: Callable[[], list[str]] = _ports
    probe: Callable[[str, EventQueue, contextlib.ExitStack], Any] = _probe
    table_version: Callable[[], str] = _table_version
    bootsel: Callable[[], list[Any]] = _bootsel                   # the Picos in BOOTSEL mode
    bootsel_blocked: Callable[[Any], Any] = _bootsel_blocked      # what keeps MicroPython off one (a FlashError), or None
    window_s: float = WINDOW_S

    def __post_init__(self) -> None:
        if self.find_library is None:
            import ctypes.util
            self.find_library = ctypes.util.find_library


# -- the checks: each gives its findings ------------------------------------------------------------
def check_python(env: Environment) -> list[Finding]:
    version = ".".join(str(v) for v in env.python)
    if tuple(env.python[:2]) < PYTHON_AT_LEAST:
        return [Finding(FAIL, "doctor_python_old", {"version": version, "needs": "3.10"})]
    return [Finding(OK, "doctor_python", {"version": version})]


def check_pygame(env: Environment) -> list[Finding]:
    try:
        pygame = env.import_pygame()
    except Exception as exc:                                  # noqa: BLE001 - ImportError, a broken wheel
        return [Finding(FAIL, "doctor_pygame_missing", {"reason": str(exc) or type(exc).__name__})]
    version = str(getattr(pygame.version, "ver", "?"))
    sdl = ".".join(str(v) for v in pygame.get_sdl_version())
    if not getattr(pygame, "IS_CE", False):
        return [Finding(FAIL, "doctor_pygame_not_ce", {"version": version})]
    numbers = tuple(int(p) for p in version.split(".")[:2] if p.isdigit())
    if numbers < PYGAME_AT_LEAST:
        return [Finding(FAIL, "doctor_pygame_old", {"version": version, "needs": "2.5"})]
    return [Finding(OK, "doctor_pygame", {"version": version, "sdl": sdl})]


def wanted_driver(environ: dict[str, str]) -> str | None:
    """The video driver the table will use: the one set, else none on a desktop (SDL
    chooses), else kmsdrm (the console, as ``install-pi``'s service runs it)."""
    if environ.get("SDL_VIDEODRIVER"):
        return environ["SDL_VIDEODRIVER"]
    if environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY"):
        return None
    return "kmsdrm"


def check_screen(env: Environment, *, live: bool = False) -> list[Finding]:
    """The SDL's video drivers, the libraries kmsdrm loads, the screen mode and the sound."""
    findings = []
    driver = wanted_driver(env.environ)
    try:
        video, _audio = env.drivers()
        findings.append(Finding(OK, "doctor_video_drivers", {"drivers": ", ".join(video)}))
        if driver and driver.lower() not in (d.lower() for d in video):
            findings.append(Finding(FAIL, "doctor_video_driver_missing", {"driver": driver,
                                                                          "drivers": ", ".join(video)}))
    except Exception as exc:                                  # noqa: BLE001 - said, the rest goes on
        findings.append(Finding(SKIP, "doctor_video_drivers_unknown", {"reason": str(exc) or type(exc).__name__}))
    if driver and driver.lower() == "kmsdrm":
        missing = [(lib, package) for lib, package in KMSDRM_LIBRARIES if not env.find_library(lib)]
        if missing:
            findings.append(Finding(FAIL, "doctor_kmsdrm_libraries", {
                "libraries": ", ".join(f"lib{lib}" for lib, _ in missing),
                "packages": " ".join(package for _, package in missing)}))
    seen = env.live_screen() if live else None
    seen = seen or env.screen(driver)
    if "video_error" in seen:
        findings.append(Finding(FAIL, "doctor_screen_failed", {"driver": driver or "SDL", "reason": seen["video_error"]}))
    else:
        width, height = (seen.get("size") or [0, 0])[:2]
        findings.append(Finding(OK, "doctor_screen", {"driver": seen.get("driver", "?"), "width": width,
                                                      "height": height}))
    if seen.get("audio"):
        findings.append(Finding(OK, "doctor_audio", {"device": ", ".join(seen["audio"])}))
    else:
        findings.append(Finding(FAIL, "doctor_audio_none", {"reason": seen.get("audio_error") or "–"}))
    return findings


def check_groups(env: Environment) -> list[Finding]:
    """The user is in the groups the table needs here: gpio (the host panel's pins) only on a
    Raspberry Pi; another machine (Debian in the virtual machine) has no such group, and no
    panel to need it."""
    user = env.user()
    listed, session, every = env.groups(user)
    needed = GROUPS if env.is_raspberry_pi() else tuple(g for g in GROUPS if g not in PI_ONLY_GROUPS)
    absent = [g for g in needed if g not in every]
    missing = [g for g in needed if g in every and g not in listed]
    # added since this session began (install-pi just ran): the service has them, this shell not yet
    stale = [g for g in needed if g in listed and g not in session] if user == env.session_user() else []
    findings = []
    if missing:
        findings.append(Finding(FAIL, "doctor_groups_missing", {"user": user, "groups": ", ".join(missing),
                                                                "list": ",".join(missing)}))
    if absent:
        findings.append(Finding(FAIL, "doctor_groups_absent", {"groups": ", ".join(absent)}))
    if stale:
        findings.append(Finding(FAIL, "doctor_groups_login", {"user": user, "groups": ", ".join(stale)}))
    if not findings:
        findings.append(Finding(OK, "doctor_groups", {"user": user, "groups": ", ".join(needed)}))
    return findings


def check_panel(env: Environment) -> list[Finding]:
    """The host panel's pins can be had, and no button reads pressed (a short, a pin
    wired to the wrong side)."""
    from hardware.panel import DEFAULT_PINS
    pins = env.panel_pins or DEFAULT_PINS
    where = ", ".join(str(p) for p in pins)
    try:
        from gpiozero.exc import BadPinFactory
        from hardware.panel import HostPanel
    except Exception as exc:                                   # noqa: BLE001 - gpiozero missing or broken
        return [Finding(FAIL, "doctor_panel_failed", {"pins": where, "reason": str(exc)})]
    try:
        with warnings.catch_warnings():                    # gpiozero's fallbacks are said in the finding
            warnings.simplefilter("ignore")
            panel = HostPanel(queue.Queue(), pins, pin_factory=env.pin_factory)   # nothing reads it: a check
    except BadPinFactory as exc:               # a Pi without a pin library is wrong; another machine has no panel
        return [Finding(FAIL if env.is_raspberry_pi() else SKIP, "doctor_panel_no_gpio", {"reason": str(exc)})]
    except Exception as exc:                                   # noqa: BLE001 - a pin in use, no permission
        return [Finding(FAIL, "doctor_panel_failed", {"pins": where, "reason": str(exc) or type(exc).__name__})]
    try:
        stuck = [name for name, button in (("menu", panel.menu), ("undo", panel.undo)) if button.is_pressed]
    finally:
        panel.close()
    if stuck:
        return [Finding(FAIL, "doctor_panel_stuck", {"buttons": ", ".join(stuck), "pins": where})]
    return [Finding(OK, "doctor_panel", {"pins": where})]


def check_data(env: Environment, lang: str = "en") -> list[Finding]:
    import tempfile
    from controller.table.eventlog import EventLog, StorageError, make_data_folder
    folder = env.data_dir()
    try:
        make_data_folder(folder)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".doctor-"):
            pass
    except OSError as exc:
        return [Finding(FAIL, "doctor_data_not_writable", {"path": str(folder), "reason": exc.strerror or str(exc)})]
    findings = []
    free_mb = env.free_mb(folder)
    if free_mb < FREE_SPACE_MB:
        findings.append(Finding(FAIL, "doctor_data_little_room", {"path": str(folder), "mb": free_mb,
                                                                  "needs": FREE_SPACE_MB}))
    try:
        with EventLog(folder / "spieltisch.db") as store:
            problem = store.probe()
        if problem:
            findings.append(Finding(FAIL, "doctor_data_database", {"reason": problem}))
    except StorageError as exc:
        findings.append(Finding(FAIL, "doctor_data_database", {"reason": exc.message(lang)}))
    if not findings:
        findings.append(Finding(OK, "doctor_data", {"path": str(folder), "mb": free_mb}))
    return findings


def check_bootsel(env: Environment, lang: str = "en") -> list[Finding]:
    """A Pico in BOOTSEL mode is no station yet: the update makes it one, unless something
    keeps the table from putting MicroPython on it (the image, the drive's permissions)."""
    findings = []
    for pico in env.bootsel():
        blocked = env.bootsel_blocked(pico)
        if blocked is None:
            findings.append(Finding(FAIL, "doctor_station_bootsel", {"usb": pico.usb}))
        else:
            findings.append(Finding(FAIL, "doctor_station_bootsel_blocked", {
                "usb": pico.usb, "reason": texts.render(lang, blocked.key, blocked.params)}))
    return findings


def check_stations(env: Environment, *, tell: Callable[[Finding], None] = lambda f: None,
                   lang: str = "en") -> list[Finding]:
    """Every station: opened as ``spieltisch stations`` does, listened to for ``window_s``
    (a card laid on a reader meanwhile is timed), then judged; and every Pico in BOOTSEL mode."""
    from controller.table.runner import event_queue
    from hardware.events import TagEvent
    from hardware.sim.station import is_simulated
    ports = env.ports()
    findings: list[Finding] = check_bootsel(env, lang)
    if not ports:
        return findings or [Finding(FAIL, "doctor_no_stations")]
    wanted = env.table_version()
    events = event_queue()
    with contextlib.ExitStack() as stack:
        found = {port: env.probe(port, events, stack) for port in ports}
        links = {port: item for port, item in found.items() if not isinstance(item, str)}
        if links:
            tell(Finding(SKIP, "doctor_listening", {"seconds": round(env.window_s)}))
        read_ms: dict[str, float] = {}
        end = time.monotonic() + env.window_s
        while links and time.monotonic() < end:
            try:
                event = events.get(timeout=min(0.1, max(0.0, end - time.monotonic())))
            except queue.Empty:
                continue
            if isinstance(event, TagEvent):
                link = next((lk for lk in links.values() if getattr(lk, "station_id", None) == event.station), None)
                found_at = link.sync.to_host_ns(event.station_us) if link is not None else None
                if found_at is not None:
                    read_ms[event.station] = round((event.arrived_ns - found_at) / 1e6, 1)
        for port, item in found.items():
            if isinstance(item, str):
                findings.append(Finding(FAIL, "doctor_station_silent", {"port": port, "reason": item}))
                continue
            station = item.station_id
            if item.capabilities.get("buttons") == "0":              # a bare PN532 reader
                findings.append(Finding(OK, "doctor_reader_bare", {"port": port, "reader": station}))
                continue
            firmware = item.firmware or "?"
            if firmware == wanted or is_simulated(firmware):
                findings.append(Finding(OK, "doctor_station", {"station": station, "port": port,
                                                               "firmware": firmware}))
            else:
                findings.append(Finding(FAIL, "doctor_station_firmware", {"station": station, "has": firmware,
                                                                          "wants": wanted}))
            findings += _station_facts(item, read_ms.get(station), env.data_dir())
    return findings


def _probe_finding(station: str, port: str, folder: Path) -> Finding:
    """What the box's probe found for the station (``probes/`` in the data folder), or how
    to run it."""
    from controller.app.probe_session import probe_file
    path = probe_file(folder, station)
    try:
        timing = json.loads(path.read_text())
        when = str(timing["probe"]["who"]).rsplit(", ", 1)[-1]
        ack = int(timing["ack_us"])
    except (OSError, ValueError, KeyError, TypeError):      # none yet, or not one the probe wrote: how to
        return Finding(SKIP, "doctor_reader_probe", {"station": station, "port": port})
    return Finding(OK, "doctor_reader_probed", {"station": station, "path": str(path), "date": when, "ack": ack})


def _station_facts(link: Any, read_ms: float | None, folder: Path) -> list[Finding]:
    from hardware.sim.station import is_simulated
    station = link.station_id
    out = []
    reader = (link.stats or {}).get("reader")
    if reader == "ok":
        out.append(Finding(OK, "doctor_reader_ok", {"station": station}))
        if not is_simulated(link.firmware or ""):
            # a real chip's figures replace the simulated chip's estimates (firmware/README.md)
            out.append(_probe_finding(station, link.port, folder))
    elif reader == "missing":
        out.append(Finding(FAIL, "doctor_reader_missing", {"station": station}))
    elif reader == "none":
        out.append(Finding(SKIP, "doctor_reader_none", {"station": station}))
    else:
        out.append(Finding(SKIP, "doctor_reader_unknown", {"station": station}))
    if read_ms is None:
        if reader in ("ok", None):
            out.append(Finding(SKIP, "doctor_card_none", {"station": station}))
    elif read_ms > CARD_READ_MS:
        out.append(Finding(FAIL, "doctor_card_slow", {"station": station, "ms": read_ms, "goal": int(CARD_READ_MS)}))
    else:
        out.append(Finding(OK, "doctor_card_read", {"station": station, "ms": read_ms}))
    sync = link.sync
    rtt = sync.round_trip_ns
    if rtt is None:
        out.append(Finding(FAIL, "doctor_no_pong", {"station": station}))
        return out
    rtt_ms = round(rtt / 1e6, 2)
    if rtt_ms > ROUND_TRIP_MS:
        out.append(Finding(FAIL, "doctor_round_trip_slow", {"station": station, "ms": rtt_ms,
                                                            "goal": ROUND_TRIP_MS}))
    else:
        out.append(Finding(OK, "doctor_round_trip", {"station": station, "ms": rtt_ms}))
    drift = sync.drift_ppm
    seconds = round(max(0, (sync.points[-1].sent_ns - sync.points[0].sent_ns) / 1e9), 1) if sync.points else 0
    if drift is None or len(sync.points) < 3:
        out.append(Finding(FAIL, "doctor_no_pong", {"station": station}))
    elif abs(drift) > DRIFT_PPM:
        out.append(Finding(FAIL, "doctor_drift_high", {"station": station, "ppm": round(drift), "seconds": seconds,
                                                       "goal": int(DRIFT_PPM)}))
    else:
        out.append(Finding(OK, "doctor_drift", {"station": station, "ppm": round(drift), "seconds": seconds}))
    return out


def run_checks(env: Environment | None = None, *, lang: str = "en", live: bool = False,
               tell: Callable[[Finding], None] = lambda f: None) -> list[Finding]:
    """Every check in order, each finding told as it comes; none raises: a check that
    breaks is a ✗ with its reason."""
    env = env or Environment()
    findings: list[Finding] = []
    steps: list[Callable[[], list[Finding]]] = [
        lambda: check_python(env), lambda: check_pygame(env), lambda: check_screen(env, live=live),
        lambda: check_groups(env), lambda: check_panel(env), lambda: check_data(env, lang),
        lambda: check_stations(env, tell=tell, lang=lang)]
    for step in steps:
        try:
            found = step()
        except Exception as exc:                              # noqa: BLE001 - a check's own bug is a finding too
            found = [Finding(FAIL, "doctor_check_broke", {"reason": f"{type(exc).__name__}: {exc}"})]
        for finding in found:
            findings.append(finding)
            tell(finding)
    return findings


def doctor_command(*, as_json: bool = False, lang: str = "en", env: Environment | None = None) -> int:
    """``spieltisch doctor``: a line per finding as it comes; 1 when anything is wrong."""
    def tell(finding: Finding) -> None:
        if as_json:
            if finding.key != "doctor_listening":
                print(json.dumps({"status": finding.status, "check": finding.key, **finding.params,
                                  "text": finding.text(lang)}, ensure_ascii=False), flush=True)
        else:
            print(finding.line(lang) if finding.key != "doctor_listening" else finding.text(lang), flush=True)
    findings = run_checks(env, lang=lang, tell=tell)
    problems = sum(f.status == FAIL for f in findings)
    if not as_json:
        print(texts.render(lang, "doctor_summary_problems", {"n": problems}) if problems else
              texts.render(lang, "doctor_summary_ok"))
    return 1 if problems else 0


# -- on the TV ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class DoctorSnapshot:
    game: str                                         # "doctor": the screen's view
    findings: tuple[Finding, ...]
    note: Finding | None = None                       # what is being done now (listening to the stations)
    done: bool = False


def run_doctor_on_screen(ports: list[str], *, lang: str, headless: bool, fullscreen: bool,
                         timeout: float | None = None, env: Environment | None = None) -> list[Finding]:
    """The menu's "Check the table": the findings on the TV as they come, then until any
    station's button (or Esc)."""
    from controller.app.play import QUIT, make_screen, next_input, open_present
    from controller.table.runner import event_queue
    from hardware.events import ButtonEvent
    env = env or Environment(ports=lambda: list(ports))
    deadline = None if timeout is None else time.monotonic() + timeout
    with contextlib.ExitStack() as stack:
        screen = make_screen(stack, lang=lang, headless=headless, fullscreen=fullscreen)
        shown: list[Finding] = []
        note: list[Finding | None] = [None]

        def tell(finding: Finding) -> None:
            if finding.key == "doctor_listening":
                note[0] = finding
            else:
                shown.append(finding)
            screen.show(DoctorSnapshot("doctor", tuple(shown), note[0]))
            screen.poll()
        screen.show(DoctorSnapshot("doctor", (), None))
        findings = run_checks(env, lang=lang, live=True, tell=tell)
        screen.show(DoctorSnapshot("doctor", tuple(findings), None, done=True))
        events = event_queue()
        open_present(ports, events, stack)
        while True:
            event = next_input(screen, events, deadline)
            if event is QUIT or (isinstance(event, ButtonEvent) and event.pressed):
                return findings
