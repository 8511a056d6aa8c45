"""`spieltisch install-pi`: the systemd unit and the udev rules a Raspberry Pi needs to boot
into the table, written where asked (a test's root here), with the user and the command
filled in; a dry run changes nothing."""

from __future__ import annotations

import io

from controller.app.install_pi import RULES, UNIT, install


def test_the_files_are_written_with_the_user_and_the_command(tmp_path):
    out = io.StringIO()
    assert install("anna", root=tmp_path, out=out) == 0
    unit = (tmp_path / UNIT).read_text()
    assert "User=anna" in unit and "SDL_VIDEODRIVER=kmsdrm" in unit and "Restart=always" in unit
    assert " box" in unit.split("ExecStart=")[1].splitlines()[0]
    assert "{" not in unit                                      # every blank filled in
    from controller.table.realtime import REALTIME_PRIORITY    # a real-time game's threads may be real-time
    assert f"LimitRTPRIO={REALTIME_PRIORITY}" in unit
    rules = (tmp_path / RULES).read_text()
    assert 'ENV{ID_VENDOR_ID}=="2e8a"' in rules and "spieltisch/station-" in rules and "latency_timer" in rules
    words = out.getvalue()
    assert "sudo systemctl enable --now spieltisch.service" in words and "usermod -aG" in words


def test_a_dry_run_shows_everything_and_writes_nothing(tmp_path):
    out = io.StringIO()
    assert install("anna", root=tmp_path, dry_run=True, out=out) == 0
    assert not (tmp_path / "etc").exists()
    assert "User=anna" in out.getvalue() and "99-spieltisch.rules" in out.getvalue()


def test_the_box_prefers_the_stable_station_names(tmp_path, monkeypatch):
    import glob as globmod
    from controller.table import stations
    fake = {"/dev/spieltisch/*": ["/dev/spieltisch/station-E661"], "/dev/serial/by-id/*": ["/dev/serial/by-id/usb-X"],
            "/dev/ttyACM*": ["/dev/ttyACM0", "/dev/ttyACM1"], "/dev/ttyUSB*": []}
    real = {"/dev/spieltisch/station-E661": "/dev/ttyACM0", "/dev/serial/by-id/usb-X": "/dev/ttyACM0"}
    monkeypatch.setattr(globmod, "glob", lambda pattern: fake.get(pattern, []))
    monkeypatch.setattr(stations.os.path, "realpath", lambda p: real.get(p, p))
    assert stations.candidate_ports() == ["/dev/spieltisch/station-E661", "/dev/ttyACM1"]
