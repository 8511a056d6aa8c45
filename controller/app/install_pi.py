"""``spieltisch install-pi``: make a Raspberry Pi (Raspberry Pi OS Lite) boot into the table.

It writes the systemd unit (the menu on the TV at power-on, full screen through KMS/DRM on
the console, restarted if it stops, the host panel's buttons driving it too), the udev rules
(stable station names, the FTDI latency timer) and one sudoers line that lets the table's
user power the Pi off and do nothing else as root (the menu's "Switch off"), adds the user
to the groups the table needs, and enables the unit. Run as
root (``sudo``) it does all that; otherwise, or with ``--dry-run``, it shows the files and
the commands without changing anything. ``--root DIR`` writes under DIR instead of /
(for tests, or for preparing an SD card's root file system). See docs/raspberry-pi.md."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

GROUPS = ("dialout", "input", "gpio", "video", "render", "audio")
UNIT = "etc/systemd/system/spieltisch.service"
RULES = "etc/udev/rules.d/99-spieltisch.rules"
# "Switch off": one sudoers line, not a polkit rule. It names one command with its one
# argument, so the table's user may power off and nothing else; it works on every Raspberry
# Pi OS (polkit's rules changed form between releases, .pkla files up to Bullseye, JavaScript
# from Bookworm, and Lite need not have polkitd); and visudo checks it before it is put in
# place, so a broken line can never lock sudo. (sudoers.d ignores names with a dot.)
SUDOERS = "etc/sudoers.d/spieltisch"
SYSTEMCTL = "/usr/bin/systemctl"
POWEROFF = ("sudo", "-n", SYSTEMCTL, "poweroff")      # -n: never waits for a password, fails at once


def _template(name: str) -> str:
    return resources.files("controller.app").joinpath("pi").joinpath(name).read_text(encoding="utf-8")


def unit_text(user: str, command: str, data_dir: str) -> str:
    return _template("spieltisch.service").format(user=user, command=command, data=data_dir)


def sudoers_text(user: str) -> str:
    return (f"# Spieltisch: the table's user may switch the box off (the menu's \"Switch off\"), nothing else.\n"
            f"# Installed by `spieltisch install-pi`.\n"
            f"{user} ALL=(root) NOPASSWD: {SYSTEMCTL} poweroff\n")


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


def home_of(user: str, root: Path) -> tuple[Path | None, Path | None]:
    """``user``'s home in the system under ``root`` and the password file that said so;
    (None, that file) when it has no such user; (None, None) when ``root`` has no password
    file to ask (a folder being prepared, not a system)."""
    passwd = root / "etc" / "passwd"
    if str(root) == "/":
        try:
            import pwd
            return Path(pwd.getpwnam(user).pw_dir), passwd
        except KeyError:
            return None, passwd
        except ImportError:                          # not a Unix: nothing to ask
            return None, None
    try:
        lines = passwd.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None, None
    for line in lines:
        fields = line.split(":")
        if len(fields) >= 6 and fields[0] == user:
            return Path(fields[5]), passwd
    return None, passwd


def write_sudoers(target: Path, text: str, *, check: bool) -> str | None:
    """Put the sudoers line in place, readable by root only (0440, as sudo wants it). On the
    system itself (``check``) visudo reads it first and a line it refuses is not put in
    place: a broken file in sudoers.d would stop sudo altogether. None, or what went wrong."""
    target.parent.mkdir(parents=True, exist_ok=True)
    trial = target.with_name(f".{target.name}.new")     # sudo skips names with a dot
    trial.write_text(text, encoding="utf-8")
    trial.chmod(0o440)
    if check:
        try:
            done = subprocess.run(["visudo", "-cf", str(trial)], capture_output=True, text=True)
        except OSError as exc:
            trial.unlink()
            return f"visudo cannot check it ({exc})"
        if done.returncode != 0:
            trial.unlink()
            return f"visudo refuses it: {(done.stdout + done.stderr).strip()}"
    trial.replace(target)
    return None


USER_NAME = re.compile(r"[a-z_][a-z0-9_-]{0,31}")     # Debian's NAME_REGEX, and useradd's length


def install(user: str | None = None, *, root: str | os.PathLike[str] = "/", dry_run: bool = False,
            out=sys.stdout, err=None) -> int:
    err = err or sys.stderr
    user = user or os.environ.get("SUDO_USER") or os.environ.get("USER") or "pi"
    if not USER_NAME.fullmatch(user):
        # it goes into a sudoers line and a unit file: only a name the system could have
        print(f"spieltisch: {user!r} is not a user name (letters, digits, - and _, starting with a "
              "letter or _); name who runs the table with --user", file=err)
        return 2
    root = Path(root)
    home, asked = home_of(user, root)
    if home is None and asked is not None:
        # the unit would start as nobody, and usermod would fail after the files were written
        print(f"spieltisch: there is no user {user!r} in {asked}; make it first (sudo adduser {user}) "
              "or name who runs the table with --user", file=err)
        return 2
    if home is None:
        print(f"spieltisch: warning: {root} has no etc/passwd to find {user!r} in; the table's data goes to "
              f"/home/{user} (make that user on the Pi)", file=err)
        home = Path("/home") / user
    beside = Path(sys.executable).parent / "spieltisch"             # the virtual environment's own
    command = str(beside) if beside.exists() else shutil.which("spieltisch") or f"{sys.executable} -m controller.app.cli"
    data_dir = str(home / ".local" / "share" / "spieltisch")
    files = {UNIT: unit_text(user, command, data_dir), RULES: _template("99-spieltisch.rules"),
             SUDOERS: sudoers_text(user)}
    acting = not dry_run and (str(root) != "/" or os.geteuid() == 0)
    for path, text in files.items():
        target = root / path
        if acting and path == SUDOERS:
            problem = write_sudoers(target, text, check=str(root) == "/")
            if problem is not None:
                print(f"spieltisch: {target} was not written: {problem}", file=err)
                return 1
            print(f"wrote {target}", file=out)
        elif acting:
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
    if not acting:      # the sudoers line is checked before it is in place: a broken one stops sudo
        print(f"  (save the text of /{SUDOERS} above as spieltisch.sudoers first)", file=out)
    for step in ([["cp", str(root / UNIT), "/" + UNIT], ["cp", str(root / RULES), "/" + RULES],
                  ["visudo", "-cf", str(root / SUDOERS)], ["install", "-m", "0440", str(root / SUDOERS), "/" + SUDOERS]]
                 if acting else [["visudo", "-cf", "spieltisch.sudoers"],
                                 ["install", "-m", "0440", "spieltisch.sudoers", "/" + SUDOERS]]) + steps:
        print("  sudo " + shlex.join(step), file=out)
    return 0
