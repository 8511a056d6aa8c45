"""The stand-ins: everything in this folder simulates or emulates a part of the table that a
real box has in hardware, so that games, tests and benchmarks run without it. The real
drivers are one folder up (``hardware/``: the link, the protocol, the clock sync, the panel,
the HSU reader, station flashing); nothing here is used on a real table except
:func:`station.is_simulated`, which tells a simulated station's HELLO from a real one.

- ``station.py``: a station in the table's process, behind a pseudo-terminal
  (``--stations sim``), with its clock (``StationClock``) and cards;
- ``process.py``: the same stations in a process of their own (the demo's default);
- ``pn532_hsu.py``: a bare PN532 reader on HSU behind a pseudo-terminal;
- ``ntag.py``: an NTAG213/215/216 sticker as its datasheet describes it;
- ``pn532_chip.py``: the PN532 on I2C with its datasheet timing (``hardware/data/pn532_timing.json``),
  in the Python that both CPython and MicroPython run;
- ``pico/`` and ``firmware_station.py``: the station's real firmware on MicroPython's
  WebAssembly build over a simulated Pico (``--stations firmware``);
- ``rp2040/``, ``rp2040_station.py`` and ``rp2040_pn532.py``: MicroPython's rp2 port on an
  emulated RP2040 (rp2040js), the bridge of its USB to a pseudo-terminal and its PN532
  (``--stations rp2040``, docs/rp2040.md).
"""
