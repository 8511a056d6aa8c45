# Button edges -> press and release events, with no debounce delay.
#
# The first edge after a quiet spell is the press (or release): it is stamped at once,
# in the hard IRQ, and the button is then locked for LOCKOUT_US, so the contact's
# bounce is ignored instead of being waited out. When the lockout ends, the main loop
# reads the settled level; if the button is no longer where the last event said (a tap
# shorter than the lockout), the missed edge is reported then.
#
# Pure: the IRQ and the main loop call edge() and settle() with the time and level;
# checked under MicroPython and CPython against tests/vectors/buttons.json.

try:
    from time import ticks_diff
except ImportError:                  # CPython, for the shared vector tests
    def ticks_diff(later, earlier):
        half = 1 << 29
        return ((later - earlier + half) & ((1 << 30) - 1)) - half


class ButtonLogic:
    def __init__(self, count, lockout_us):
        self.count = count
        self.lockout_us = lockout_us
        self.down = [False] * count          # what the last event said
        self.locked = [False] * count
        self.locked_at = [0] * count
        # a ring of stamped edges, preallocated: the hard IRQ must not allocate
        self.ring_size = 32
        self.ring_button = [0] * self.ring_size
        self.ring_down = [False] * self.ring_size
        self.ring_time = [0] * self.ring_size
        self.head = 0
        self.tail = 0
        self.overflows = 0

    def edge(self, button, now):
        """From the IRQ: any edge of a button. Allocation-free."""
        if self.locked[button]:
            return
        self.locked[button] = True
        self.locked_at[button] = now
        self._push(button, not self.down[button], now)

    def settle(self, button, is_down, now):
        """From the main loop: the button's level now. Ends an expired lockout and reports an
        edge the lockout hid."""
        if self.locked[button]:
            if ticks_diff(now, self.locked_at[button]) < self.lockout_us:
                return
            self.locked[button] = False
        if is_down != self.down[button]:
            self.locked[button] = True
            self.locked_at[button] = now
            self._push(button, is_down, now)

    def events(self):
        """Take the stamped events: a list of (button, down, time)."""
        out = []
        while self.tail != self.head:
            i = self.tail
            out.append((self.ring_button[i], self.ring_down[i], self.ring_time[i]))
            self.tail = (i + 1) % self.ring_size
        return out

    def _push(self, button, down, now):
        self.down[button] = down
        nxt = (self.head + 1) % self.ring_size
        if nxt == self.tail:             # full: the host sees the gap in sequence numbers
            self.overflows += 1
            return
        i = self.head
        self.ring_button[i] = button
        self.ring_down[i] = down
        self.ring_time[i] = now
        self.head = nxt
