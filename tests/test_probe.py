"""The bring-up probe (issue 41): ``spieltisch stations --probe`` on a simulated station (the
firmware under MicroPython over the simulated chip) measures the model's own figures and
writes a timing file the simulated chip loads in place of the shipped one; the
conversion from the probe's figures to that file; and a probe that cannot run says why."""

from __future__ import annotations

import datetime
import json

import pytest

from controller.app.cli import main
from controller.app.probe import SIM_UID
from hardware.sim.pn532_chip import Pn532, load_timing
from hardware.probe_timing import parse_figures, timing_from_probe
from hardware.stationflash import table_firmware_version


def test_the_probe_of_a_simulated_station_writes_a_timing_file_the_simulated_chip_loads(tmp_path, monkeypatch,
                                                                                       capsys):
    out = tmp_path / "probe.json"
    assert main(["stations", "--probe", "--stations", "firmware", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    shipped = load_timing()
    timing = json.loads(out.read_text())
    probe = timing["probe"]
    assert probe["firmware"] == table_firmware_version() and probe["chip"] == "1.6" and probe["simulated"]
    # the chip cannot answer sooner than its own figure; the probe's polls and the host add to it
    assert timing["ack_us"] >= shipped["ack_us"] and timing["nack_resend_us"] >= shipped["nack_resend_us"]
    assert timing["ack_us_source"].startswith("measured:") and probe["station"] in timing["ack_us_source"]
    assert timing["ack_us_spread"]["ack_us"]["n"] == 5
    assert timing["ntag_write_us_source"].startswith("measured:")
    assert set(timing["ntag_write_us_spread"]) == {"write_us", "read_us"}
    # what a cut transfer leaves, as the model has it: ETIMEDOUT, SDA held until clocked, an ACK brings it back
    cut = probe["cut"]
    assert (cut["errno"], cut["sda_low"], cut["rebuilt_errno"], cut["takes_command"], cut["ack_recovers"]) == \
        (110, 1, 110, 0, 1)
    assert 1 <= cut["clocks_to_free"] <= 9
    assert probe["fast_read_longest_pages"] == 36 and probe["nak_status"] == 0x14
    assert "ack_us" in printed and f"Written to {out}" in printed
    # every figure the shipped file has is there (the shape the simulated chip reads) …
    assert set(shipped) <= set(timing)
    # … and the simulated chip takes the file in place of the shipped one, no code changed
    monkeypatch.setenv("SPIELTISCH_PN532_TIMING", str(out))
    chip = Pn532(load_timing())
    assert chip.timing["ack_us"] == timing["ack_us"] and chip.held_sda_errno == 110


FIGURES = [("ack_us", ("5", "700", "650", "900")), ("nack_resend_us", ("5", "520", "500", "560")),
           ("answer_GetFirmwareVersion_us", ("5", "2000", "1900", "2100")),
           ("polls_answer_GetFirmwareVersion", ("5", "2", "1", "3")),
           ("answer_SAMConfiguration_us", ("5", "1500", "1400", "1600")),
           ("polls_answer_SAMConfiguration", ("5", "0", "0", "0")),
           ("list_no_card_us", ("5", "1900", "1850", "1950")), ("polls_list_no_card", ("5", "1", "1", "2")),
           ("read_us", ("5", "3300", "3200", "3400")), ("write_us", ("5", "6000", "5900", "6100")),
           ("cut_rebuilt_errno", ("1", "5", "5", "5")), ("fast_read_longest_pages", ("1", "15", "15", "15")),
           ("later_firmware_figure", ("x",)), ("end", ("card", "1.6"))]


def test_the_probes_figures_become_the_models_parts():
    """Each model figure from the probe's medians: the ACK as measured, a command's
    processing as its answer less the ACK (kept, with the bound said, when the answer was
    ready before the ACK could be read), the RF overhead from READ, an NTAG write from
    WRITE less READ; what a held SDA makes a START fail with; frames it does not know
    left out."""
    figures = parse_figures(FIGURES)
    assert "later_firmware_figure" not in figures and "end" not in figures
    shipped = load_timing()
    timing = timing_from_probe(figures, shipped, station="e661", firmware="1.6.0", chip="1.6",
                               when=datetime.date(2026, 11, 27))
    assert timing["ack_us"] == 700 and timing["nack_resend_us"] == 520
    assert timing["process_us"]["GetFirmwareVersion"] == 1300
    assert timing["process_us"]["SAMConfiguration"] == shipped["process_us"]["SAMConfiguration"]
    assert "SAMConfiguration at most 800" in timing["process_us_source"]
    assert timing["no_card_try_us"] == 1200
    assert timing["rf_command_overhead_us"] == 3300 - 700 - 22 * shipped["rf_byte_us"] - shipped["rf_turnaround_us"]
    assert timing["ntag_write_us"] == 6000 - 3300 + 13 * shipped["rf_byte_us"]
    assert timing["reset_us"] == shipped["reset_us"] and timing["reset_us_source"] == shipped["reset_us_source"]
    assert "2026-11-27" in timing["ack_us_source"] and "firmware 1.6.0" in timing["ack_us_source"]
    assert timing["probe"]["fast_read_longest_pages"] == 15
    assert Pn532(timing).held_sda_errno == 5 and timing["held_sda_errno"] == 5


def test_a_new_probe_is_compared_with_the_shipped_model_not_with_a_measured_file_in_use(tmp_path, monkeypatch):
    """With a real chip's file loaded for the simulated chip (SPIELTISCH_PN532_TIMING), a new
    probe's figures still stand beside the shipped model's, and what it could not measure
    still comes from the shipped model, not from the other chip's file."""
    from controller.app.probe import measured_timing
    shipped = load_timing()
    other = dict(shipped, ack_us=shipped["ack_us"] + 777, reset_us=shipped["reset_us"] + 999)
    (tmp_path / "other.json").write_text(json.dumps(other))
    monkeypatch.setenv("SPIELTISCH_PN532_TIMING", str(tmp_path / "other.json"))
    assert load_timing()["ack_us"] == other["ack_us"]            # the simulated chip takes the file

    class Link:
        station_id, firmware = "e661", "1.6.0"
    _, timing = measured_timing(FIGURES, Link(), "1.6")
    assert timing["ack_us"] == 700 and timing["reset_us"] == shipped["reset_us"]


def test_a_probe_without_a_station_or_a_file_says_what_it_needs(tmp_path, capsys):
    assert main(["stations", "--probe", "--port", "/dev/ttyACM0"]) == 2
    assert "--out FILE" in capsys.readouterr().err
    assert main(["stations", "--probe", "--out", str(tmp_path / "x.json")]) == 2
    assert "--port DEV" in capsys.readouterr().err
    assert main(["stations", "--probe", "--port", str(tmp_path / "no-such-port"), "--out",
                 str(tmp_path / "x.json")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("spieltisch: the probe stopped:") and "Traceback" not in err
    assert not (tmp_path / "x.json").exists()


def test_the_probe_of_an_emulated_rp2040_station_says_what_the_bridge_does_not_model(tmp_path, monkeypatch, capsys):
    """``--stations rp2040``: the firmware on MicroPython's rp2 port (rp2040js) probes the chip
    model through pico-sdk's I2C driver. The model's figures are printed beside what it
    measured; a cut transfer and clock stretching, which the emulator's PN532 bridge does not
    model (docs/rp2040.md), are said to be not measured and left out of the file; the file
    the simulated chip loads, and a station runs with it."""
    from hardware.sim.firmware_station import FirmwareUnavailable, firmware_stations
    from hardware.sim.rp2040_station import emulator_module, silicon
    try:
        silicon()
        emulator_module()
    except FirmwareUnavailable as exc:
        pytest.skip(str(exc))
    out = tmp_path / "rp2040.json"
    assert main(["stations", "--probe", "--stations", "rp2040", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    shipped = load_timing()
    timing = json.loads(out.read_text())
    probe = timing["probe"]
    assert probe["simulated"] == "rp2040" and probe["chip"] == "1.6"
    assert probe["firmware"] == table_firmware_version()
    # the model's figure and the measured one side by side: the chip answers no sooner than its figure
    ack_row = next(line for line in printed.splitlines() if line.startswith("ack_us"))
    assert ack_row.split()[1:3] == [str(shipped["ack_us"]), str(timing["ack_us"])]
    assert timing["ack_us"] >= shipped["ack_us"] and timing["ntag_write_us_source"].startswith("measured:")
    assert probe["fast_read_longest_pages"] == 36 and probe["nak_status"] == 0x14
    # not modelled on this bridge: said so, no figure invented, the shipped one kept
    assert set(probe["not_modelled"]) == {"cut", "stretch_us"}
    assert probe["cut"] == {} and probe["stretch_us"] is None
    assert not any(name.startswith("cut_") or name == "stretch_us" for name in probe["raw"])
    assert timing.get("held_sda_errno") == shipped.get("held_sda_errno")
    assert "a transfer cut off on purpose: not measured (not modelled" in printed
    assert "clock stretching (median, a transfer against its bytes): not measured (not modelled" in printed
    # the simulated chip loads the file, and a simulated station runs with its figures: it reads
    # a card, and its own probe finds the chip no quicker than the file's ACK (slower than the shipped one's)
    monkeypatch.setenv("SPIELTISCH_PN532_TIMING", str(out))
    assert Pn532(load_timing()).timing["ack_us"] == timing["ack_us"]
    again = tmp_path / "again.json"
    assert main(["stations", "--probe", "--stations", "firmware", "--out", str(again)]) == 0
    assert json.loads(again.read_text())["ack_us"] >= timing["ack_us"] > shipped["ack_us"]
    import queue
    from hardware.events import TagEvent
    from hardware.link import StationLink
    from conftest import next_event
    station = firmware_stations(["with-probed-timing"])[0]
    events: queue.Queue = queue.Queue()
    link = StationLink(station.port, events, reconnect=False).open(hello_timeout=30.0)
    try:
        station.tap("04A1B2C3D4E5F6", "partout:red5")
        tag = next_event(events, TagEvent, 60)
        assert (tag.uid, tag.text) == ("04A1B2C3D4E5F6", "partout:red5")
    finally:
        link.close()
        station.close()


# -- the probe in the box's "Test this station" -------------------------------------------------------

class Link:
    """What the probe session asks of the table's link to a station: who it is, and PROBE."""

    def __init__(self, firmware="1.6.0", reader="pn532", answers=True):
        self.station_id, self.firmware, self.port = "e661", firmware, "/dev/ttyACM0"
        self.capabilities = {"buttons": "6", "reader": reader}
        self.asked: list[str] = []
        self.answers = answers

    def probe(self, phase):
        self.asked.append(phase)
        return self.answers


def probed(name, *fields):
    from hardware.events import StationProbed
    return StationProbed("e661", name, tuple(fields), 0)


@pytest.mark.parametrize("link, said", [
    (Link(reader="none"), ("probe_refused_no_reader", {})),
    (Link(firmware="1.5.1"), ("probe_refused_old_firmware", {"firmware": "1.5.1"})),
    (Link(firmware="sim-1.0"), ("probe_refused_old_firmware", {"firmware": "sim-1.0"})),
    (Link(answers=False), ("probe_refused_no_answer", {})),
])
def test_a_probe_the_station_cannot_run_is_one_message_and_changes_nothing(tmp_path, link, said):
    from controller.app.probe_session import ProbeSession
    from controller.games import texts
    session = ProbeSession(link, tmp_path)
    session.press(0)
    snap = session.snapshot()
    assert (snap.stage, snap.said) == ("offer", said)
    assert link.asked == ([] if link.answers else ["chip"]) and not any(tmp_path.iterdir())
    for lang in ("de", "en", "fr", "it"):
        assert texts.render(lang, *said).strip()
    session.press(5)
    assert session.finished


def test_a_probe_the_station_refuses_or_never_ends_is_said_and_tried_again(tmp_path):
    """A card on the reader (PROBED fail), no sticker laid within the phase's time, a station
    that stops answering: each one message, back to the offer, nothing written; 1 again starts over."""
    from controller.app.probe_session import ProbeSession
    now = [0.0]
    link = Link()
    session = ProbeSession(link, tmp_path, clock=lambda: now[0], timeout_s=60.0)
    session.press(0)
    session.event(probed("fail", "card-on-reader"))
    assert session.snapshot().said == ("probe_fail_card_on_reader", {"why": "card-on-reader"})
    session.press(0)
    assert session.stage == "chip" and session.snapshot().said is None
    session.event(probed("ack_us", "5", "700", "650", "900"))
    session.event(probed("end", "chip", "1.6"))
    assert session.stage == "lay"
    now[0] = 61.0
    session.tick()
    assert (session.stage, session.said) == ("offer", ("probe_fail_no_card", {}))
    session.press(0)
    now[0] = 200.0
    session.tick()
    assert (session.stage, session.said) == ("offer", ("probe_refused_no_answer", {}))
    assert link.asked == ["chip", "chip", "chip"] and not any(tmp_path.iterdir())
    session.event(probed("end", "card", "1.6"))              # late: the probe is not under way
    assert session.stage == "offer" and not any(tmp_path.iterdir())


def test_the_box_probes_the_station_it_tests_with_one_card_and_saves_the_file(tmp_path):
    """The self-test as the box runs it, on a simulated station (the firmware under MicroPython
    over the simulated chip): every check passed, 1 with a card still on the reader is refused,
    the card off and 1 measures the chip, one blank sticker laid when asked measures the card;
    the figures beside the model's, the file in the data folder's probes/ (which the simulated
    chip loads), 6 ends it."""
    import threading
    from controller.app.probe_session import probe_file
    from controller.app.selftest import run_selftest
    from hardware.sim.firmware_station import firmware_stations
    shown = []
    changed = threading.Condition()

    def watch(snap):
        with changed:
            shown.append(snap)
            changed.notify_all()

    def until(test):
        with changed:
            assert changed.wait_for(lambda: shown and test(shown[-1]), timeout=120), shown[-1:]

    station = firmware_stations(["box"])[0]
    result = {}
    try:
        def owner():
            until(lambda s: True)
            for button in range(6):
                station.press(button)
            station.place("04C0FFEE000001", "partout:red5")
            until(lambda s: s.probe is not None and s.probe.stage == "offer")
            station.press(0)                                       # the card is still on the reader
            until(lambda s: s.probe.said is not None)
            station.take_away()
            station.press(0)
            until(lambda s: s.probe.stage == "lay")
            station.place(SIM_UID)
            until(lambda s: s.probe.stage == "done")
            station.press(5)
        person = threading.Thread(target=owner, daemon=True)
        person.start()
        result = run_selftest(station.port, headless=True, data_dir=tmp_path, timeout=240, offer_probe=True,
                              watch=watch)
        person.join(5)
    finally:
        station.close()
    assert result["passed"] and result["probe"] == "done" and not result["lost"]
    refusals = [s.probe.said for s in shown if s.probe is not None and s.probe.stage == "offer" and s.probe.said]
    assert refusals[0] == ("probe_fail_card_on_reader", {"why": "card-on-reader"})
    assert any(s.probe.stage == "chip" for s in shown if s.probe) and any(s.probe.stage == "card" for s in shown
                                                                          if s.probe)
    last = shown[-1].probe
    path = probe_file(tmp_path, station.station_id)
    timing = json.loads(path.read_text())
    assert last.said == ("probe_done", {"n": len(timing["probe"]["raw"]), "path": str(path)})
    rows = {label: (model, measured) for label, model, measured in last.rows}
    assert rows["probe_row_ack"] == (load_timing()["ack_us"], timing["ack_us"])
    assert "probe_row_write" in rows and timing["probe"]["chip"] == "1.6"
    assert Pn532(load_timing(str(path))).timing["ack_us"] == timing["ack_us"]


def test_a_probe_whose_file_cannot_be_written_or_whose_model_is_broken_is_said_not_raised(tmp_path, monkeypatch):
    from controller.app.probe_session import ProbeSession
    (tmp_path / "probes").write_text("a file where the folder should be")
    session = ProbeSession(Link(), tmp_path)
    for phase in ("chip", "card"):
        if phase == "card":
            from hardware.events import TagEvent
            session.event(TagEvent("e661", 1, SIM_UID, None, 0, 0))
        else:
            session.press(0)
        session.event(probed("ack_us", "5", "700", "650", "900"))
        session.event(probed("end", phase, "1.6"))
    assert session.stage == "offer" and session.said[0] == "probe_not_saved"
    assert session.said[1]["path"] == str(tmp_path / "probes" / "probe-e661.json")
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    monkeypatch.setattr("hardware.probe_timing.SHIPPED", broken)     # the installed model damaged
    (tmp_path / "probes").unlink()
    session.press(0)
    session.event(probed("end", "chip", "1.6"))
    session.event(TagEvent("e661", 2, SIM_UID, None, 0, 0))
    session.event(probed("end", "card", "1.6"))
    assert session.stage == "offer" and session.said[0] == "probe_fail_other"
    assert not (tmp_path / "probes" / "probe-e661.json").exists()
