"""A serial device kept by its own thread: it serves the device while it answers, and when
the device is lost (unplugged, hung) it reopens the same path with backoff until the
device is back or ``close()`` is called. Stations (``StationLink``) and bare readers
(``PN532Reader``) differ only in how they serve and how they greet a reopened port."""

from __future__ import annotations

import threading

import serial


def close_quietly(port: "serial.Serial | None") -> None:
    """Close a port that may already be gone (unplugged): nothing to report."""
    if port is not None:
        try:
            port.close()
        except (OSError, serial.SerialException):
            pass


class SupervisedPort:
    BACKOFF_S = (0.05, 0.1, 0.2, 0.5, 1.0, 2.0)   # reopen attempts after a loss, then every 2 s

    def __init__(self, port: str, *, reconnect: bool = True) -> None:
        self.port = port
        self.reconnect = reconnect
        self.reconnects = 0
        self.reopen_attempts = 0      # tries to open the device again after a loss, all told
        self._serial: serial.Serial | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    @property
    def thread_id(self) -> int | None:
        """The serving thread's native id (the system's), while it runs: a real-time game
        raises its priority."""
        thread = self._thread
        return thread.native_id if thread is not None and thread.is_alive() else None

    @property
    def is_open(self) -> bool:
        """Serving the device, or trying to get it back."""
        return self._thread is not None and self._thread.is_alive()

    def _start(self, name: str) -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Idempotent; joins the thread with a bound."""
        self._stop.set()
        ser = self._serial
        if ser is not None:
            try:
                ser.cancel_read()
            except (AttributeError, OSError, serial.SerialException):
                pass
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=1.0)
        self._close_port()

    def _close_port(self) -> None:
        ser, self._serial = self._serial, None
        close_quietly(ser)

    def _run(self) -> None:
        attempt = 0
        while not self._stop.is_set():
            if self._serial is not None:
                self._serve()
                attempt = 0
            self._close_port()
            if self._stop.is_set() or not self.reconnect:
                return
            if self._stop.wait(self.BACKOFF_S[min(attempt, len(self.BACKOFF_S) - 1)]):
                return
            attempt += 1
            self.reopen_attempts += 1
            if self._reopen():
                self.reconnects += 1

    def _serve(self) -> None:
        """Work with the open port until it is lost, and report the loss."""
        raise NotImplementedError

    def _reopen(self) -> bool:
        """Open the port again and set ``_serial``; False if the device is not back yet."""
        raise NotImplementedError
