"""``python -m tools.box_vm build``: the box's disk (as root, cached); ``python -m tools.box_vm
run [PNG]``: boot it with one simulated station, wait for the agent, and save the TV's
picture after the box has started (``tools/box_vm/__init__.py``)."""

from __future__ import annotations

import sys

from tools.box_vm import image


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("build", "run"):
        print(__doc__, file=sys.stderr)
        return 2
    if argv[0] == "build":
        return image.main(argv[1:])
    from tools.box_vm.session import demo
    return demo(argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
