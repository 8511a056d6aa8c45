"""The box's disk, built from nothing but Debian's packages and the project's checkout.

Two layers, each cached under ``~/.cache/spieltisch-vm`` (``$SPIELTISCH_VM_CACHE``) by a
hash of what went into it:

1. **base**: Debian bookworm (Raspberry Pi OS Lite is Debian bookworm) by mmdebstrap,
   minbase with a kernel, systemd, udev, sudo, Python with venv and pip, and the libraries
   the guide installs for SDL's kmsdrm driver; nothing of a desktop. The person who set up
   the Pi is there as Raspberry Pi Imager makes them (``anna``, as in the guide: in ``sudo``,
   with Raspberry Pi OS's passwordless-sudo file) and so are the groups Raspberry Pi OS has
   and Debian not (``gpio``, ``i2c``, ``spi``). Made into an ext4 disk with ``mkfs.ext4 -d``
   (nothing mounted), the kernel and initrd taken out beside it (QEMU boots them directly:
   a Pi has its own firmware loader, not GRUB).
2. **provisioned**: the base booted once, and on the machine itself the guide's steps
   (``docs/raspberry-pi.md``, sections 2 and 3): a venv in the admin's home, ``pip install``
   of the project's wheel (built from the checkout, ``pip wheel --no-deps .``) and its
   dependencies' wheels (``pip download`` for the guest's Python 3.11) with ``--no-index
   --find-links`` (the machine has no network: the wheels come in on a second disk, as the
   guide copies the checkout over), then the guide's own ``install-pi`` line, read from the
   guide, then power off. It runs on the machine, not in a chroot at build time: install-pi
   reloads udev and enables and starts the unit, which needs the real systemd.

Run as root (mmdebstrap ``--mode=root``): ``python -m tools.box_vm build``."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from tools.box_vm.machine import Machine, overlay

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "raspberry-pi.md"
SUITE = "bookworm"
MIRROR = "http://deb.debian.org/debian"
GUEST_PYTHON = "3.11"                  # bookworm's
ADMIN = "anna"                         # the user Raspberry Pi Imager makes, as the guide names her
DISK_SIZE = "6G"                       # sparse: about 1.3 GB is used
# what the box needs and nothing of a desktop: the guide's `apt install` line (git aside: the
# wheels come in from the host) and what Raspberry Pi OS Lite has that minbase lacks
PACKAGES = ("systemd", "systemd-sysv", "udev", "kmod", "linux-image-amd64", "initramfs-tools", "sudo", "adduser",
            "passwd", "procps", "python3", "python3-venv", "python3-pip",
            "libgbm1", "libdrm2", "libegl1", "libgles2", "libgl1-mesa-dri")
AGENT = Path(__file__).with_name("agent.py")
AGENT_UNIT = """[Unit]
Description=the test harness's agent on virtio-serial (tools/box_vm; not part of the box)
StartLimitIntervalSec=0

[Service]
ExecStart=/usr/bin/python3 /usr/local/lib/spieltisch-vm/agent.py
Restart=always
RestartSec=1

[Install]
WantedBy=multi-user.target
"""
# inside the new root ($1), after the packages: the machine as Raspberry Pi Imager leaves a Pi
CUSTOMIZE = r"""set -e
R="$1"
echo spieltisch > "$R/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\tspieltisch\n' > "$R/etc/hosts"
printf '/dev/vda\t/\text4\tdefaults,errors=remount-ro\t0\t1\n' > "$R/etc/fstab"
for g in gpio i2c spi; do chroot "$R" groupadd --system "$g"; done
chroot "$R" useradd --create-home --shell /bin/bash \
    --groups adm,dialout,cdrom,sudo,audio,video,plugdev,games,users,input,render,gpio,i2c,spi {admin}
printf '{admin} ALL=(ALL) NOPASSWD: ALL\n' > "$R/etc/sudoers.d/010_pi-nopasswd"
chmod 0440 "$R/etc/sudoers.d/010_pi-nopasswd"
install -D -m 0644 "{agent}" "$R/usr/local/lib/spieltisch-vm/agent.py"
cat > "$R/etc/systemd/system/spieltisch-vm-agent.service" <<'UNIT'
{unit}UNIT
chroot "$R" systemctl enable spieltisch-vm-agent.service
"""


@dataclass(frozen=True)
class Disk:
    """A bootable disk and the kernel and initrd that boot it."""
    disk: Path
    kernel: Path
    initrd: Path
    key: str


def cache_dir() -> Path:
    return Path(os.environ.get("SPIELTISCH_VM_CACHE", Path.home() / ".cache" / "spieltisch-vm"))


def _hash(*parts: str | bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()[:16]


def _say(text: str) -> None:
    print(f"box_vm: {text}", file=sys.stderr, flush=True)


# -- 1. the base disk ------------------------------------------------------------------------------
def base_key() -> str:
    return _hash(SUITE, MIRROR, " ".join(PACKAGES), CUSTOMIZE, AGENT_UNIT, AGENT.read_bytes(), ADMIN, DISK_SIZE)


def build_base(say: Callable[[str], None] = _say) -> Disk:
    """The base disk, from the cache or built now (root only)."""
    key = base_key()
    folder = cache_dir() / f"base-{key}"
    found = Disk(folder / "disk.raw", folder / "vmlinuz", folder / "initrd.img", key)
    if found.disk.exists():
        return found
    if os.geteuid() != 0:
        raise SystemExit("box_vm: building the disk needs root (mmdebstrap --mode=root)")
    started = time.monotonic()
    cache_dir().mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f"base-{key}-", dir=cache_dir()))
    try:
        root = work / "root"
        hook = CUSTOMIZE.format(admin=ADMIN, agent=AGENT, unit=AGENT_UNIT)
        say(f"mmdebstrap {SUITE} into {root}")
        subprocess.run(["mmdebstrap", "--mode=root", "--variant=minbase", f"--include={','.join(PACKAGES)}",
                        "--customize-hook", hook, SUITE, str(root), MIRROR], check=True)
        kernels = sorted((root / "boot").glob("vmlinuz-*"))
        initrds = sorted((root / "boot").glob("initrd.img-*"))
        if not kernels or not initrds:
            raise SystemExit(f"box_vm: no kernel or initrd in {root}/boot")
        shutil.copyfile(kernels[-1], work / "vmlinuz")
        shutil.copyfile(initrds[-1], work / "initrd.img")
        say(f"mkfs.ext4 -d {root} ({DISK_SIZE}, sparse)")
        subprocess.run(["mkfs.ext4", "-q", "-L", "spieltisch", "-d", str(root), str(work / "disk.raw"), DISK_SIZE],
                       check=True)
        shutil.rmtree(root)
        work.rename(folder)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    say(f"base disk built in {time.monotonic() - started:.0f} s: {folder}")
    return found


# -- 2. the wheels from the host -------------------------------------------------------------------
def build_wheels(target: Path, say: Callable[[str], None] = _say) -> list[Path]:
    """The project's wheel (from the checkout, not editable) and every dependency's, for the
    guest's Python on x86_64, in ``target``."""
    target.mkdir(parents=True, exist_ok=True)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    say("pip wheel --no-deps . (the project's wheel, from what git tracks, as the guide copies it)")
    with tempfile.TemporaryDirectory() as build:
        source = Path(build) / "spieltisch"
        tracked = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], check=True, capture_output=True,
                                 text=True).stdout.split("\0")
        for name in filter(None, tracked):     # the working tree's files: a change not yet committed counts
            if (ROOT / name).is_file():
                (source / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(ROOT / name, source / name)
        subprocess.run(pip + ["wheel", "--no-deps", "-w", build, str(source)], check=True)
        own = next(Path(build).glob("spieltisch-*.whl"))
        shutil.copy(own, target)
    say(f"pip download the dependencies for CPython {GUEST_PYTHON}, manylinux x86_64")
    subprocess.run(pip + ["download", "--only-binary=:all:", "--implementation", "cp",
                          "--python-version", GUEST_PYTHON, "--platform", "manylinux2014_x86_64",
                          "--platform", "manylinux_2_28_x86_64", "-d", str(target), str(target / own.name)],
                   check=True)
    return sorted(target.glob("*.whl"))


def wheels_key(wheels: list[Path]) -> str:
    """What the wheels hold, not their bytes: a wheel built again from the same checkout has
    new time stamps in its zip, and must not make a new disk."""
    parts: list[str | bytes] = []
    for wheel in wheels:
        parts.append(wheel.name)
        with zipfile.ZipFile(wheel) as archive:
            for member in sorted(archive.namelist()):
                parts += [member, archive.read(member)]
    return _hash(*parts)


def guide_install_line() -> str:
    """The guide's own ``install-pi`` line (run as the admin, with sudo), so that the machine
    does what the guide says whatever it says."""
    for line in GUIDE.read_text(encoding="utf-8").splitlines():
        if re.match(r"\s*sudo \S*spieltisch install-pi\b", line):
            return line.strip()
    raise SystemExit(f"box_vm: no `sudo … spieltisch install-pi` line in {GUIDE}")


# -- 3. the provisioned disk -----------------------------------------------------------------------
def provisioned(say: Callable[[str], None] = _say) -> Disk:
    """The disk after the guide's steps, from the cache or made now (boots the base once)."""
    base = build_base(say)
    cache_dir().mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="wheels-", dir=cache_dir()) as tmp:
        wheels = build_wheels(Path(tmp) / "wheels", say)
        install_line = guide_install_line()
        key = _hash(base.key, wheels_key(wheels), install_line, PROVISION_SCRIPT)
        folder = cache_dir() / f"box-{key}"
        found = Disk(folder / "disk.qcow2", base.kernel, base.initrd, key)
        if found.disk.exists():
            return found
        started = time.monotonic()
        work = Path(tempfile.mkdtemp(prefix=f"box-{key}-", dir=cache_dir()))
        try:
            carrier = work / "wheels.raw"
            subprocess.run(["mkfs.ext4", "-q", "-L", "wheels", "-d", str(Path(tmp) / "wheels"), str(carrier), "512M"],
                           check=True)
            disk = overlay(base.disk, work / "disk.qcow2")
            machine = Machine(disk, base.kernel, base.initrd, extra_disk=carrier).start()
            try:
                up = machine.wait_for_agent(timeout=600)
                say(f"base machine up in {up:.0f} s; the guide's steps as {ADMIN}")
                for step, as_user in provision_steps(install_line):
                    say(f"{as_user or 'root'}$ {step}")
                    out = machine.check(step, user=as_user, timeout=1800)
                    if out.strip():
                        say("  " + out.strip().replace("\n", "\n  ")[-3000:])
                machine.power_off(timeout=300)
            finally:
                machine.remove()
            carrier.unlink()
            work.rename(folder)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        say(f"provisioned in {time.monotonic() - started:.0f} s: {folder}")
        return found


# the guide's steps on the machine: the wheels copied into the admin's home (the guide copies
# the checkout), the venv in /opt/spieltisch (where the table's own user may run it), pip
# install from that folder only (lgpio is a Pi's: this machine has no GPIO), the guide's
# install-pi line
PROVISION_SCRIPT = """mount -o ro /dev/vdb /mnt && install -d -o {admin} -g {admin} /home/{admin}/wheels && \
cp /mnt/*.whl /home/{admin}/wheels/ && chown {admin}: /home/{admin}/wheels/* && umount /mnt
sudo python3 -m venv /opt/spieltisch
sudo /opt/spieltisch/bin/pip install --no-index --find-links ~/wheels spieltisch
{install}
"""


def provision_steps(install_line: str) -> list[tuple[str, str | None]]:
    lines = PROVISION_SCRIPT.format(admin=ADMIN, install=install_line).strip().splitlines()
    return [(lines[0], None)] + [(line, ADMIN) for line in lines[1:]]


def main(argv: list[str]) -> int:
    started = time.monotonic()
    disk = provisioned()
    print(f"{disk.disk}\nkernel {disk.kernel}\ninitrd {disk.initrd}\n({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
