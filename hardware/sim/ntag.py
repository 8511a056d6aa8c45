# An NTAG213/215/216 sticker as the NXP datasheet describes it ("NTAG213/215/216, NFC Forum
# Type 2 Tag compliant IC with 144/504/888 bytes user memory"), for the simulations: the
# host's simulated station and bare PN532 (hardware/sim/station.py, hardware/sim/pn532_hsu.py) and, under
# MicroPython, the PN532 the firmware is checked against and runs with (hardware/sim/pn532_chip.py;
# tests/mpy/run.mjs copies this file there). So it is written in the Python both run: no
# annotations, no f-strings, no bytes.fromhex.
#
# What it models, from the datasheet:
#
# - memory: pages of 4 bytes. 0-1 the UID, 2 the UID's last byte, an internal byte and the
#   two static lock bytes, 3 the capability container (CC), 4.. user memory, then the
#   dynamic lock bytes and four configuration pages: CFG0 (MIRROR, RFUI, MIRROR_PAGE,
#   AUTH0), CFG1 (ACCESS, RFUI x3), PWD, PACK (PACK0, PACK1, RFUI x2);
#   NTAG213: 45 pages, CFG0 at 29h; NTAG215: 135 pages, 83h; NTAG216: 231 pages, E3h;
# - GET_VERSION (60h): 00 04 04 02 01 00 <0F|11|13> 03;
# - READ (30h, page): 16 bytes from that page, rolling over to page 0 past the last one;
#   PWD and PACK always read as 00h; an address past the last page is refused (NAK);
# - FAST_READ (3Ah, start, end): the pages from start to end, 4 bytes each, no roll-over:
#   refused (NAK) when start > end or end is past the last page, and, with PROT set and not
#   authenticated, when the range reaches AUTH0;
# - WRITE (A2h, page, 4 bytes): ACK (Ah) or NAK. Refused: pages 0-1, past the last page,
#   a page from AUTH0 on while not authenticated, a page whose static lock bit is set (L3
#   to L15 in page 2's bytes 2 and 3), CFG0/CFG1 once CFGLCK is set. Page 2 only sets
#   lock bits, the CC and the dynamic lock bytes are one-time programmable: a write can
#   set their bits, never clear one;
# - PWD_AUTH (1Bh, 4 bytes): PACK when the password is PWD, else NAK. Authenticated lasts
#   until the tag is activated again;
# - the configuration (AUTH0, PROT, CFGLCK) takes effect when the tag is activated (listed
#   by a reader), not when it is written: a real tag keeps writing in the session that set
#   AUTH0 (as seen on genuine NTAG215s), so a writer can protect a tag in one session;
# - after a NAK the tag answers nothing until it is activated again (its IDLE state).
#
# Not modelled: AUTHLIM (the table leaves it at 0, unlimited tries), the dynamic lock bits'
# effect (the table never sets them and, behind AUTH0, nobody else can), the NFC counter,
# the originality signature.

ACK = b"\x0a"
NAK = b"\x00"

GET_VERSION = 0x60
READ = 0x30
FAST_READ = 0x3A
WRITE = 0xA2
PWD_AUTH = 0x1B

# kind -> (GET_VERSION's storage size byte, pages, the CC's size byte)
KINDS = {"NTAG213": (0x0F, 45, 0x12), "NTAG215": (0x11, 135, 0x3E), "NTAG216": (0x13, 231, 0x6D)}


def unhex(text):
    return bytes(int(text[i:i + 2], 16) for i in range(0, len(text), 2))


def ndef_text_memory(text, language="en"):
    """User memory from page 4 holding one NDEF text record and the terminator, in whole
    pages (an empty NDEF message for None)."""
    if text is None:
        tlv = b"\x03\x00\xfe"
    else:
        payload = bytes([len(language)]) + language.encode() + text.encode()
        record = bytes([0xD1, 0x01, len(payload)]) + b"T" + payload
        if len(record) < 0xFF:
            tlv = bytes([0x03, len(record)]) + record + b"\xfe"
        else:
            tlv = bytes([0x03, 0xFF, len(record) >> 8, len(record) & 0xFF]) + record + b"\xfe"
    return tlv + bytes((4 - len(tlv) % 4) % 4)


class Ntag:
    def __init__(self, uid_hex, kind="NTAG213", memory=None):
        size, pages, cc_size = KINDS[kind]
        self.kind = kind
        self.size_byte = size
        self.pages = pages
        self.cfg = pages - 4                       # CFG0; CFG1, PWD and PACK follow
        uid = unhex(uid_hex)
        self.uid = uid
        mem = bytearray(pages * 4)
        mem[0:len(uid[:8])] = uid[:8]
        mem[12:16] = bytes([0xE1, 0x10, cc_size, 0x00])          # CC: NDEF 1.0, read and write
        user = memory if memory is not None else ndef_text_memory(None)
        user = bytes(user)[:self.user_bytes]
        mem[16:16 + len(user)] = user
        mem[(self.cfg - 1) * 4 + 3] = 0xBD                        # the dynamic lock page's RFUI byte
        mem[self.cfg * 4:self.cfg * 4 + 8] = bytes([0x04, 0x00, 0x00, 0xFF, 0x00, 0x00, 0x00, 0x00])
        mem[(self.cfg + 2) * 4:(self.cfg + 3) * 4] = b"\xff\xff\xff\xff"     # PWD, as it comes
        self.memory = mem
        self.active = False
        self.authenticated = False
        self.auth0 = 0xFF                          # the configuration in effect since activation
        self.cfglck = False
        self.prot = False

    @property
    def user_bytes(self):
        return (self.cfg - 1 - 4) * 4

    def page(self, n):
        return bytes(self.memory[n * 4:n * 4 + 4])

    def user_memory(self):
        """What a reader finds from page 4 on (the NDEF message), as the datasheet lays it out."""
        return bytes(self.memory[16:16 + self.user_bytes])

    @property
    def protected(self):
        """Whether writing needs the password from the next activation on (AUTH0 written)."""
        return self.memory[self.cfg * 4 + 3] <= self.pages - 1

    def activate(self):
        """A reader lists the tag (REQA/WUPA, anticollision, select): the configuration
        written so far takes effect, and authentication starts again."""
        self.active = True
        self.authenticated = False
        self.auth0 = self.memory[self.cfg * 4 + 3]
        access = self.memory[(self.cfg + 1) * 4]
        self.prot = bool(access & 0x80)
        self.cfglck = bool(access & 0x40)

    def command(self, data):
        """One command (without its CRC) -> the tag's answer: bytes, ACK, NAK, or None
        when it does not answer (not activated, or silent after a NAK)."""
        if not self.active or not data:
            return None
        code = data[0]
        answer = NAK
        if code == GET_VERSION and len(data) == 1:
            answer = bytes([0x00, 0x04, 0x04, 0x02, 0x01, 0x00, self.size_byte, 0x03])
        elif code == READ and len(data) == 2:
            answer = self._read(data[1])
        elif code == FAST_READ and len(data) == 3:
            answer = self._fast_read(data[1], data[2])
        elif code == WRITE and len(data) == 6:
            answer = ACK if self._write(data[1], bytes(data[2:6])) else NAK
        elif code == PWD_AUTH and len(data) == 5:
            if bytes(data[1:5]) == self.page(self.cfg + 2):
                self.authenticated = True
                answer = self.page(self.cfg + 3)[:2]
        if answer == NAK:
            self.active = False                    # IDLE: silent until activated again
        return answer

    def _read(self, start):
        if start >= self.pages or (self.prot and start >= self.auth0 and not self.authenticated):
            return NAK
        out = bytearray()
        for i in range(4):
            n = (start + i) % self.pages
            if n in (self.cfg + 2, self.cfg + 3) or (self.prot and n >= self.auth0 and not self.authenticated):
                out += bytes(4)                    # PWD and PACK are never read back
            else:
                out += self.page(n)
        return bytes(out)

    def _fast_read(self, start, end):
        if start > end or end >= self.pages or (self.prot and end >= self.auth0 and not self.authenticated):
            return NAK
        out = bytearray()
        for n in range(start, end + 1):
            out += bytes(4) if n in (self.cfg + 2, self.cfg + 3) else self.page(n)
        return bytes(out)

    def _locked(self, n):
        if 3 <= n <= 7:
            return bool(self.memory[10] & (1 << n))
        if 8 <= n <= 15:
            return bool(self.memory[11] & (1 << (n - 8)))
        return False

    def _write(self, n, data):
        if n < 2 or n >= self.pages or self._locked(n):
            return False
        if n >= self.auth0 and not self.authenticated:
            return False
        if n in (self.cfg, self.cfg + 1) and self.cfglck:
            return False
        at = n * 4
        if n == 2:                                 # only the lock bits, and only set
            self.memory[at + 2] |= data[2]
            self.memory[at + 3] |= data[3]
        elif n == 3 or n == self.cfg - 1:          # one-time programmable
            for i in range(4):
                self.memory[at + i] |= data[i]
        else:
            self.memory[at:at + 4] = data
        return True


# -- the tag behind a PN532 ------------------------------------------------------------------------
# What the PN532 answers when the host talks to a tag through it: InDataExchange (40h, Tg,
# command) for READ and WRITE, InCommunicateThru (42h, command) for the rest (GET_VERSION,
# PWD_AUTH). The answer starts with the response code and a status byte: 00 when the tag
# answered; an error status when it NAKed (14h here; the firmware takes any non-zero status
# as a refusal, so the exact code a real PN532 gives a NAK does not matter to it; nfcpy's
# pn53x driver notes the chip reports a Type 2 NAK as a CRC error, and hands it back as
# data with the CRC check off, which the firmware's checks try too) or said nothing (01h, a
# timeout, given when the chip's own wait for the card is up: hardware/sim/pn532_chip.py).

PN532_NAK_STATUS = 0x14
PN532_TIMEOUT_STATUS = 0x01


def pn532_exchange(tag, command):
    """A PN532 command (code first, without TFI) sent to the tag on the reader (or None,
    no tag) -> the PN532's response data (response code first)."""
    code = command[0]
    data = command[2:] if code == 0x40 else command[1:]
    answer = tag.command(data) if tag is not None else None
    if answer is None:
        return bytes([code + 1, PN532_TIMEOUT_STATUS])
    if answer == NAK:
        return bytes([code + 1, PN532_NAK_STATUS])
    if answer == ACK:
        return bytes([code + 1, 0x00])
    return bytes([code + 1, 0x00]) + answer
