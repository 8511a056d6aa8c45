"""The test harness's agent inside the virtual machine (not part of the box): it reads one
JSON object a line from a virtio-serial port, runs its ``cmd`` with bash as root (or as
``user``), and answers with the command's output, one ``{"id", "line"}`` a line as it comes,
then ``{"id", "rc"}``. Standard library only: it runs on the guest's own Python before
anything of the project is installed. Installed by ``image.py`` as a systemd unit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from typing import Any, BinaryIO

PORT = "/dev/virtio-ports/spieltisch.agent"


def answer(port: BinaryIO, lock: threading.Lock, message: dict[str, Any]) -> None:
    data = (json.dumps(message, ensure_ascii=False) + "\n").encode("utf-8")
    with lock:
        port.write(data)
        port.flush()


def run(port: BinaryIO, lock: threading.Lock, request: dict[str, Any]) -> None:
    ident = request.get("id")
    command = ["bash", "-c", str(request["cmd"])]
    user = request.get("user")
    if user:                                      # a login's environment: HOME, PATH, the user's groups
        command = ["runuser", "-l", str(user), "-c", str(request["cmd"])]
    try:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, cwd="/", start_new_session=True)
    except OSError as exc:
        answer(port, lock, {"id": ident, "line": f"agent: {exc}"})
        answer(port, lock, {"id": ident, "rc": 127})
        return
    assert process.stdout is not None
    for raw in process.stdout:
        answer(port, lock, {"id": ident, "line": raw.decode("utf-8", "replace").rstrip("\n")})
    answer(port, lock, {"id": ident, "rc": process.wait()})


def main() -> int:
    port = open(PORT, "r+b", buffering=0)
    lock = threading.Lock()
    pending = b""
    answer(port, lock, {"hello": os.uname().nodename})
    while True:
        chunk = port.read(4096)
        if not chunk:                             # the host's side is not connected: wait for it
            import time
            time.sleep(0.2)
            continue
        pending += chunk
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            try:
                request = json.loads(line)
            except ValueError:
                continue                          # a partial line from an earlier connection
            # each command in its own thread: a long one (the box's doctor) does not hold the rest up
            threading.Thread(target=run, args=(port, lock, request), daemon=True).start()


if __name__ == "__main__":
    sys.exit(main())
