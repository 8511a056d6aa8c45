"""``spieltisch doctor``: each layer's ✓ and each ✗ it can say, through an injected
environment; the stations are simulated ones (hardware/sim/station.py) speaking the real protocol
over ptys, the host panel gpiozero's mock pins."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from controller.app import doctor
from controller.app.doctor import FAIL, OK, SKIP, Environment, run_checks
from hardware.protocol import encode_frame
from hardware.sim.station import SimulatedStation, StationClock


class OldStation(SimulatedStation):
    """A station that says an older real firmware in its HELLO."""

    def _on_command(self, kind, fields):
        if kind == "WHO":
            self._write(encode_frame("HELLO", 1, self.station_id, "1.1.0", "buttons=6,reader=pn532,led=rgb"))
            return
        super()._on_command(kind, fields)


class FakePygame:
    IS_CE = True

    class version:
        ver = "2.5.8"

    @staticmethod
    def get_sdl_version():
        return (2, 32, 10)


def fine_screen(driver):
    return {"driver": "KMSDRM", "size": [1920, 1080], "audio": ["vc4-hdmi-0"]}


def env_for(tmp_path: Path, **changes) -> Environment:
    """A Pi where everything is right, but what ``changes`` says."""
    base = dict(python=(3, 11, 2), import_pygame=lambda: FakePygame,
                drivers=lambda: (["x11", "wayland", "KMSDRM", "offscreen", "dummy", "evdev"], ["alsa", "dummy"]),
                screen=fine_screen, live_screen=lambda: None, find_library=lambda name: f"lib{name}.so",
                environ={}, user=lambda: "anna", session_user=lambda: "someone-else",
                groups=lambda user: (set(doctor.GROUPS), set(doctor.GROUPS), set(doctor.GROUPS) | {"anna"}),
                is_raspberry_pi=lambda: True, pin_factory=MockFactory(), data_dir=lambda: tmp_path / "data",
                free_mb=lambda folder: 20_000, ports=lambda: [], table_version=lambda: "1.2.0", window_s=0.2,
                bootsel=lambda: [])
    base.update(changes)
    return Environment(**base)


def keys(findings, status=None):
    return [f.key for f in findings if status is None or f.status == status]


def only(findings, key):
    found = [f for f in findings if f.key == key]
    assert len(found) == 1, keys(findings)
    return found[0]


def test_everything_right_but_the_stations_missing(tmp_path):
    findings = run_checks(env_for(tmp_path))
    assert keys(findings, FAIL) == ["doctor_no_stations"]
    assert keys(findings, OK) == ["doctor_python", "doctor_pygame", "doctor_video_drivers", "doctor_screen",
                                  "doctor_audio", "doctor_groups", "doctor_panel", "doctor_data"]
    assert only(findings, "doctor_screen").line("en") == "✓ The screen: KMSDRM, 1920 × 1080"


@pytest.mark.parametrize("changes, key", [
    (dict(python=(3, 9, 18)), "doctor_python_old"),
    (dict(import_pygame=lambda: (_ for _ in ()).throw(ImportError("No module named 'pygame'"))),
     "doctor_pygame_missing"),
    (dict(import_pygame=lambda: type("Pygame", (FakePygame,), {"IS_CE": False})), "doctor_pygame_not_ce"),
    (dict(drivers=lambda: (["x11", "wayland", "offscreen", "dummy"], ["alsa"])), "doctor_video_driver_missing"),
    (dict(find_library=lambda name: None if name in ("gbm", "GLESv2") else name), "doctor_kmsdrm_libraries"),
    (dict(screen=lambda driver: {"video_error": "kmsdrm not available", "audio": ["vc4-hdmi-0"]}),
     "doctor_screen_failed"),
    (dict(screen=lambda driver: {"driver": "KMSDRM", "size": [1920, 1080], "audio_error": "No such device"}),
     "doctor_audio_none"),
    (dict(groups=lambda user: ({"dialout", "video", "audio", "input"}, set(doctor.GROUPS), set(doctor.GROUPS))),
     "doctor_groups_missing"),
    (dict(groups=lambda user: (set(doctor.GROUPS) - {"gpio"}, set(doctor.GROUPS), set(doctor.GROUPS) - {"gpio"})),
     "doctor_groups_absent"),
    (dict(session_user=lambda: "anna", groups=lambda user: (set(doctor.GROUPS), {"dialout"}, set(doctor.GROUPS))),
     "doctor_groups_login"),
    (dict(free_mb=lambda folder: 12), "doctor_data_little_room"),
])
def test_each_layer_says_what_is_wrong(tmp_path, changes, key):
    findings = run_checks(env_for(tmp_path, **changes))
    assert keys(findings, FAIL) == [key, "doctor_no_stations"]
    finding = only(findings, key)
    for lang in ("en", "de", "fr", "it"):
        assert finding.line(lang).startswith("✗ ") and "{" not in finding.line(lang)


def test_a_machine_that_is_not_a_pi_needs_no_gpio_group(tmp_path):
    """Review of issue 42: doctor failed the groups on Debian in the virtual machine, which
    has no gpio group and no host panel to need one; on a Pi its lack still fails."""
    debian = set(doctor.GROUPS) - {"gpio"}
    findings = run_checks(env_for(tmp_path, is_raspberry_pi=lambda: False, groups=lambda user: (debian, debian, debian)))
    assert "doctor_groups" in keys(findings, OK) and "gpio" not in only(findings, "doctor_groups").text("en")
    assert "doctor_groups_absent" not in keys(findings)
    lacking = debian - {"render"}                       # a group it does need is still said
    findings = run_checks(env_for(tmp_path, is_raspberry_pi=lambda: False,
                                  groups=lambda user: (lacking, lacking, lacking)))
    assert only(findings, "doctor_groups_absent").params["groups"] == "render"
    findings = run_checks(env_for(tmp_path, groups=lambda user: (debian, debian, debian)))      # a Pi
    assert only(findings, "doctor_groups_absent").params["groups"] == "gpio"


def test_the_kmsdrm_libraries_line_names_the_packages(tmp_path):
    findings = run_checks(env_for(tmp_path, find_library=lambda name: None if name in ("gbm", "EGL") else name))
    assert only(findings, "doctor_kmsdrm_libraries").text("en") == \
        "kmsdrm needs libgbm, libEGL, which this system lacks: sudo apt install libgbm1 libegl1"


def test_a_desktop_leaves_the_driver_to_sdl(tmp_path):
    asked = []
    findings = run_checks(env_for(tmp_path, environ={"DISPLAY": ":0"}, find_library=lambda name: None,
                                  screen=lambda driver: asked.append(driver) or fine_screen(driver)))
    assert asked == [None] and "doctor_kmsdrm_libraries" not in keys(findings)


def test_the_box_reports_the_screen_it_has_open(tmp_path):
    probed = []
    findings = run_checks(env_for(tmp_path, screen=lambda d: probed.append(d) or {},
                                  live_screen=lambda: {"driver": "KMSDRM", "size": [3840, 2160], "audio": ["hdmi"]}),
                          live=True)
    assert probed == [] and only(findings, "doctor_screen").params == {"driver": "KMSDRM", "width": 3840, "height": 2160}


def test_a_panel_button_held_down_is_found(tmp_path):
    from gpiozero.pins.mock import MockPin

    class Shorted(MockPin):                        # undo's pin shorted to GND: low whatever pulls it up
        def _set_pull(self, value):
            super()._set_pull(value)
            self.drive_low()
    factory = MockFactory()
    factory.pin(6, pin_class=Shorted)
    findings = run_checks(env_for(tmp_path, pin_factory=factory))
    assert only(findings, "doctor_panel_stuck").params["buttons"] == "undo"


def test_a_panel_pin_in_use_is_said(tmp_path):
    from gpiozero import LED
    factory = MockFactory()
    holder = LED(13, pin_factory=factory)          # something else holds the status LED's pin
    findings = run_checks(env_for(tmp_path, pin_factory=factory))
    assert "doctor_panel_failed" in keys(findings, FAIL)
    holder.close()


@pytest.mark.parametrize("pi, status", [(True, FAIL), (False, SKIP)])
def test_no_gpio_is_wrong_on_a_pi_and_not_checked_elsewhere(tmp_path, pi, status):
    from gpiozero.exc import BadPinFactory

    class NoPins(MockFactory):
        def pin(self, *args, **kwargs):
            raise BadPinFactory("Unable to load any default pin factory!")
    findings = run_checks(env_for(tmp_path, pin_factory=NoPins(), is_raspberry_pi=lambda: pi))
    assert only(findings, "doctor_panel_no_gpio").status == status


def test_a_data_directory_that_cannot_be_written_is_said(tmp_path):
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the folder should be")
    findings = run_checks(env_for(tmp_path, data_dir=lambda: blocked))
    assert keys(findings, FAIL) == ["doctor_data_not_writable", "doctor_no_stations"]


def test_a_damaged_database_is_said_in_one_line(tmp_path):
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "spieltisch.db").write_bytes(b"SQLite format 3\x00" + os.urandom(4096))
    findings = run_checks(env_for(tmp_path))
    finding = only(findings, "doctor_data_database")
    assert finding.status == FAIL and "\n" not in finding.text("de")


def test_a_check_that_breaks_is_a_finding_not_a_traceback(tmp_path):
    def broken():
        raise RuntimeError("boom")
    findings = run_checks(env_for(tmp_path, ports=broken))
    assert only(findings, "doctor_check_broke").params["reason"] == "RuntimeError: boom"


# -- stations ---------------------------------------------------------------------------------------
@pytest.fixture
def stations():
    made = []

    def make(name, kind=SimulatedStation, **kwargs):
        station = kind(name, **kwargs).start()
        made.append(station)
        return station
    yield make
    for station in made:
        station.close()


def station_facts(findings, station):
    return {f.key: f for f in findings if f.params.get("station") == station}


def test_a_healthy_station_and_a_card_laid_on_it(tmp_path, stations):
    good = stations("good-1")

    def tell(finding):
        if finding.key == "doctor_listening":      # the stations are listened to now: a card is laid on
            good.tap("04A1B2C3D4E5F6")
    findings = run_checks(env_for(tmp_path, ports=lambda: [good.port], window_s=3.0), tell=tell)
    facts = station_facts(findings, "good-1")
    assert {k: f.status for k, f in facts.items()} == {
        "doctor_station": OK, "doctor_reader_ok": OK, "doctor_card_read": OK, "doctor_round_trip": OK,
        "doctor_drift": OK}
    assert keys(findings, FAIL) == []
    assert 0 <= facts["doctor_card_read"].params["ms"] < doctor.CARD_READ_MS


class RealStation(SimulatedStation):
    """A station that says the table's own real firmware in its HELLO (not a simulated one)."""

    def _on_command(self, kind, fields):
        if kind == "WHO":
            self._write(encode_frame("HELLO", 1, self.station_id, "1.2.0", "buttons=6,reader=pn532,led=rgb"))
            self._write(encode_frame("STAT", "loop_us=900", "reader=ok", "reader_failures=0"))
            return
        super()._on_command(kind, fields)


def test_a_real_station_whose_reader_answers_is_asked_for_its_probe(tmp_path, stations):
    """The bring-up probe's figures replace the simulated chip's estimates: the doctor says
    how to measure a real station's reader (a hint, nothing wrong), and never a simulated one's."""
    real = stations("real-1", kind=RealStation)
    simulated = stations("good-1")
    findings = run_checks(env_for(tmp_path, ports=lambda: [real.port, simulated.port], window_s=1.0))
    hint = station_facts(findings, "real-1")["doctor_reader_probe"]
    assert hint.status == SKIP and hint.params == {"station": "real-1", "port": real.port}
    assert f"--probe --port {real.port} --out" in hint.text("en") and "Test this station" in hint.text("en")
    assert "doctor_reader_probe" not in station_facts(findings, "good-1")
    assert keys(findings, FAIL) == []


def test_a_station_the_box_has_probed_is_said_with_what_its_probe_found(tmp_path, stations):
    """Once the box's "Test this station" has probed a station, the doctor says when, its
    ACK and the file to send, in place of how to run the probe; a file that is not a probe's
    leaves the hint."""
    from controller.app.probe_session import probe_file
    real = stations("real-1", kind=RealStation)
    other = stations("real-2", kind=RealStation)
    probed = probe_file(tmp_path / "data", "real-1")
    probed.parent.mkdir(parents=True)
    probed.write_text(json.dumps({"ack_us": 1081, "probe": {"who": "station real-1, firmware 1.6.0, PN532 "
                                                                   "firmware 1.6, 2026-11-28"}}))
    probe_file(tmp_path / "data", "real-2").write_text("{not json")
    findings = run_checks(env_for(tmp_path, ports=lambda: [real.port, other.port], window_s=1.0))
    said = station_facts(findings, "real-1")
    assert "doctor_reader_probe" not in said
    found = said["doctor_reader_probed"]
    assert found.status == OK
    assert found.params == {"station": "real-1", "path": str(probed), "date": "2026-11-28", "ack": 1081}
    assert str(probed) in found.text("de") and "1081 µs" in found.text("fr")
    assert "doctor_reader_probe" in station_facts(findings, "real-2")
    assert keys(findings, FAIL) == []


def test_each_station_fault_is_said(tmp_path, stations):
    drifting = stations("drift-1", station_clock=StationClock(drift_ppm=1500))
    slow = stations("slow-1", link_delay_ms=(6.0, 7.0))
    no_reader = stations("noreader-1")
    slow_card = stations("slowcard-1")
    old = stations("old-1", kind=OldStation)

    def tell(finding):
        if finding.key == "doctor_listening":
            no_reader.send_raw(encode_frame("STAT", "loop_us=900", "reader=missing", "reader_failures=3"))
            found = slow_card._ticks() - 150_000                # found 150 ms before its frame leaves
            slow_card._event("TAG", "04A1B2C3D4E5F7", found, "-")
    ports = [s.port for s in (drifting, slow, no_reader, slow_card, old)]
    findings = run_checks(env_for(tmp_path, ports=lambda: ports, window_s=3.0), tell=tell)
    assert station_facts(findings, "drift-1")["doctor_drift_high"].params["ppm"] > doctor.DRIFT_PPM
    assert station_facts(findings, "slow-1")["doctor_round_trip_slow"].params["ms"] > doctor.ROUND_TRIP_MS
    assert "doctor_reader_missing" in station_facts(findings, "noreader-1")
    assert station_facts(findings, "slowcard-1")["doctor_card_slow"].params["ms"] >= 150
    assert station_facts(findings, "old-1")["doctor_station_firmware"].params == {
        "station": "old-1", "has": "1.1.0", "wants": "1.2.0"}
    assert set(keys(findings, FAIL)) == {"doctor_drift_high", "doctor_round_trip_slow", "doctor_reader_missing",
                                         "doctor_card_slow", "doctor_station_firmware"}


def test_a_port_that_answers_nothing_is_said(tmp_path):
    import pty
    master, slave = pty.openpty()
    try:
        findings = run_checks(env_for(tmp_path, ports=lambda: [os.ttyname(slave)]))
    finally:
        os.close(master)
        os.close(slave)
    assert keys(findings, FAIL) == ["doctor_station_silent"]


# -- the command on this machine ------------------------------------------------------------------------
def test_the_command_runs_here_reports_what_it_cannot_find_and_exits_non_zero(tmp_path, capsys, monkeypatch):
    from controller.app.cli import main
    monkeypatch.setattr("controller.table.stations.candidate_ports", lambda: [])
    code = main(["--data-dir", str(tmp_path), "doctor", "--window", "0.1"])
    out, err = capsys.readouterr()
    lines = out.strip().splitlines()
    assert code == 1 and "Traceback" not in out + err
    assert all(line[:2] in ("✓ ", "✗ ", "– ") for line in lines[:-1]), lines
    assert "✗ No station is plugged in: plug one in by USB (firmware/README.md)." in lines
    assert lines[-1].endswith("marked with a cross.")


def test_the_command_says_json_too(tmp_path, capsys, monkeypatch):
    import json
    from controller.app.cli import main
    monkeypatch.setattr("controller.table.stations.candidate_ports", lambda: [])
    main(["--data-dir", str(tmp_path), "doctor", "--json", "--window", "0.1"])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rows[0]["check"] == "doctor_python" and {r["status"] for r in rows} <= {"ok", "fail", "skip"}
    assert any(r["check"] == "doctor_no_stations" and r["status"] == "fail" for r in rows)


# -- a game waits for the stations' firmware -------------------------------------------------------------
def test_a_game_does_not_start_while_a_station_runs_another_firmware(tmp_path, monkeypatch, stations):
    from controller.app.play import run_table
    from controller.games.core import IllegalAction
    monkeypatch.setenv("SPIELTISCH_DATA", str(tmp_path))
    fine = [stations("fine-1"), stations("fine-2")]
    old = stations("old-2", kind=OldStation)
    with pytest.raises(IllegalAction) as refused:
        run_table("partout", ports=[fine[0].port, old.port, fine[1].port], players=3, names=[], virtual=False, seed=None,
                  new=True, lang="en", fullscreen=False, headless=True, timeout=5)
    assert refused.value.key == "station_firmware_other"
    assert "Update the stations" in refused.value.message("en") and "old-2" in refused.value.message("en")


# -- the box's menu ----------------------------------------------------------------------------------
def test_the_menu_offers_the_check_and_the_update():
    from controller.app.menu import MAIN_ITEMS, OK as CHOOSE, SERVICE_ITEMS, Menu
    for item, kind in (("menu_doctor", "doctor"), ("menu_flash", "flash")):
        menu = Menu(2)
        menu.chosen = MAIN_ITEMS.index("menu_service")          # on the service page
        assert menu.press(CHOOSE) is None and menu.page == "service"
        menu.chosen = SERVICE_ITEMS.index(item)
        assert menu.press(CHOOSE).kind == kind


def test_the_check_on_the_tv_shows_every_finding(tmp_path):
    from controller.app.doctor import run_doctor_on_screen
    findings = run_doctor_on_screen([], lang="it", headless=True, fullscreen=False, timeout=0.2,
                                    env=env_for(tmp_path))
    assert keys(findings, FAIL) == ["doctor_no_stations"]


def test_the_update_on_the_tv_says_each_stations_outcome(tmp_path, monkeypatch):
    from controller.app.flash import run_flash_on_screen
    from hardware.stationflash import FlashError, FlashReport

    class Refusing:
        def __init__(self, port, progress):
            self.port, self.progress = port, progress

        def flash(self):
            self.progress("asking", {"port": self.port})
            if self.port == "/dev/old":
                raise FlashError("flash_old_firmware", station="s2", firmware="1.1.0")
            return FlashReport(self.port, "s1", "1.1.0", "1.2.0", ["main.py"])
    monkeypatch.setattr("controller.app.play.open_present", lambda ports, events, stack: {})
    outcomes = run_flash_on_screen(["/dev/new", "/dev/old"], lang="fr", headless=True, fullscreen=False,
                                   timeout=0.2, flasher=Refusing)
    assert [o.ok for o in outcomes] == [True, False]
    assert outcomes[1].error == ("flash_old_firmware", {"station": "s2", "firmware": "1.1.0"})
