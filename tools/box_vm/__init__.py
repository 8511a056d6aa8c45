"""The box from a blank disk, in a virtual machine (issue 42).

``image.py`` builds a disk from Debian bookworm's own packages (mmdebstrap: a kernel,
systemd, udev, sudo, Python, the libraries SDL's kmsdrm driver loads; nothing of a
desktop), then boots it once and runs the guide's steps on the machine itself, as a person
would on the Pi (``docs/raspberry-pi.md``): a venv, ``pip install`` of the project's wheel
from a folder of wheels brought in from the host (the machine has no network), and the
guide's ``install-pi`` line. Both disks are cached under ``~/.cache/spieltisch-vm``, keyed
by a hash of what went into them, so a second run only boots.

``machine.py`` boots such a disk in QEMU (TCG: on the development machine a KVM guest hung
at boot): a virtio-gpu screen (DRM/KMS, no X) read with the monitor's ``screendump``, a
station on an emulated USB serial adapter (QEMU's ``usb-serial``, an FTDI FT232 to the
guest, ``ftdi_sio``) whose other end is a simulated station's pseudo-terminal on the host,
and a small agent on a virtio-serial port that runs commands as root for the tests
(``agent.py``: it is the harness's, not the box's).

``python -m tools.box_vm build`` builds (as root), ``python -m tools.box_vm run`` boots and
takes a picture of the TV; ``pytest -m vm`` runs the proofs (``tests/test_vm.py``).
"""
