"""A simulated Raspberry Pi Pico with MicroPython, on a pseudo-terminal, for the tests of
``spieltisch stations --flash``: mpremote talks to it as to a real one.

The USB side is modelled here from MicroPython's ``shared/runtime/pyexec.c`` (the
friendly REPL, the raw REPL: Ctrl-A, Ctrl-B, Ctrl-C, Ctrl-D, "OK", the two EOF bytes
after the output and the error; raw-paste mode: ``\\x05A\\x01`` answered ``R\\x01`` and a
window of 128 bytes (a 256-byte stdin buffer, as pyexec's default), ``\\x01`` each time a
window is used, ``\\x04`` at the end) and the soft reboot's "MPY: soft reboot". What the
REPL runs, runs under real MicroPython (the WebAssembly build, ``board.mjs``), on a file
system that survives resets; ``machine.reset()`` unplugs the pty and plugs a new one in,
as a Pico's USB goes away and comes back. At boot, a Pico runs ``main.py``: here the
firmware's own ``main.updating()`` decides (a mark left by UPDATE keeps the REPL), and
then the firmware's own ``main.Firmware`` runs, stepped whenever the host sends bytes
(with the simulated Pico's ``machine`` and ``neopixel``, hardware/sim/pico/, below it and no reader chip).

Not modelled: the friendly REPL's line editing and execution (mpremote does not use it),
USB timing, a flash that fills up, and ``boot.py``."""

from __future__ import annotations

import binascii
import json
import subprocess
import threading
from pathlib import Path

from hardware.sim.station import PtyDevice

HERE = Path(__file__).resolve().parent
BANNER = b"MicroPython v1.27.0 on 2025-12-09; Raspberry Pi Pico with RP2040\r\nType \"help()\" for more information.\r\n"
RAW_BANNER = b"raw REPL; CTRL-B to exit\r\n"
WINDOW = 128
CTRL_A, CTRL_B, CTRL_C, CTRL_D, CTRL_E = 1, 2, 3, 4, 5


def cooked(data: bytes) -> bytes:
    """MicroPython's stdout on USB turns each \\n into \\r\\n."""
    return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


class SimulatedPico(PtyDevice):
    BY_ID_NAME = "usb-MicroPython_Board_in_FS_mode_{name}-if00"

    def __init__(self, name: str, files: dict[str, bytes] | None = None, *, uid: str = "e6614103e7452d2f",
                 by_id_dir: str | Path | None = None) -> None:
        super().__init__(name, by_id_dir=by_id_dir)
        self.uid = uid
        self.mode = "repl"                 # "station", "repl" (friendly), "raw", "paste"
        self.line = bytearray()
        self.window = 0
        self.boots = 0
        self.executed: list[str] = []      # what the raw REPL ran, in order
        self._lock = threading.Lock()
        self._node = subprocess.Popen(["node", str(HERE / "board.mjs")], cwd=HERE, stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, text=True)
        self._ask({"op": "boot", "uid": uid})
        for name, data in (files or {}).items():
            self._ask({"op": "exec", "code": f"with open({name!r}, 'wb') as f:\n f.write({bytes(data)!r})"})

    def _ask(self, request: dict) -> dict:
        with self._lock:
            self._node.stdin.write(json.dumps(request) + "\n")
            self._node.stdin.flush()
            return json.loads(self._node.stdout.readline())

    # -- plugging in ---------------------------------------------------------------------------
    def start(self):
        """Plugged in: the Pico boots and runs main.py (the station) if it can."""
        super().start()
        self._boot_main()
        return self

    def _boot_main(self) -> None:
        self.boots += 1
        started = self._ask({"op": "main"})
        self.mode = started["mode"]
        self.line = bytearray()
        if self.mode == "station":
            self._send(binascii.unhexlify(started["out"]))

    def files(self) -> dict[str, bytes]:
        return {name: binascii.unhexlify(data) for name, data in self._ask({"op": "files"})["files"].items()}

    def shutdown(self) -> None:
        self.close()
        self._node.stdin.close()
        self._node.wait(timeout=10)

    def _reset(self) -> None:
        """machine.reset(): USB goes away, the chip boots afresh, USB comes back."""
        def reboot() -> None:
            self.close()
            self._ask({"op": "boot", "uid": self.uid})
            self.start()
        threading.Thread(target=reboot, name=f"reset {self.name}", daemon=True).start()

    def _send(self, data: bytes) -> None:
        if data:
            try:
                self._write(data)
            except RuntimeError:            # unplugged meanwhile
                pass

    # -- USB in --------------------------------------------------------------------------------
    def _received(self, data: bytes) -> None:
        if self.mode == "station":          # the firmware takes every byte, Ctrl-C too (kbd_intr(-1))
            answer = self._ask({"op": "feed", "hex": data.hex()})
            if answer["reset"]:
                self._reset()
                return
            self._send(binascii.unhexlify(answer["out"]))
            return
        for i, byte in enumerate(data):
            if self.mode == "station":      # a soft reboot started the firmware: it takes the rest
                self._received(data[i:])
                return
            if self._repl_byte(byte):
                return                      # reset: the rest went nowhere

    def _repl_byte(self, c: int) -> bool:
        """One byte at the REPL; True when it reset the board."""
        if self.mode == "paste":
            return self._paste_byte(c)
        if self.mode == "repl":
            if c == CTRL_A:
                self.mode = "raw"
                self.line = bytearray()
                self._send(b"\r\n" + RAW_BANNER + b">")
            elif c == CTRL_B:
                self._send(b"\r\n" + BANNER + b">>> ")
            elif c == CTRL_C:
                self.line = bytearray()
                self._send(b"\r\n>>> ")
            elif c == CTRL_D:
                self._send(b"\r\n")
                self._soft_reboot()
            else:
                self._send(bytes([c]))      # echoed; lines typed here are not run (mpremote does not)
            return False
        # the raw REPL
        if c == CTRL_A:
            if bytes(self.line) == b"\x05A":
                self.mode = "paste"
                self.line = bytearray()
                self.window = WINDOW
                self._send(b"R\x01" + WINDOW.to_bytes(2, "little") + b"\x01")
                return False
            self.line = bytearray()
            self._send(RAW_BANNER + b">")
        elif c == CTRL_B:
            self.mode = "repl"
            self.line = bytearray()
            self._send(b"\r\n" + BANNER + b">>> ")
        elif c == CTRL_C:
            self.line = bytearray()
        elif c == CTRL_D:
            self._send(b"OK")
            if not self.line:
                self._send(b"\r\n")
                self._soft_reboot()
                return False
            return self._execute(bytes(self.line))
        else:
            self.line.append(c)
        return False

    def _paste_byte(self, c: int) -> bool:
        if c in (CTRL_C, CTRL_D):
            self._send(b"\x04")             # end of data seen
            code, self.line = bytes(self.line), bytearray()
            self.mode = "raw"
            if c == CTRL_C:
                self._send(b"\x04KeyboardInterrupt: \r\n\x04>")
                return False
            return self._execute(code)
        self.line.append(c)
        self.window -= 1
        if self.window == 0:
            self.window = WINDOW
            self._send(b"\x01")
        return False

    def _execute(self, code: bytes) -> bool:
        text = code.decode("utf-8", "replace")
        self.executed.append(text)
        self.line = bytearray()
        answer = self._ask({"op": "exec", "code": text})
        self._send(cooked(binascii.unhexlify(answer["out"])))
        if answer["reset"]:
            self._reset()
            return True
        self._send(b"\x04" + cooked(answer["err"].encode()) + b"\x04>")
        return False

    def _soft_reboot(self) -> None:
        """A soft reset: a fresh interpreter; main.py runs only from the friendly REPL."""
        raw = self.mode == "raw"
        self._send(b"MPY: soft reboot\r\n")
        self._ask({"op": "boot", "uid": self.uid})
        if raw:
            self._send(RAW_BANNER + b">")
            return
        self._boot_main()
        if self.mode != "station":
            self._send(BANNER + b">>> ")
