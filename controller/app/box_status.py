"""What the box's TV says while it cannot show the menu: no station answers yet (which
ports it tried and why each failed), or the table's database cannot be used (what is
wrong, in the store's own sentence). Before, the TV stayed without a word on the second,
and the box stopped on the first (systemd started it again and again, the TV dark).

Pure: the box (``controller/app/box.py``) looks, this module says it, and
``display/boxstatus_view.py`` draws it."""

from __future__ import annotations

import errno
import logging
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger(__name__)

LOOK_AGAIN_S = 2.0          # the box looks for stations again this often
STORE_AGAIN_S = 5.0         # and tries a database it cannot use again this often


@dataclass(frozen=True)
class StatusLine:
    key: str
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class BoxStatus:
    game: str                                  # "boxstatus": the screen's view
    title: StatusLine
    lines: tuple[StatusLine, ...]
    trouble: bool = False                      # something is wrong (framed red), not only waited for
    detail: str | StatusLine | None = None     # the owner's sentence: the store's, in the screen's language


def waiting_for_stations(failed: dict[str, BaseException], *, panel: bool = False,
                         detail: str | StatusLine | None = None) -> BoxStatus:
    """No station answers: plug one in. Each port that was there but did not open, and why;
    with a host panel, how to switch off meanwhile; ``detail``: what went wrong last (a
    switch-off the system refused), in its own sentence."""
    lines = [StatusLine("box_plug_in_how", {"s": int(LOOK_AGAIN_S)})]
    lines += [port_problem(port, exc) for port, exc in sorted(failed.items())]
    lines += [StatusLine("box_panel_switch_off")] if panel else []
    return BoxStatus("boxstatus", StatusLine("box_plug_in"), tuple(lines), trouble=bool(failed or detail),
                     detail=detail)


def port_problem(port: str, exc: BaseException) -> StatusLine:
    """Why a port did not become a station, in a person's words."""
    cause: BaseException | None = exc
    while cause is not None and not isinstance(cause, OSError):
        cause = cause.__cause__ or cause.__context__
    code = getattr(cause, "errno", None)
    words = str(exc)
    if code in (errno.EACCES, errno.EPERM) or "Permission denied" in words:
        return StatusLine("box_port_denied", {"port": port})
    if code == errno.ENOENT or "No such file" in words:
        return StatusLine("box_port_missing", {"port": port})
    if "no HELLO" in words:
        return StatusLine("box_port_silent", {"port": port})
    # anything else (a serial port that is no tty, a device that is not a Pico): the system's
    # own words are English and for the log (``open_present`` wrote them there)
    return StatusLine("box_port_not_station", {"port": port})


def storage_trouble(problem: str | StatusLine, *, panel: bool = False) -> BoxStatus:
    """The database cannot be used: no game can be saved, so none starts."""
    lines: tuple[StatusLine, ...] = (StatusLine("box_storage_how", {"s": int(STORE_AGAIN_S)}),)
    lines += (StatusLine("box_panel_switch_off"),) if panel else ()
    return BoxStatus("boxstatus", StatusLine("box_storage_title"), lines, trouble=True, detail=problem)


def switching_off() -> BoxStatus:
    """The box is shutting the Pi down: when to unplug it."""
    return BoxStatus("boxstatus", StatusLine("box_switching_off"), (StatusLine("box_switching_off_how"),))


def store_problem() -> StatusLine | None:
    """Why the table's database cannot be used now, or None: the store's sentence from the
    catalogues (said in the screen's language), or, where it has none, that the log says it."""
    from controller.table.eventlog import EventLog, StorageError
    try:
        with EventLog():
            return None
    except StorageError as exc:
        if exc.key:
            return StatusLine(exc.key, dict(exc.params))
        # a sentence the catalogues lack is English, with options for the command line: the log's
        log.warning("the table's database cannot be used: %s", exc)
        return StatusLine("box_storage_see_log")
