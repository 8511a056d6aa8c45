"""`spieltisch install-pi`: the systemd unit and the udev rules a Raspberry Pi needs to boot
into the table, written where asked (a test's root here), with the user and the command
filled in; a dry run changes nothing."""

from __future__ import annotations

import io

import pytest

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
    # the sudoers line is checked under another name, then put in place: never checked live
    advice = out.getvalue().splitlines()
    check = advice.index("  sudo visudo -cf spieltisch.sudoers")
    assert advice[check + 1] == "  sudo install -m 0440 spieltisch.sudoers /etc/sudoers.d/spieltisch"


@pytest.mark.parametrize("name", ["anna ALL=(ALL) NOPASSWD: ALL #", "root\nbea", "Anna", "-x", ""])
def test_a_name_no_user_can_have_is_refused_before_anything_is_written(tmp_path, name):
    """Without an etc/passwd to look in (``--root`` of a folder), the name still goes into a
    sudoers line: only a name the system could give a user is taken."""
    err = io.StringIO()
    assert install(name or "x y", root=tmp_path, out=io.StringIO(), err=err) == 2
    assert "is not a user name" in err.getvalue() and not list(tmp_path.iterdir())


def test_the_box_prefers_the_stable_station_names(tmp_path, monkeypatch):
    import glob as globmod
    from controller.table import stations
    fake = {"/dev/spieltisch/*": ["/dev/spieltisch/station-E661"], "/dev/serial/by-id/*": ["/dev/serial/by-id/usb-X"],
            "/dev/ttyACM*": ["/dev/ttyACM0", "/dev/ttyACM1"], "/dev/ttyUSB*": []}
    real = {"/dev/spieltisch/station-E661": "/dev/ttyACM0", "/dev/serial/by-id/usb-X": "/dev/ttyACM0"}
    monkeypatch.setattr(globmod, "glob", lambda pattern: fake.get(pattern, []))
    monkeypatch.setattr(stations.os.path, "realpath", lambda p: real.get(p, p))
    assert stations.candidate_ports() == ["/dev/spieltisch/station-E661", "/dev/ttyACM1"]


def test_a_user_the_system_does_not_have_is_refused_before_anything_is_written(tmp_path):
    """Issue 30: `install-pi --user nobodyhere` wrote a unit for nobody and failed at usermod."""
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc" / "passwd").write_text("root:x:0:0:root:/root:/bin/bash\nanna:x:1000:1000::/home/anna:/bin/bash\n")
    out, err = io.StringIO(), io.StringIO()
    assert install("nobodyhere", root=tmp_path, out=out, err=err) == 2
    assert err.getvalue().count("\n") == 1 and "no user 'nobodyhere'" in err.getvalue()
    assert not (tmp_path / UNIT).exists() and out.getvalue() == ""
    assert install("anna", root=tmp_path, out=out, err=err) == 0
    assert "SPIELTISCH_DATA=/home/anna/.local/share/spieltisch" in (tmp_path / UNIT).read_text()


def test_a_folder_without_a_password_file_gets_a_warning_and_the_usual_home(tmp_path):
    err = io.StringIO()
    assert install("bea", root=tmp_path, out=io.StringIO(), err=err) == 0
    assert "warning" in err.getvalue() and "/home/bea" in err.getvalue()
    assert "SPIELTISCH_DATA=/home/bea/.local/share/spieltisch" in (tmp_path / UNIT).read_text()


def test_the_cli_refuses_an_unknown_user_on_this_system_in_one_line():
    import subprocess
    import sys
    proc = subprocess.run([sys.executable, "-m", "controller.app.cli", "install-pi", "--user", "nobodyhere",
                           "--dry-run"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "nobodyhere" in proc.stderr


def test_one_sudoers_line_permits_the_table_to_power_off_and_nothing_else(tmp_path):
    """Issue 30, "Switch off": the table's user may run exactly `systemctl poweroff` as root,
    the command the box runs (POWEROFF), read-only for root as sudo wants it."""
    import stat
    from controller.app.install_pi import POWEROFF, SUDOERS, SYSTEMCTL
    out = io.StringIO()
    assert install("anna", root=tmp_path, out=out, err=io.StringIO()) == 0
    sudoers = tmp_path / SUDOERS
    rules = [line for line in sudoers.read_text().splitlines() if line and not line.startswith("#")]
    assert rules == [f"anna ALL=(root) NOPASSWD: {SYSTEMCTL} poweroff"]
    assert POWEROFF == ("sudo", "-n", SYSTEMCTL, "poweroff")
    assert stat.S_IMODE(sudoers.stat().st_mode) == 0o440 and "." not in sudoers.name
    assert not list(sudoers.parent.glob(".*"))                 # no trial file left behind
    assert f"sudo visudo -cf {sudoers}" in out.getvalue()      # the owner is told to check it on the Pi


def test_the_unit_has_the_audio_group_and_the_host_panel(tmp_path):
    assert install("anna", root=tmp_path, out=io.StringIO(), err=io.StringIO()) == 0
    unit = (tmp_path / UNIT).read_text()
    groups = unit.split("SupplementaryGroups=")[1].splitlines()[0].split()
    assert "audio" in groups and "dialout" in groups
    assert unit.split("ExecStart=")[1].splitlines()[0].endswith(" box --panel")
    from controller.app.install_pi import GROUPS
    assert "audio" in GROUPS


def test_a_sudoers_line_visudo_refuses_is_not_put_in_place(tmp_path, monkeypatch):
    import subprocess
    from controller.app import install_pi
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: subprocess.CompletedProcess(a, 1, "", "syntax error"))
    target = tmp_path / "sudoers.d" / "spieltisch"
    assert "syntax error" in install_pi.write_sudoers(target, "anna ALL=(root) broken\n", check=True)
    assert not target.exists() and not list(target.parent.iterdir())
