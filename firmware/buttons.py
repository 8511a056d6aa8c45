# Button edges -> press and release events, with no debounce delay.
#
# The first edge after a quiet spell is the press (or release): it is stamped at once,
# in the hard IRQ, with the level the pin shows then, and the button is locked for
# LOCKOUT_US so the contact's bounce is ignored instead of being waited out. The IRQ ends
# an expired lockout itself: a release and a re-press while the main loop is busy (a
# slow reader, a long USB write) are both reported, each with its own edge's time. An
# edge that finds the pin where the last event left it is a glitch, not a press.
#
# An edge hidden by the lockout (a tap shorter than LOCKOUT_US) leaves its time; when the
# lockout ends, the main loop reads the settled level and reports the missed change
# stamped with that edge, not with the loop's time. A pass that reads the pin back where
# the last event left it forgets the edges hidden so far: they were the contact's bounce.
#
# Pure: the IRQ calls edge(), the main loop settle(), each with the time and the level;
# checked under MicroPython and CPython against tests/vectors/buttons.json. edge() is
# allocation-free (it runs in a hard IRQ: the heap may be locked).

try:
    from time import ticks_diff
except ImportError:                  # CPython, for the shared vector tests
    def ticks_diff(later, earlier):
        half = 1 << 29
        return ((later - earlier + half) & ((1 << 30) - 1)) - half

NO_EDGE = -1                         # hidden_at when no edge hid under the lockout


class ButtonLogic:
    def __init__(self, count, lockout_us):
        self.count = count
        self.lockout_us = lockout_us
        self.down = [False] * count          # what the last event said
        self.locked = [False] * count
        self.locked_at = [0] * count
        self.hidden_at = [NO_EDGE] * count   # the first edge the lockout hid
        # a ring of stamped edges, preallocated: the hard IRQ must not allocate
        self.ring_size = 32
        self.ring_button = [0] * self.ring_size
        self.ring_down = [False] * self.ring_size
        self.ring_time = [0] * self.ring_size
        self.head = 0
        self.tail = 0
        self.overflows = 0

    def edge(self, button, now, down):
        """From the IRQ: an edge of a button and the level it left (down: pressed)."""
        if self.locked[button]:
            if ticks_diff(now, self.locked_at[button]) < self.lockout_us:
                if self.hidden_at[button] == NO_EDGE:
                    self.hidden_at[button] = now
                return
            self.locked[button] = False
        if down == self.down[button]:
            return                           # a glitch: the pin is back where it was
        self._lock(button, now)
        self._push(button, down, now)

    def settle(self, button, is_down, now):
        """From the main loop: the button's level now. Ends an expired lockout and reports a
        change the lockout hid, stamped with the edge that made it. Within the lockout, a
        level where the last event left it means what the lockout hid so far came to nothing
        (a bounce): it is forgotten, so a FENCE's answer is no longer held back to it (for
        the rest of the lockout, 15 ms, longer than the table waits for a race), and a change
        the lockout hides after it is stamped with its own edge, not with the bounce's."""
        if self.locked[button]:
            if ticks_diff(now, self.locked_at[button]) < self.lockout_us:
                if is_down == self.down[button]:
                    self.hidden_at[button] = NO_EDGE
                return
            self.locked[button] = False
        if is_down != self.down[button]:
            hidden = self.hidden_at[button]
            self._lock(button, now)
            self._push(button, is_down, now if hidden == NO_EDGE else hidden)
        else:
            self.hidden_at[button] = NO_EDGE

    def earliest(self, now):
        """A progress stamp no event can come before: ``now``, or the first edge a lockout
        still hides, if earlier (settle() reports that change stamped with the edge, later).
        Call with IRQs disabled: edge() writes hidden_at."""
        for edge in self.hidden_at:
            if edge != NO_EDGE and ticks_diff(edge, now) < 0:
                now = edge
        return now

    def pending(self):
        """Whether the IRQ stamped an event the main loop has not taken yet."""
        return self.tail != self.head

    def events(self):
        """Take the stamped events: a list of (button, down, time)."""
        out = []
        while self.tail != self.head:
            i = self.tail
            out.append((self.ring_button[i], self.ring_down[i], self.ring_time[i]))
            self.tail = (i + 1) % self.ring_size
        return out

    def _lock(self, button, now):
        self.locked[button] = True
        self.locked_at[button] = now
        self.hidden_at[button] = NO_EDGE

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
