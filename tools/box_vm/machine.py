"""One virtual machine in QEMU, as the tests use it: boot a disk, run commands through the
agent, look at the TV, cut the power.

TCG, not KVM: on the development machine ``/dev/kvm`` exists but a KVM guest hung at boot.
The screen is virtio-gpu (a DRM/KMS device to the guest, fbcon on tty1, no X), the picture
taken with QMP's ``screendump``. Each station is QEMU's ``usb-serial`` (an FTDI FT232,
0403:6001, to the guest: ``ftdi_sio``, ``/dev/ttyUSB*``) on a host tty, a simulated
station's pseudo-terminal (``hardware/sim/station.py``): QEMU opens its end as a serial line. The
kernel's console goes to a file (``console.log``), the agent talks over virtio-serial."""

from __future__ import annotations

import json
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

QEMU = "qemu-system-x86_64"
APPEND = "root=/dev/vda rw console=ttyS0 panic=-1 net.ifnames=0"
SCREEN = (1920, 1080)                 # the TV: virtio-gpu offers this mode first


class MachineError(RuntimeError):
    """The machine did not do what was asked within its bound (said with the console's tail)."""


@dataclass(frozen=True)
class Result:
    rc: int
    out: str


@dataclass
class Machine:
    disk: Path                                       # a qcow2 the machine may write (an overlay)
    kernel: Path
    initrd: Path
    stations: list[str] = field(default_factory=list)     # host ttys, each a usb-serial adapter
    extra_disk: Path | None = None                   # /dev/vdb (the wheels at provisioning)
    memory_mb: int = 2048
    cpus: int = 2
    workdir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="sv-")))
    process: subprocess.Popen[bytes] | None = None
    _agent: socket.socket | None = None
    _buffer: bytes = b""
    _next_id: int = 0
    started_at: float = 0.0

    @property
    def console_log(self) -> Path:
        return self.workdir / "console.log"

    def command(self) -> list[str]:
        width, height = SCREEN
        cmd = [QEMU, "-accel", "tcg", "-machine", "q35", "-m", str(self.memory_mb), "-smp", str(self.cpus),
               "-nodefaults", "-no-user-config", "-display", "none", "-nic", "none",
               "-kernel", str(self.kernel), "-initrd", str(self.initrd), "-append", APPEND,
               "-drive", f"file={self.disk},if=virtio,format=qcow2",
               "-vga", "none", "-device", f"virtio-gpu-pci,xres={width},yres={height}",
               "-chardev", f"file,id=console,path={self.console_log}", "-serial", "chardev:console",
               "-qmp", f"unix:{self.workdir / 'qmp.sock'},server=on,wait=off",
               "-device", "virtio-serial-pci",
               "-chardev", f"socket,id=agent,path={self.workdir / 'agent.sock'},server=on,wait=off",
               "-device", "virtserialport,chardev=agent,name=spieltisch.agent",
               "-device", "qemu-xhci,id=usb"]
        if self.extra_disk is not None:
            cmd += ["-drive", f"file={self.extra_disk},if=virtio,format=raw,readonly=on"]
        for number, tty in enumerate(self.stations, 1):
            cmd += ["-chardev", f"serial,id=station{number},path={tty}",
                    "-device", f"usb-serial,chardev=station{number},bus=usb.0,serial=VMSTATION{number}"]
        return cmd

    def start(self) -> "Machine":
        self.console_log.unlink(missing_ok=True)
        self._agent, self._buffer = None, b""
        self.started_at = time.monotonic()
        self.process = subprocess.Popen(self.command(), stdin=subprocess.DEVNULL,
                                        stdout=open(self.workdir / "qemu.out", "ab"), stderr=subprocess.STDOUT)
        return self

    # -- waiting for things ------------------------------------------------------------------------
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def console_tail(self, lines: int = 30) -> str:
        try:
            text = self.console_log.read_text(errors="replace")
        except OSError:
            return "(no console output)"
        return "\n".join(text.splitlines()[-lines:])

    def _fail(self, what: str) -> MachineError:
        qemu = (self.workdir / "qemu.out").read_text(errors="replace") if (self.workdir / "qemu.out").exists() else ""
        return MachineError(f"{what}\n--- QEMU ---\n{qemu[-2000:]}\n--- console ---\n{self.console_tail()}")

    def wait_exit(self, timeout: float) -> int:
        """The machine ended by itself (powered off) within ``timeout`` s: QEMU's exit code."""
        assert self.process is not None
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise self._fail(f"the machine was still running after {timeout} s") from None

    def cut_power(self) -> None:
        """The plug pulled: QEMU killed at once, the guest told nothing."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()
        self._close_agent()

    def stop(self) -> None:
        self.cut_power()

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.workdir, ignore_errors=True)

    # -- the agent ---------------------------------------------------------------------------------
    def _close_agent(self) -> None:
        if self._agent is not None:
            self._agent.close()
            self._agent = None

    def _connect(self, deadline: float) -> socket.socket:
        if self._agent is not None:
            return self._agent
        path = str(self.workdir / "agent.sock")
        while True:
            if not self.alive():
                raise self._fail("the machine ended before its agent answered")
            try:
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                sock.connect(path)
                self._agent = sock
                return sock
            except OSError:
                sock.close()
                if time.monotonic() > deadline:
                    raise self._fail("QEMU's agent socket did not appear") from None
                time.sleep(0.1)

    def _messages(self, deadline: float, what: str) -> Iterator[dict]:
        sock = self._connect(deadline)
        while True:
            while b"\n" in self._buffer:
                line, self._buffer = self._buffer.split(b"\n", 1)
                try:
                    yield json.loads(line)
                except ValueError:
                    continue
            left = deadline - time.monotonic()
            if left <= 0:
                raise self._fail(f"waited for {what}: no answer in time")
            if not self.alive():
                raise self._fail(f"the machine ended while waiting for {what}")
            sock.settimeout(min(1.0, left))
            try:
                chunk = sock.recv(65536)
            except socket.timeout:
                continue
            if not chunk:
                raise self._fail(f"the agent's socket closed while waiting for {what}")
            self._buffer += chunk

    def run(self, cmd: str, *, user: str | None = None, timeout: float = 120.0,
            on_line: Callable[[str], None] | None = None) -> Result:
        """``cmd`` run by bash in the machine (as root, or as ``user`` with a login's
        environment), its output as it came; ``on_line`` sees each line as it comes."""
        deadline = time.monotonic() + timeout
        sock = self._connect(deadline)
        self._next_id += 1
        ident = self._next_id
        request = {"id": ident, "cmd": cmd, **({"user": user} if user else {})}
        sock.sendall((json.dumps(request) + "\n").encode())
        lines: list[str] = []
        for message in self._messages(deadline, f"`{cmd}`"):
            if message.get("id") != ident:
                continue
            if "line" in message:
                lines.append(message["line"])
                if on_line is not None:
                    on_line(message["line"])
            elif "rc" in message:
                return Result(int(message["rc"]), "\n".join(lines))
        raise AssertionError("unreachable")

    def power_off(self, timeout: float) -> int:
        """``systemctl poweroff`` in the machine (no answer waited for: the agent stops with the
        rest), then QEMU's own end: its exit code."""
        sock = self._connect(time.monotonic() + timeout)
        self._next_id += 1
        sock.sendall((json.dumps({"id": self._next_id, "cmd": "systemctl poweroff"}) + "\n").encode())
        return self.wait_exit(timeout)

    def check(self, cmd: str, **kwargs: object) -> str:
        """``run``, and a command that fails is an error with its output."""
        result = self.run(cmd, **kwargs)                 # type: ignore[arg-type]
        if result.rc != 0:
            raise MachineError(f"`{cmd}` exited with {result.rc}:\n{result.out}")
        return result.out

    def wait_for_agent(self, timeout: float) -> float:
        """Seconds from start until the agent answered (the machine is up: multi-user)."""
        self.run("true", timeout=timeout)
        return time.monotonic() - self.started_at

    # -- the TV --------------------------------------------------------------------------------
    def _qmp(self, command: str, arguments: dict, timeout: float = 30.0) -> dict:
        deadline = time.monotonic() + timeout
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(str(self.workdir / "qmp.sock"))
            stream = sock.makefile("rwb")
            json.loads(stream.readline())                       # the greeting
            for execute, args in (("qmp_capabilities", {}), (command, arguments)):
                stream.write((json.dumps({"execute": execute, "arguments": args}) + "\n").encode())
                stream.flush()
                while True:
                    if time.monotonic() > deadline:
                        raise self._fail(f"QMP {command}: no answer")
                    reply = json.loads(stream.readline())
                    if "event" in reply:
                        continue
                    if "error" in reply:
                        raise self._fail(f"QMP {execute}: {reply['error']}")
                    break
            return reply

    def screendump(self, png: Path) -> Path:
        """The TV's picture now, as a PNG (QEMU writes PPM; ImageMagick converts it)."""
        ppm = self.workdir / "screen.ppm"
        ppm.unlink(missing_ok=True)
        self._qmp("screendump", {"filename": str(ppm)})
        png.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["convert", str(ppm), str(png)], check=True, capture_output=True)
        return png


def overlay(backing: Path, target: Path) -> Path:
    """A new qcow2 that writes to itself and reads the rest from ``backing`` (left as it is)."""
    target.unlink(missing_ok=True)
    subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", "-F", "qcow2" if backing.suffix == ".qcow2" else "raw",
                    "-b", str(backing), str(target)], check=True)
    return target

