"""``spieltisch install-pi``: make a Raspberry Pi (Raspberry Pi OS Lite) boot into the table.

The table runs as a user of its own, ``spieltisch`` (``--user`` names another): a system user
with no password and no login shell, in no administrator's group, made here when the system
has none of that name. It is in the groups the table needs and may run one command as root,
``systemctl poweroff`` (the menu's "Switch off"). root, or a user in ``sudo`` or ``wheel`` (the
user Raspberry Pi Imager makes is one: it is for setting up over SSH), is refused: a line
that permits poweroff would limit nothing for them.

It writes the systemd unit (the menu on the TV at power-on, full screen through KMS/DRM on
the console in place of tty1's login prompt, restarted if it stops, the host panel's buttons
driving it too), the udev rules (stable station names, the FTDI latency timer) and the
sudoers line, makes the user or adds it to the groups, and enables the unit. Run as root
(``sudo``) it does all that; otherwise, or with ``--dry-run``, it shows the files and the
commands without changing anything. ``--root DIR`` writes the files under DIR instead of /
(for tests, or for preparing an SD card's root file system) and shows the commands to run on
the Pi: it never runs useradd against DIR.

A Pi set up by an earlier guide ran the table as the Imager's user, its data in that user's
home: the unit found there names the user and the folder, and the folder moves to the table's
user (a box started without it would begin an empty history with a new card key, and refuse
the decks taught before). See docs/raspberry-pi.md, "Upgrading a Pi set up before"."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TextIO

GROUPS = ("dialout", "input", "gpio", "video", "render", "audio")
ADMIN_GROUPS = ("sudo", "wheel")           # Debian's and Fedora's administrators: sudo lets them do anything
KIOSK_USER = "spieltisch"
NOLOGIN = "/usr/sbin/nologin"
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

Runner = Callable[[list[str]], "subprocess.CompletedProcess[str]"]


def _run(step: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(step, capture_output=True, text=True)


def _template(name: str) -> str:
    return resources.files("controller.app").joinpath("pi").joinpath(name).read_text(encoding="utf-8")


def unit_text(user: str, command: str, data_dir: str, groups: Sequence[str] = GROUPS) -> str:
    """The unit; ``groups``: those of GROUPS the system has (systemd refuses to start a unit
    whose SupplementaryGroups names a group there is not: Debian has no gpio)."""
    return _template("spieltisch.service").format(user=user, command=command, data=data_dir,
                                                  groups=" ".join(groups))


def sudoers_text(user: str) -> str:
    return (f"# Spieltisch: the table's user may switch the box off (the menu's \"Switch off\"), nothing else.\n"
            f"# Installed by `spieltisch install-pi`.\n"
            f"{user} ALL=(root) NOPASSWD: {SYSTEMCTL} poweroff\n")


@dataclass(frozen=True)
class Account:
    name: str
    uid: int
    gid: int
    home: Path


@dataclass(frozen=True)
class Group:
    gid: int
    members: frozenset[str]


def _records(path: Path, fields: int) -> list[list[str]] | None:
    """The colon-separated records of an etc/passwd or etc/group; None when there is no file."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return [line.split(":") for line in lines if line.count(":") >= fields - 1 and not line.startswith("#")]


def accounts(root: Path) -> dict[str, Account] | None:
    """The users in ``root``/etc/passwd (a Pi's users are all there); None when ``root`` has
    no password file (a folder being prepared, not a system)."""
    records = _records(root / "etc" / "passwd", 7)
    if records is None:
        return None
    found = {}
    for name, _, uid, gid, _, home, *_ in records:
        if uid.isdigit() and gid.isdigit():
            found[name] = Account(name, int(uid), int(gid), Path(home))
    return found


def groups_of(root: Path) -> dict[str, Group] | None:
    """The groups in ``root``/etc/group; None when there is no such file."""
    records = _records(root / "etc" / "group", 4)
    if records is None:
        return None
    return {name: Group(int(gid), frozenset(m for m in members.split(",") if m))
            for name, _, gid, members, *_ in records if gid.isdigit()}


def power_of(account: Account, groups: dict[str, Group]) -> str | None:
    """Why ``account`` can do more than the table needs (root, or an administrator), or None."""
    if account.uid == 0:
        return "is root (uid 0)"
    for name in ADMIN_GROUPS:
        group = groups.get(name)
        if group is not None and (account.name in group.members or group.gid == account.gid):
            return f"is in the {name} group (an administrator)"
    return None


def unreachable(path: Path, account: Account | None, groups: dict[str, Group]) -> Path | None:
    """The first folder on the way to ``path`` (or ``path`` itself) that ``account`` may not
    pass or run (None: a user still to be made, who is only "others"); None when it can."""
    mine = {g.gid for g in groups.values() if account is not None and account.name in g.members}
    if account is not None:
        mine.add(account.gid)
    for step in [*reversed(path.parents), path]:
        try:
            info = step.stat()
        except OSError:
            return step
        if account is not None and info.st_uid == account.uid:
            allowed = info.st_mode & stat.S_IXUSR
        elif info.st_gid in mine:
            allowed = info.st_mode & stat.S_IXGRP
        else:
            allowed = info.st_mode & stat.S_IXOTH
        if not allowed:
            return step
    return None


def useradd(user: str, home: Path) -> list[str]:
    """A system user (uid below 1000, no password: none can be typed, no ageing) with no login
    shell: nobody logs in as it; systemd starts the table as it, sudo runs poweroff for it."""
    return ["useradd", "--system", "--user-group", "--home-dir", str(home), "--create-home",
            "--shell", NOLOGIN, "--comment", "Spieltisch table", user]


def user_commands(user: str, groups: Sequence[str], *, make: Path | None = None) -> list[list[str]]:
    """What install-pi runs for the user after writing the files; ``make``: the home of a
    user to be made."""
    return ([useradd(user, make)] if make is not None else []) + [["usermod", "-aG", ",".join(groups), user]]


# then the rules and the unit take effect: the table starts
START = [["udevadm", "control", "--reload"], ["udevadm", "trigger"],
         ["systemctl", "daemon-reload"], ["systemctl", "enable", "--now", "spieltisch.service"]]


def write_sudoers(target: Path, text: str, *, check: bool, run: Runner = _run) -> str | None:
    """Put the sudoers line in place, readable by root only (0440, as sudo wants it). On the
    system itself (``check``) visudo reads it first and a line it refuses is not put in
    place: a broken file in sudoers.d would stop sudo altogether. None, or what went wrong."""
    target.parent.mkdir(parents=True, exist_ok=True)
    trial = target.with_name(f".{target.name}.new")     # sudo skips names with a dot
    trial.write_text(text, encoding="utf-8")
    trial.chmod(0o440)
    if check:
        try:
            done = run(["visudo", "-cf", str(trial)])
        except OSError as exc:
            trial.unlink()
            return f"visudo cannot check it ({exc})"
        if done.returncode != 0:
            trial.unlink()
            return f"visudo refuses it: {(done.stdout + done.stderr).strip()}"
    trial.replace(target)
    return None


def unit_settings(root: Path) -> dict[str, str]:
    """User= and the Environment= settings of a unit install-pi wrote before (an older guide
    ran the table as the Imager's user, its data in that user's home); empty when none."""
    try:
        lines = (root / UNIT).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return {}
    found: dict[str, str] = {}
    for line in lines:
        key, _, value = line.strip().partition("=")
        if key == "User":
            found["User"] = value.strip()
        elif key == "Environment" and "=" in value:
            name, _, setting = value.strip().strip('"').partition("=")
            found[name] = setting
    return found


def holds_data(folder: Path) -> bool:
    try:
        return folder.is_dir() and any(folder.iterdir())
    except OSError:
        return False


@dataclass(frozen=True)
class DataMove:
    """The family's data (saved games, the card key that signs taught decks) where an
    earlier install kept it, to move into the table's user's data folder: left behind, the
    box would start with an empty history and a new card key that refuses the decks."""
    source: Path          # as the Pi sees them (the unit's paths)
    target: Path
    owner: str            # whose it was

    def shell(self, user: str) -> list[list[str]]:
        """The same move as commands, for an owner to run on the Pi."""
        return [["mkdir", "-p", str(self.target.parent)], ["mv", str(self.source), str(self.target)],
                ["chown", "-R", f"{user}:", str(self.target.parent.parent)],
                ["find", str(self.target), "-type", "d", "-exec", "chmod", "0700", "{}", "+"],
                ["find", str(self.target), "-type", "f", "-exec", "chmod", "0600", "{}", "+"]]


def data_move(root: Path, data_dir: Path, users: dict[str, Account] | None) -> DataMove | None:
    """The data an earlier unit's user kept elsewhere than ``data_dir``, or None (no earlier
    unit, the same folder, or nothing in it)."""
    before = unit_settings(root)
    owner = before.get("User", "")
    source = before.get("SPIELTISCH_DATA")
    if source is None:                  # the table's own default: the user's home
        account = (users or {}).get(owner)
        if account is None:
            return None
        source = str(account.home / ".local" / "share" / "spieltisch")
    move = DataMove(Path(source), data_dir, owner or "an earlier install")
    if not move.source.is_absolute() or move.source == move.target or not holds_data(on(root, move.source)):
        return None
    return move


def on(root: Path, path: Path) -> Path:
    """``path`` of the Pi inside ``root`` (itself when ``root`` is /)."""
    return root / path.relative_to(path.anchor)


def move_data(root: Path, move: DataMove) -> None:
    """Move the folder (a rename on the Pi's one file system) and make it its user's alone:
    folders 0700, files 0600. Its owner is set by ``chown`` after, once the user is there."""
    source, target = on(root, move.source), on(root, move.target)
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.is_dir():                 # an empty folder, made by a start of the new unit
        target.rmdir()
    shutil.move(str(source), str(target))
    for folder, _, names in os.walk(target):
        os.chmod(folder, 0o700)
        for name in names:
            os.chmod(os.path.join(folder, name), 0o600)


def table_command() -> str:
    """The command the unit starts: this virtual environment's own ``spieltisch``."""
    beside = Path(sys.executable).parent / "spieltisch"
    return str(beside) if beside.exists() else shutil.which("spieltisch") or f"{sys.executable} -m controller.app.cli"


def _ran(step: list[str], run: Runner, out: TextIO, err: TextIO) -> bool:
    print("+ " + shlex.join(step), file=out)
    done = run(step)
    if done.returncode != 0:
        print(f"spieltisch: {shlex.join(step)} failed: {done.stderr.strip()}", file=err)
    return done.returncode == 0


USER_NAME = re.compile(r"[a-z_][a-z0-9_-]{0,31}")     # Debian's NAME_REGEX, and useradd's length


def install(user: str | None = None, *, root: str | os.PathLike[str] = "/", dry_run: bool = False,
            out: TextIO = sys.stdout, err: TextIO | None = None, live: bool | None = None,
            run: Runner = _run) -> int:
    """``live``: change this system (write, check with visudo, run the commands); by default
    when ``root`` is / and this is root. The tests say live with a folder and ``run``."""
    err = err or sys.stderr
    user = user or KIOSK_USER            # never the one who ran sudo: that is the administrator
    if not USER_NAME.fullmatch(user):
        # it goes into a sudoers line and a unit file: only a name the system could have
        print(f"spieltisch: {user!r} is not a user name (letters, digits, - and _, starting with a "
              "letter or _); name who runs the table with --user", file=err)
        return 2
    if user == "root":
        print("spieltisch: the table does not run as root: leave out --user (install-pi makes the user "
              f"{KIOSK_USER}, who may only switch the box off)", file=err)
        return 2
    root = Path(root)
    on_system = str(root) == "/"
    live = (on_system and not dry_run and os.geteuid() == 0) if live is None else live and not dry_run
    users, groups = accounts(root), groups_of(root)
    account = users.get(user) if users is not None else None
    if account is not None:
        power = power_of(account, groups or {})
        if power is not None:
            print(f"spieltisch: {user} {power}: the table's user may do nothing else as root than switch "
                  f"off; leave out --user (install-pi makes the user {KIOSK_USER}) or name a user without it",
                  file=err)
            return 2
    if users is None:
        print(f"spieltisch: warning: {root} has no etc/passwd to find {user!r} in; the commands below make "
              f"that user (on the Pi, where it is not there yet)", file=err)
    home = account.home if account is not None else Path("/var/lib") / user
    usable = [g for g in GROUPS if g in groups] if groups is not None else list(GROUPS)
    command = table_command()
    if live:                            # the unit starts it as that user: a folder it may not pass fails it
        blocked = unreachable(Path(command.split()[0]), account, groups or {})
        if blocked is not None:
            print(f"spieltisch: {user} may not run {command.split()[0]} ({blocked} is closed to it); install "
                  "the table where every user may run it, in /opt/spieltisch (docs/raspberry-pi.md)", file=err)
            return 2
    data_dir = str(home / ".local" / "share" / "spieltisch")
    move = data_move(root, Path(data_dir), users)
    if move is not None and holds_data(on(root, move.target)):
        print(f"spieltisch: {move.target} already holds a table's data, and {move.source} ({move.owner}'s) too: "
              "keep one, move the other away, then run install-pi again (docs/raspberry-pi.md, \"Upgrading a Pi set up before\")",
              file=err)
        return 2
    files = {UNIT: unit_text(user, command, data_dir, usable), RULES: _template("99-spieltisch.rules"),
             SUDOERS: sudoers_text(user)}
    acting = live or (not dry_run and not on_system)
    for path, text in files.items():
        target = root / path
        if acting and path == SUDOERS:
            # checked by visudo on the system, and in a folder when this machine has visudo
            problem = write_sudoers(target, text, check=live or shutil.which("visudo") is not None, run=run)
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
    steps = user_commands(user, usable or list(GROUPS), make=home if account is None else None)
    # the data moves once the user is there (it is its owner) and before the unit starts
    # (the box would make a new, empty history and a new card key): the old table stopped first
    stop = [["systemctl", "stop", "spieltisch.service"]] if move is not None else []
    if live:
        for step in stop + steps:
            if not _ran(step, run, out, err):
                return 1
        if move is not None:
            try:
                move_data(root, move)
            except OSError as exc:      # the table stays stopped: it would start with no history
                print(f"spieltisch: the family's data could not be moved from {move.source} to {move.target} "
                      f"({exc.strerror or exc}); it is where it was, the table is stopped", file=err)
                return 1
            if not _ran(["chown", "-R", f"{user}:", str(on(root, move.target.parent.parent))], run, out, err):
                return 1
            print(f"Moved the family's data from {move.source} ({move.owner}'s) to {move.target} ({user}'s "
                  "alone): the saved games and the card key are kept.", file=out)
        for step in START:
            if not _ran(step, run, out, err):
                return 1
        print(f"Done: the table starts on the TV at the next boot (and now), as {user}. "
              "`journalctl -u spieltisch` shows what it says.", file=out)
        return 0
    if move is not None:
        print(f"The family's data moves from {move.source} ({move.owner}'s) to {move.target} ({user}'s alone) "
              "with the commands below: the saved games and the card key are kept.", file=out)
    print("Then, as root:" if not acting else "Then, as root on the Pi:", file=out)
    if not acting:      # the sudoers line is checked before it is in place: a broken one stops sudo
        print(f"  (save the text of /{SUDOERS} above as spieltisch.sudoers first)", file=out)
    for step in ([["cp", str(root / UNIT), "/" + UNIT], ["cp", str(root / RULES), "/" + RULES],
                  ["visudo", "-cf", str(root / SUDOERS)], ["install", "-m", "0440", str(root / SUDOERS), "/" + SUDOERS]]
                 if acting else [["visudo", "-cf", "spieltisch.sudoers"],
                                 ["install", "-m", "0440", "spieltisch.sudoers", "/" + SUDOERS]]) \
            + stop + steps + (move.shell(user) if move is not None else []) + START:
        print("  sudo " + shlex.join(step), file=out)
    return 0
