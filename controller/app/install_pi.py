"""``spieltisch install-pi``: make a Raspberry Pi (Raspberry Pi OS Lite) boot into the table.

It writes the systemd unit (the menu on the TV at power-on, full screen through KMS/DRM on
the console, restarted if it stops) and the udev rules (stable station names, the FTDI
latency timer), adds the user to the groups the table needs, and enables the unit. Run as
root (``sudo``) it does all that; otherwise, or with ``--dry-run``, it shows the files and
the commands without changing anything. ``--root DIR`` writes under DIR instead of /
(for tests, or for preparing an SD card's root file system). See docs/raspberry-pi.md."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

GROUPS = ("dialout", "input", "gpio", "video", "render")
UNIT = "etc/systemd/system/spieltisch.service"
RULES = "etc/udev/rules.d/99-spieltisch.rules"


def _template(name: str) -> str:
    return resources.files("controller.app").joinpath("pi").joinpath(name).read_text(encoding="utf-8")


def unit_text(user: str, command: str, data_dir: str) -> str:
    return _template("spieltisch.service").format(user=user, command=command, data=data_dir)


def commands(user: str) -> list[list[str]]:
    try:                                              # only the groups this system has (gpio: a Pi's)
        import grp
        groups = [g for g in GROUPS if _has_group(grp, g)] or list(GROUPS)
    except ImportError:
        groups = list(GROUPS)
    return [["usermod", "-aG", ",".join(groups), user],
            ["udevadm", "control", "--reload"], ["udevadm", "trigger"],
            ["systemctl", "daemon-reload"], ["systemctl", "enable", "--now", "spieltisch.service"]]


def _has_group(grp, name: str) -> bool:
    try:
        grp.getgrnam(name)
    except KeyError:
        return False
    return True


def install(user: str | None = None, *, root: str | os.PathLike[str] = "/", dry_run: bool = False,
            out=sys.stdout) -> int:
    user = user or os.environ.get("SUDO_USER") or os.environ.get("USER") or "pi"
    beside = Path(sys.executable).parent / "spieltisch"             # the virtual environment's own
    command = str(beside) if beside.exists() else shutil.which("spieltisch") or f"{sys.executable} -m controller.app.cli"
    try:
        import pwd
        home = Path(pwd.getpwnam(user).pw_dir)
    except (KeyError, ImportError):
        home = Path("/home") / user                 # a user still to be made on the Pi
    data_dir = str(home / ".local" / "share" / "spieltisch")
    files = {UNIT: unit_text(user, command, data_dir), RULES: _template("99-spieltisch.rules")}
    root = Path(root)
    acting = not dry_run and (str(root) != "/" or os.geteuid() == 0)
    for path, text in files.items():
        target = root / path
        if acting:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            print(f"wrote {target}", file=out)
        else:
            print(f"--- {target} ---\n{text}", file=out)
    steps = commands(user)
    if acting and str(root) == "/":
        for step in steps:
            print("+ " + shlex.join(step), file=out)
            done = subprocess.run(step, capture_output=True, text=True)
            if done.returncode != 0:
                print(f"spieltisch: {shlex.join(step)} failed: {done.stderr.strip()}", file=sys.stderr)
                return 1
        print("Done: the table starts on the TV at the next boot (and now). "
              "`journalctl -u spieltisch` shows what it says.", file=out)
        return 0
    print("Then, as root:" if not acting else "Then, as root on the Pi:", file=out)
    for step in ([["cp", str(root / UNIT), "/" + UNIT], ["cp", str(root / RULES), "/" + RULES]]
                 if acting else []) + steps:
        print("  sudo " + shlex.join(step), file=out)
    return 0
