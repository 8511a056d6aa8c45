"""`spieltisch install-pi`: the systemd unit and the udev rules a Raspberry Pi needs to boot
into the table, written where asked (a test's root here), with the user and the command
filled in; a dry run changes nothing."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from controller.app.install_pi import RULES, SUDOERS, UNIT, install


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


def a_system(root, *, users="", groups=""):
    """``root`` as a Debian system's accounts: root, the Imager's administrator anna (sudo),
    and whatever ``users`` and ``groups`` add; no gpio group (Debian's is the Pi's only)."""
    (root / "etc").mkdir(parents=True, exist_ok=True)
    (root / "etc" / "passwd").write_text(
        "root:x:0:0:root:/root:/bin/bash\nanna:x:1000:1000::/home/anna:/bin/bash\n" + users)
    (root / "etc" / "group").write_text(
        "root:x:0:\nsudo:x:27:anna\ndialout:x:20:anna\naudio:x:29:\nvideo:x:44:\nrender:x:105:\ninput:x:104:\n"
        "anna:x:1000:\n" + groups)
    return root


def test_a_user_the_system_does_not_have_is_made_a_system_user_of_its_own(tmp_path):
    """Issue 30 wrote a unit for a user that was not there and failed at usermod; issue 42:
    the table's user is one of its own, made by install-pi, its data in its home."""
    root = a_system(tmp_path)
    out, err = io.StringIO(), io.StringIO()
    assert install("kiosk", root=root, out=out, err=err) == 0 and err.getvalue() == ""
    unit = (root / UNIT).read_text()
    assert "User=kiosk" in unit and "SPIELTISCH_DATA=/var/lib/kiosk/.local/share/spieltisch" in unit
    advice = out.getvalue().splitlines()
    make = next(i for i, line in enumerate(advice) if " useradd " in line)
    assert advice[make] == ("  sudo useradd --system --user-group --home-dir /var/lib/kiosk --create-home "
                            "--shell /usr/sbin/nologin --comment 'Spieltisch table' kiosk")
    assert advice[make + 1] == "  sudo usermod -aG dialout,input,video,render,audio kiosk"   # made, then grouped


def test_a_folder_without_a_password_file_gets_a_warning_and_the_commands_that_make_the_user(tmp_path):
    err, out = io.StringIO(), io.StringIO()
    assert install("bea", root=tmp_path, out=out, err=err) == 0
    assert "warning" in err.getvalue() and "make" in err.getvalue()
    assert "SPIELTISCH_DATA=/var/lib/bea/.local/share/spieltisch" in (tmp_path / UNIT).read_text()
    assert "sudo useradd --system" in out.getvalue()


def test_the_table_runs_as_its_own_user_not_as_the_one_who_ran_sudo_nor_root(tmp_path, monkeypatch):
    """Issue 42: from a root login (USER=root) install-pi wrote User=root; after `sudo` it
    took the administrator who ran it (SUDO_USER)."""
    for who in ({"USER": "root"}, {"USER": "root", "SUDO_USER": "anna"}):
        monkeypatch.delenv("SUDO_USER", raising=False)
        for name, value in who.items():
            monkeypatch.setenv(name, value)
        root = a_system(tmp_path / who.get("SUDO_USER", "root"))
        assert install(root=root, out=io.StringIO(), err=io.StringIO()) == 0
        unit = (root / UNIT).read_text()
        assert "User=spieltisch" in unit and "User=root" not in unit and "User=anna" not in unit
        assert "spieltisch ALL=(root) NOPASSWD: /usr/bin/systemctl poweroff" in (root / SUDOERS).read_text()


@pytest.mark.parametrize("user, extra_users, extra_groups, why", [
    ("root", "", "", "does not run as root"),
    ("toor", "toor:x:0:0::/root:/bin/sh\n", "", "is root (uid 0)"),
    ("anna", "", "", "is in the sudo group"),                                      # the Imager's user
    ("ops", "ops:x:1001:1001::/home/ops:/bin/bash\n", "wheel:x:10:ops\n", "is in the wheel group"),
    ("adm2", "adm2:x:1002:27::/home/adm2:/bin/bash\n", "", "is in the sudo group"),   # sudo as its own group
])
def test_root_and_administrators_are_refused_in_one_line_before_anything_is_written(tmp_path, user, extra_users,
                                                                                    extra_groups, why):
    """A sudoers line that permits poweroff limits nothing for a user who may run anything."""
    root = a_system(tmp_path, users=extra_users, groups=extra_groups)
    out, err = io.StringIO(), io.StringIO()
    assert install(user, root=root, out=out, err=err) == 2
    assert err.getvalue().count("\n") == 1 and why in err.getvalue()
    assert out.getvalue() == "" and not (root / UNIT).exists() and not (root / SUDOERS).exists()


def test_a_user_without_power_is_taken_as_it_is(tmp_path):
    root = a_system(tmp_path, users="oma:x:1003:1003::/home/oma:/bin/bash\n", groups="oma:x:1003:\n")
    out = io.StringIO()
    assert install("oma", root=root, out=out, err=io.StringIO()) == 0
    assert "SPIELTISCH_DATA=/home/oma/.local/share/spieltisch" in (root / UNIT).read_text()
    assert "useradd" not in out.getvalue() and "sudo usermod -aG dialout,input,video,render,audio oma" in out.getvalue()


def test_the_unit_names_only_the_groups_the_system_has(tmp_path):
    """systemd refuses to start a unit whose SupplementaryGroups names a group that is not
    there: Debian has no gpio group, a Raspberry Pi OS has."""
    root = a_system(tmp_path)
    assert install(root=root, out=io.StringIO(), err=io.StringIO()) == 0
    groups = (root / UNIT).read_text().split("SupplementaryGroups=")[1].splitlines()[0].split()
    assert sorted(groups) == ["audio", "dialout", "input", "render", "video"]
    pi = a_system(tmp_path / "pi", groups="gpio:x:993:\n")
    assert install(root=pi, out=io.StringIO(), err=io.StringIO()) == 0
    assert "gpio" in (pi / UNIT).read_text().split("SupplementaryGroups=")[1].splitlines()[0].split()


class Recorder:
    """Stands in for running commands on the system: records each, fails the one named."""

    def __init__(self, fail: str | None = None) -> None:
        self.steps: list[list[str]] = []
        self.fail = fail

    def __call__(self, step):
        import subprocess
        self.steps.append(step)
        return subprocess.CompletedProcess(step, 1 if step[0] == self.fail else 0, "", f"{step[0]} said no")


def test_on_the_system_it_checks_the_sudoers_line_makes_the_user_then_groups_it_then_starts_the_unit(
        tmp_path, monkeypatch):
    from controller.app import install_pi
    monkeypatch.setattr(install_pi, "table_command", lambda: "/usr/bin/true")
    root, run, out = a_system(tmp_path), Recorder(), io.StringIO()
    assert install(root=root, live=True, run=run, out=out, err=io.StringIO()) == 0
    assert [step[0] for step in run.steps] == ["visudo", "useradd", "usermod", "udevadm", "udevadm", "systemctl",
                                               "systemctl"]
    assert run.steps[0] == ["visudo", "-cf", str(root / "etc/sudoers.d/.spieltisch.new")]
    assert run.steps[1][-1] == "spieltisch" and "--system" in run.steps[1] and "/usr/sbin/nologin" in run.steps[1]
    assert "-p" not in run.steps[1] and "--password" not in run.steps[1]          # no password: none to type
    assert run.steps[-1] == ["systemctl", "enable", "--now", "spieltisch.service"]
    assert "as spieltisch" in out.getvalue()
    again = Recorder()                  # a second run: the user is there, nothing is made again
    root = a_system(root, users="spieltisch:x:998:998::/var/lib/spieltisch:/usr/sbin/nologin\n")
    assert install(root=root, live=True, run=again, out=io.StringIO(), err=io.StringIO()) == 0
    assert "useradd" not in [step[0] for step in again.steps]


def test_a_command_that_fails_on_the_system_stops_it_in_one_line(tmp_path, monkeypatch):
    from controller.app import install_pi
    monkeypatch.setattr(install_pi, "table_command", lambda: "/usr/bin/true")
    err = io.StringIO()
    run = Recorder(fail="useradd")
    assert install(root=a_system(tmp_path), live=True, run=run, out=io.StringIO(), err=err) == 1
    assert err.getvalue().count("\n") == 1 and "useradd" in err.getvalue() and "useradd said no" in err.getvalue()
    assert [step[0] for step in run.steps] == ["visudo", "useradd"]


def test_a_table_the_kiosk_user_may_not_run_is_refused_before_anything_is_written(tmp_path, monkeypatch):
    """The venv in the administrator's home (0700 on Debian) would leave the unit failing at
    every start: said, and where to install it instead."""
    import tempfile
    from controller.app import install_pi
    folder = tempfile.TemporaryDirectory()           # not under pytest's own folder, which is 0700
    Path(folder.name).chmod(0o755)
    home = Path(folder.name) / "home" / "anna"
    (home / "venv" / "bin").mkdir(parents=True)
    command = home / "venv" / "bin" / "spieltisch"
    command.write_text("#!/bin/sh\n")
    command.chmod(0o755)
    home.chmod(0o700)
    monkeypatch.setattr(install_pi, "table_command", lambda: str(command))
    root, err, run = a_system(tmp_path / "sys"), io.StringIO(), Recorder()
    assert install(root=root, live=True, run=run, out=io.StringIO(), err=err) == 2
    assert err.getvalue().count("\n") == 1 and str(home) in err.getvalue() and "/opt/spieltisch" in err.getvalue()
    assert run.steps == [] and not (root / UNIT).exists()
    home.chmod(0o755)
    assert install(root=root, live=True, run=run, out=io.StringIO(), err=io.StringIO()) == 0
    folder.cleanup()


def test_who_may_pass_a_folder():
    from controller.app.install_pi import Account, Group, unreachable
    import tempfile
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        base.chmod(0o755)                                # made 0700: anyone may pass it here
        (base / "own").mkdir()
        (base / "own" / "run").write_text("")
        (base / "own" / "run").chmod(0o755)
        os.chown(base / "own", 4242, 4243)
        (base / "own").chmod(0o710)                      # its owner and its group may pass
        owner = Account("o", 4242, 1, Path("/"))
        member = Account("m", 4300, 1, Path("/"))
        stranger = Account("s", 4301, 1, Path("/"))
        groups = {"own": Group(4243, frozenset({"m"}))}
        assert unreachable(base / "own" / "run", owner, groups) is None
        assert unreachable(base / "own" / "run", member, groups) is None
        assert unreachable(base / "own" / "run", stranger, groups) == base / "own"
        assert unreachable(base / "own" / "run", None, groups) == base / "own"     # a user still to be made
        assert unreachable(base / "nothing", owner, groups) == base / "nothing"


def test_the_unit_takes_tty1_as_a_display_manager_does():
    """Issue 41: ordered after udev-settle (deprecated, normally not started), and a conflict
    with tty1's getty without an order, which lets systemd drop either start job."""
    from controller.app.install_pi import unit_text
    unit = unit_text("spieltisch", "/opt/spieltisch/bin/spieltisch", "/var/lib/spieltisch/.local/share/spieltisch")
    settings: dict[str, list[str]] = {}
    for line in unit.splitlines():
        if "=" in line and not line.startswith("#"):
            key, value = line.split("=", 1)
            settings.setdefault(key, []).extend(value.split())
    assert "systemd-udev-settle.service" not in unit
    assert settings["Conflicts"] == ["getty@tty1.service"]
    assert {"getty@tty1.service", "systemd-user-sessions.service"} <= set(settings["After"])
    assert settings["TTYPath"] == ["/dev/tty1"] and settings["StandardInput"] == ["tty"]
    assert settings["TTYReset"] == settings["TTYVHangup"] == settings["TTYVTDisallocate"] == ["yes"]
    assert settings["StartLimitIntervalSec"] == ["0"]


def test_the_cli_refuses_root_in_one_line():
    import subprocess
    import sys
    proc = subprocess.run([sys.executable, "-m", "controller.app.cli", "install-pi", "--user", "root",
                           "--dry-run"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "root" in proc.stderr


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


@pytest.mark.skipif(__import__("shutil").which("visudo") is None, reason="this machine has no visudo (Debian: sudo)")
def test_sudo_itself_reads_the_sudoers_line(tmp_path):
    """Not only our reading of it: visudo, as install-pi runs it on the Pi, takes the file."""
    import subprocess
    assert install(root=a_system(tmp_path), out=io.StringIO(), err=io.StringIO()) == 0
    done = subprocess.run(["visudo", "-cf", str(tmp_path / SUDOERS)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    broken = tmp_path / "broken"
    broken.write_text("spieltisch ALL=(root) NOPASSWD /usr/bin/systemctl poweroff\n")    # the colon left out
    assert subprocess.run(["visudo", "-cf", str(broken)], capture_output=True, timeout=60).returncode != 0


def an_older_install(root, *, data_line=True):
    """``root`` as a Pi set up by the guide before issue 42: the table ran as the Imager's
    user anna, its saved games and card key in anna's home, readable by others (0644)."""
    a_system(root)
    data = root / "home/anna/.local/share/spieltisch"
    (data / "demos").mkdir(parents=True)
    (data / "spieltisch.db").write_bytes(b"SQLite format 3\0 the family's games")
    (data / "card-keys.json").write_text('{"key": "old"}')
    (data / "demos" / "game-1.jsonl").write_text("{}\n")
    for path in [data, *data.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    environment = "Environment=SPIELTISCH_DATA=/home/anna/.local/share/spieltisch\n" if data_line else ""
    (root / UNIT).parent.mkdir(parents=True)
    (root / UNIT).write_text(f"[Service]\nUser=anna\nEnvironment=SDL_VIDEODRIVER=kmsdrm\n{environment}"
                             "ExecStart=/home/anna/spieltisch-venv/bin/spieltisch box --panel\n")
    return root, data


@pytest.mark.parametrize("data_line", [True, False])
def test_an_older_install_s_data_moves_to_the_table_s_user_with_its_history_and_card_key(tmp_path, monkeypatch,
                                                                                         data_line):
    """Review of issue 42: install-pi on a Pi set up before left the family's data in anna's
    home: the box started with an empty history and a new card key that refused the taught
    decks. The old unit's user and data folder (or, without SPIELTISCH_DATA, that user's
    default) are read, the table stopped, the folder moved to spieltisch's, made its alone,
    said in one line, and only then the unit started."""
    from controller.app import install_pi
    monkeypatch.setattr(install_pi, "table_command", lambda: "/usr/bin/true")
    root, old = an_older_install(tmp_path, data_line=data_line)
    run, out, err = Recorder(), io.StringIO(), io.StringIO()
    assert install(root=root, live=True, run=run, out=out, err=err) == 0, err.getvalue()
    new = root / "var/lib/spieltisch/.local/share/spieltisch"
    assert not old.exists()
    assert (new / "spieltisch.db").read_bytes() == b"SQLite format 3\0 the family's games"
    assert (new / "card-keys.json").read_text() == '{"key": "old"}' and (new / "demos" / "game-1.jsonl").exists()
    assert {oct(p.stat().st_mode & 0o777) for p in [new, new / "demos"]} == {"0o700"}
    assert {oct(p.stat().st_mode & 0o777) for p in new.rglob("*") if p.is_file()} == {"0o600"}
    names = [" ".join(step[:2]) for step in run.steps]
    assert names == ["visudo -cf", "systemctl stop", "useradd --system", "usermod -aG", "chown -R",
                     "udevadm control", "udevadm trigger", "systemctl daemon-reload", "systemctl enable"]
    assert run.steps[4] == ["chown", "-R", "spieltisch:", str(root / "var/lib/spieltisch/.local")]
    said = [line for line in out.getvalue().splitlines() if "family's data" in line]
    assert len(said) == 1 and "/home/anna/.local/share/spieltisch (anna's)" in said[0]
    assert "/var/lib/spieltisch/.local/share/spieltisch (spieltisch's" in said[0] and "card key" in said[0]
    assert "User=spieltisch" in (root / UNIT).read_text()
    again = Recorder()                  # a second run: nothing left to move, the table not stopped
    root = a_system(root, users="spieltisch:x:998:998::/var/lib/spieltisch:/usr/sbin/nologin\n")
    assert install(root=root, live=True, run=again, out=io.StringIO(), err=io.StringIO()) == 0
    assert ["systemctl", "stop", "spieltisch.service"] not in again.steps and "chown" not in [s[0] for s in again.steps]


def test_an_older_install_s_data_is_not_mixed_with_data_already_there(tmp_path, monkeypatch):
    from controller.app import install_pi
    monkeypatch.setattr(install_pi, "table_command", lambda: "/usr/bin/true")
    root, old = an_older_install(tmp_path)
    there = root / "var/lib/spieltisch/.local/share/spieltisch"
    there.mkdir(parents=True)
    (there / "spieltisch.db").write_text("another history")
    unit = (root / UNIT).read_text()
    run, out, err = Recorder(), io.StringIO(), io.StringIO()
    assert install(root=root, live=True, run=run, out=out, err=err) == 2
    assert err.getvalue().count("\n") == 1 and str(there.relative_to(root)) in err.getvalue()
    assert "already holds" in err.getvalue() and "/home/anna/.local/share/spieltisch" in err.getvalue()
    assert run.steps == [] and out.getvalue() == "" and (root / UNIT).read_text() == unit
    assert (old / "spieltisch.db").exists() and (there / "spieltisch.db").read_text() == "another history"


def test_an_sd_card_s_older_data_is_moved_by_the_commands_shown(tmp_path):
    """--root of a folder: the files are written, the move is shown for the Pi, in order:
    the table stopped, the user made, the data moved and made its own, the unit started."""
    root, old = an_older_install(tmp_path)
    out = io.StringIO()
    assert install(root=root, out=out, err=io.StringIO()) == 0
    assert (old / "spieltisch.db").exists()                   # nothing of the family's moved here
    advice = [line.removeprefix("  sudo ") for line in out.getvalue().splitlines()]
    new = "/var/lib/spieltisch/.local/share/spieltisch"
    order = ["systemctl stop spieltisch.service", "usermod -aG dialout,input,video,render,audio spieltisch",
             f"mv /home/anna/.local/share/spieltisch {new}", "chown -R spieltisch: /var/lib/spieltisch/.local",
             f"find {new} -type d -exec chmod 0700 '{{}}' +", f"find {new} -type f -exec chmod 0600 '{{}}' +",
             "systemctl enable --now spieltisch.service"]
    places = [advice.index(step) for step in order]
    assert places == sorted(places)
    assert sum("card key" in line for line in advice) == 1


def test_data_that_cannot_be_moved_is_said_in_one_line_and_the_table_is_not_started(tmp_path, monkeypatch):
    from controller.app import install_pi
    monkeypatch.setattr(install_pi, "table_command", lambda: "/usr/bin/true")
    root, old = an_older_install(tmp_path)
    (root / "var/lib").mkdir(parents=True)
    (root / "var/lib/spieltisch").write_text("a file where the home should be")
    run, err = Recorder(), io.StringIO()
    assert install(root=root, live=True, run=run, out=io.StringIO(), err=err) == 1
    assert err.getvalue().count("\n") == 1 and "could not be moved" in err.getvalue()
    assert (old / "spieltisch.db").exists() and ["systemctl", "enable", "--now", "spieltisch.service"] not in run.steps
