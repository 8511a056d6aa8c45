// One station on emulated silicon: MicroPython's rp2 port (the image a Pico runs) on
// rp2040js, Wokwi's RP2040 emulator, wired as firmware/config.py wires a station. Started by
// hardware/sim/rp2040_station.py:
//   node station.mjs <spec JSON>
// spec: image (a UF2), bootrom (the RP2040's B1 mask ROM, 16 KB), uid (8 bytes as hex: what
// the flash chip answers to 4Bh, machine.unique_id()), flash_in/flash_out (the flash's
// contents to start from and to leave behind), usb_in_fd (what the host writes to the USB
// port, a pipe; what the Pico sends goes to stdout, {"usb": hex}, with {"usb": "gone"} at a
// reset and {"usb": "up"} once the new boot's USB is configured: the host's side plugs its
// pseudo-terminal out and in again, as a Pico's port goes away and comes back),
// control_fd (JSON commands from the host, one a line), chip_req_fd/chip_ans_fd (the PN532
// model, hardware/sim/rp2040_pn532.py, asked over two pipes), paced (emulated time no faster than
// the host's), pins (config.py's BUTTON_PINS, LED_PIN, BUZZER_PIN, I2C_ID/SDA/SCL).
//
// Time is the emulator's own: the core's cycles at 125 MHz (rp2040js's SimulationClock).
// Every figure this process reports is counted in it, and the PN532 is asked in it: the
// emulator stands still while the model answers, so a loaded host changes nothing a test
// can see except how long the wall clock takes.
//
// What is emulated around rp2040js (which leaves these to its user):
// - the QSPI flash chip behind the SSI (a W25Q16JV's commands the mask ROM's flash functions
//   and pico-sdk send: write enable, page program, sector/block/chip erase, status, read,
//   unique id, JEDEC id), so that MicroPython's littlefs, and so mpremote's files, persist;
//   the chip select is the IO_QSPI SS pin's output override, as the mask ROM drives it;
// - the I2C target: the PN532 at 24h, each byte taking its bits at the SCL the controller
//   is set to (``i2c_bits_per_byte`` of hardware/data/pn532_timing.json);
// - a reset (watchdog, machine.reset()): a new chip, the flash kept, USB on the same pty;
// - USB's host side sends an OUT packet only when it has bytes for the Pico, as a real host
//   does (rp2040js's USBCDC answers every OUT buffer the Pico arms at once, empty).
// While the core sleeps (WFE/WFI) the clock skips to the next alarm (asleep_ns counts it).
import { readFileSync, readSync, writeSync, writeFileSync } from "node:fs";

const spec = JSON.parse(process.argv[2]);
const { GPIOPinState, I2CMode, Simulator, USBCDC } = await import(spec.rp2040js);

const NS_PER_CYCLE = 1e9 / 125_000_000;
const SLICE_NS = 1_000_000;                 // emulated time between two looks at the host's pipes
const FLASH_START = 0x10000000;
const FLASH_SIZE = 2 * 1024 * 1024;
const ADDRESS = 0x24;
const MASK = (1 << 30) - 1;
const HAND_GAP_US = 30_000;                 // one hand: the next press or card this long after the last
const IRQ_PATTERNS = [[0, 5, 40, 300, 900], [0, 60, 200], [0, 3, 700], [0]];   // a contact's bounces, us

const pins = spec.pins;
const bootrom = new Uint32Array(new Uint8Array(readFileSync(spec.bootrom)).buffer);
let flash = null;                           // the flash's contents across resets
const scratch = Buffer.alloc(4096);

// -- the host's pipes ---------------------------------------------------------------------------
function tryRead(fd) {
  try {
    return readSync(fd, scratch, 0, scratch.length, null);
  } catch (err) {
    if (err.code === "EAGAIN" || err.code === "EWOULDBLOCK" || err.code === "EIO") return -1;
    throw err;
  }
}

function report(object) {
  writeSync(1, JSON.stringify(object) + "\n");
}

let chipPending = "";
function ask(line) {
  // The PN532 model, asked while the emulator stands still; its answer is one line.
  writeSync(spec.chip_req_fd, line + "\n");
  for (;;) {
    const cut = chipPending.indexOf("\n");
    if (cut >= 0) {
      const answer = chipPending.slice(0, cut);
      chipPending = chipPending.slice(cut + 1);
      return answer;
    }
    const n = readSync(spec.chip_ans_fd, scratch, 0, scratch.length, null);
    if (n === 0) throw new Error("the PN532 model ended");
    chipPending += scratch.subarray(0, n).toString("latin1");
  }
}
function tell(line) {
  writeSync(spec.chip_req_fd, line + "\n");
}

// -- the chip ---------------------------------------------------------------------------------------
let sim, mcu, clock, cdc;
let boots = 0;
let bootNs = 0;                               // emulated time of the boots before this one
let usbIn = Buffer.alloc(0);                  // bytes from the host the CDC's FIFO has no room for yet
let line = [];                                // the line USB is sending, for the figures

function nowNs() {
  return bootNs + clock.nanos;
}
function nowUs() {
  return Math.floor(nowNs() / 1000);
}
function ticksUs() {
  // the RP2040's timer as the firmware reads it (time.ticks_us), which starts at each boot
  return Math.floor(clock.nanos / 1000) & MASK;
}
function at(delayNs, callback) {
  const alarm = clock.createAlarm(callback);
  alarm.schedule(delayNs);
  return alarm;
}

function boot() {
  if (sim) bootNs += clock.nanos;
  sim = new Simulator();
  mcu = sim.rp2040;
  clock = sim.clock;
  mcu.loadBootrom(bootrom);                   // (also fills the flash with FFh)
  if (flash === null) {
    flash = mcu.flash;
    if (spec.flash_in) flash.set(new Uint8Array(readFileSync(spec.flash_in)));
    else loadUF2(spec.image);
  } else {
    mcu.flash.set(flash);
    flash = mcu.flash;
  }
  mcu.logger = { debug() {}, info() {}, warn() {}, error() {} };
  wireFlashChip();
  wireI2C();
  wirePins();
  const watchdog = mcu.peripherals[0x40058];
  watchdog.onWatchdogTrigger = () => { resetPending = true; sim.stop(); };
  const watchdogWrite = watchdog.writeUint32.bind(watchdog);
  watchdog.writeUint32 = (offset, value) => {
    if (offset === 0x04) passDone();          // LOAD: the firmware's loop feeds it once a pass
    watchdogWrite(offset, value);
  };
  cdc = new USBCDC(mcu.usbCtrl);
  pendingOut = null;
  mcu.usbCtrl.onEndpointRead = (endpoint, size) => {
    // the Pico armed its OUT endpoint: a host sends into it only when it has bytes (rp2040js's
    // USBCDC answers at once with an empty packet, and TinyUSB arms it again: an interrupt
    // every few tens of microseconds that a real USB host never causes, and that would keep
    // the core from ever sleeping)
    if (endpoint === cdc.outEndpoint) { pendingOut = size; hostOut(); }
  };
  cdc.onSerialData = (data) => usbSent(data);
  cdc.onDeviceConnected = () => report({ usb: "up" });
  mcu.core.PC = FLASH_START;                  // as rp2040js's demo: boot2 at the flash's start, then the image
  boots += 1;
}
let resetPending = false;

function loadUF2(path) {
  const uf2 = readFileSync(path);
  for (let offset = 0; offset + 512 <= uf2.length; offset += 512) {
    const block = uf2.subarray(offset, offset + 512);
    if (block.readUInt32LE(0) !== 0x0a324655 || block.readUInt32LE(4) !== 0x9e5d5157) continue;
    const address = block.readUInt32LE(12);
    const size = block.readUInt32LE(16);
    flash.set(block.subarray(32, 32 + size), address - FLASH_START);
  }
}

// -- the flash chip ---------------------------------------------------------------------------------
const uid = Buffer.from(spec.uid, "hex");
function wireFlashChip() {
  const ssi = mcu.peripherals[0x18000];
  const DR0 = 0x60;
  let selected = false;                       // the SS pin forced low
  let command = [];                           // the bytes since it went low
  let rx = [];
  let writeEnabled = false;
  // the SSI's FIFOs as the mask ROM and pico-sdk use them to talk to the chip directly:
  // every byte written to DR0 brings one back (the chip's answer while it is selected)
  const SSIENR = 0x08, TXFLR = 0x20, RXFLR = 0x24, SR = 0x28;
  const ssiWrite = ssi.writeUint32.bind(ssi);
  const ssiRead = ssi.readUint32.bind(ssi);
  ssi.writeUint32 = (offset, value) => {
    if (offset === SSIENR && !(value & 1)) rx = [];          // disabling the SSI empties its FIFOs
    if (offset !== DR0) return ssiWrite(offset, value);
    let answer = 0;
    if (selected) {
      command.push(value & 0xff);
      answer = flashByte(command);
    }
    if (rx.length < 16) rx.push(answer);
  };
  ssi.readUint32 = (offset) => {
    switch (offset) {
      case DR0: return rx.length ? rx.shift() : 0;
      case TXFLR: return 0;                   // each byte goes out at once
      case RXFLR: return rx.length;
      case SR: return 0x06 | (rx.length ? 0x08 : 0);          // TFNF, TFE, RFNE when it holds some; never BUSY
      default: return ssiRead(offset);
    }
  };
  function address(c) {
    return (c[1] << 16) | (c[2] << 8) | c[3];
  }
  function flashByte(c) {
    const code = c[0];
    const i = c.length - 1;                   // this byte's place in the command
    switch (code) {
      case 0x05: return 0x00 | (writeEnabled ? 0x02 : 0);     // status 1: never busy
      case 0x35: return 0x02;                                 // status 2: QE set
      case 0x9f: return [0, 0xef, 0x40, 0x15][Math.min(i, 3)];
      case 0x4b: return i >= 5 && i < 13 ? uid[i - 5] : 0;
      case 0x03: return i >= 4 ? flash[(address(c) + i - 4) % flash.length] : 0;
      case 0x0b: return i >= 5 ? flash[(address(c) + i - 5) % flash.length] : 0;
      case 0x02:
        if (i >= 4 && writeEnabled) {
          const a = address(c);
          const at = (a & ~0xff) | ((a + i - 4) & 0xff);     // a page program wraps within its page
          flash[at] &= c[i];
        }
        return 0;
      default: return 0;
    }
  }
  function deselect() {
    const c = command;
    command = [];
    if (!c.length) return;
    const erase = { 0x20: 4096, 0x52: 32768, 0xd8: 65536 }[c[0]];
    if (c[0] === 0x06) { writeEnabled = true; return; }
    if (c[0] === 0x04) { writeEnabled = false; return; }
    if (erase && c.length >= 4 && writeEnabled) {
      const start = address(c) & ~(erase - 1);
      flash.fill(0xff, start, start + erase);
    } else if ((c[0] === 0xc7 || c[0] === 0x60) && writeEnabled) {
      flash.fill(0xff);
    }
    if (erase || c[0] === 0x02 || c[0] === 0xc7 || c[0] === 0x60) writeEnabled = false;
  }
  // IO_QSPI: the SS pin's CTRL (offset 0x0c) holds its output override, 2 low and 3 high
  const qspi = {
    ctrl: [0, 0, 0, 0, 0, 0],
    readUint32(offset) { return offset & 4 ? this.ctrl[offset >> 3] ?? 0 : 0; },
    writeUint32(offset, value) {
      if (!(offset & 4)) return;
      this.ctrl[offset >> 3] = value;
      if (offset === 0x0c) {
        const low = ((value >> 8) & 3) === 2;
        if (selected && !low) deselect();
        if (!selected && low) command = [];
        selected = low;
      }
    },
    writeUint32Atomic(offset, value, atomicType) {
      const old = this.readUint32(offset);
      const next = atomicType === 1 ? old ^ value : atomicType === 2 ? old | value : atomicType === 3 ? old & ~value : value;
      this.writeUint32(offset, next);
    },
  };
  mcu.peripherals[0x40018] = qspi;
}

// -- the reader on I2C --------------------------------------------------------------------------------
let transfer = null;                          // the transfer under way: {write, bytes} or {read, offered, count}
const bitsPerByte = spec.i2c_bits_per_byte;
function wireI2C() {
  const i2c = mcu.i2c[pins.I2C_ID];
  const bitNs = () => (i2c.sclLowPeriod + i2c.sclHighPeriod) * NS_PER_CYCLE;
  i2c.onStart = () => {
    finishTransfer(false);
    at(bitNs(), () => i2c.completeStart());
  };
  i2c.onConnect = (addr, mode) => {
    const byteNs = bitsPerByte * bitNs();
    if (addr !== ADDRESS || !spec.reader) {
      at(byteNs, () => i2c.completeConnect(false));
      return;
    }
    let ack;
    if (mode === I2CMode.Read) {
      const answer = ask(`R ${ticksUs()}`).split(" ");
      ack = answer[0] === "1";
      transfer = ack ? { read: true, offered: Buffer.from(answer[2] ?? "", "hex"), count: 0, stretch: Number(answer[1]) } : null;
    } else {
      const answer = ask(`A ${ticksUs()}`).split(" ");
      ack = answer[0] === "1";
      transfer = ack ? { read: false, bytes: [], stretch: Number(answer[1]) } : null;
    }
    at(byteNs + (transfer ? transfer.stretch * 1000 : 0), () => i2c.completeConnect(ack));
  };
  i2c.onWriteByte = (value) => {
    if (transfer && !transfer.read) transfer.bytes.push(value);
    at(bitsPerByte * bitNs(), () => i2c.completeWrite(true));
  };
  i2c.onReadByte = () => {
    let value = 0;
    if (transfer && transfer.read) {
      value = transfer.offered[transfer.count] ?? 0;
      transfer.count += 1;
    }
    at(bitsPerByte * bitNs(), () => i2c.completeRead(value));
  };
  i2c.onStop = () => {
    finishTransfer(true);
    at(bitNs(), () => i2c.completeStop());
  };
}
function finishTransfer() {
  const t = transfer;
  transfer = null;
  if (t === null) return;
  if (t.read) tell(`E ${ticksUs()} ${t.count}`);
  else tell(`W ${ticksUs()} ${Buffer.from(t.bytes).toString("hex") || "-"}`);
}

// -- pins: buttons, the LED, the buzzer ----------------------------------------------------------------
const led = { rgb: [0, 0, 0], frames: 0, bits: [], highAt: null, lastEdge: 0 };
const buzzer = { edges: 0, since: 0, hz: 0, lastEdgeNs: 0, tones: 0 };
function wirePins() {
  for (const pin of pins.BUTTON_PINS) mcu.gpio[pin].setInputValue(true);   // open contacts, pulled up
  if (pins.LED_PIN !== null) {
    mcu.gpio[pins.LED_PIN].addListener((state) => ledEdge(state === GPIOPinState.High));
  }
  if (pins.BUZZER_PIN !== null) {
    mcu.gpio[pins.BUZZER_PIN].addListener((state) => buzzerEdge(state === GPIOPinState.High));
  }
}
function ledEdge(high) {
  // a WS2812's bit: high 0.4 us for a 0, 0.8 us for a 1; low more than 50 us latches the 24 bits
  const t = clock.nanos;
  if (high) {
    if (led.highAt !== null && t - led.lastEdge > 50_000) led.bits = [];
    led.highAt = t;
  } else if (led.highAt !== null) {
    led.bits.push(t - led.highAt > 600 ? 1 : 0);
    led.highAt = null;
    if (led.bits.length === 24) {
      const byte = (k) => led.bits.slice(8 * k, 8 * k + 8).reduce((v, b) => (v << 1) | b, 0);
      led.rgb = [byte(1), byte(0), byte(2)];   // sent green, red, blue
      led.frames += 1;
      led.bits = [];
    }
  }
  led.lastEdge = t;
}
function buzzerEdge(high) {
  if (!high) return;
  const t = nowNs();
  if (t - buzzer.lastEdgeNs > 20_000_000) { buzzer.edges = 0; buzzer.since = t; buzzer.tones += 1; }
  buzzer.edges += 1;
  if (buzzer.edges > 1) buzzer.hz = Math.round((buzzer.edges - 1) * 1e9 / (t - buzzer.since));
  buzzer.lastEdgeNs = t;
}

// -- USB --------------------------------------------------------------------------------------------------
const figures = { press_to_usb_us: [], tag_to_usb_us: [], tap_to_tag_us: [], pass_us: [], stat: [] };
let asleepNs = 0;                              // emulated time the core spent asleep (WFE/WFI): skipped, not run
let lastFeedNs = null;
let asleepAtFeedNs = 0;
let passes = 0;                                // the watchdog's feeds: the loop's passes
let tapAtNs = null;                            // when the card under way was laid down
function passDone() {
  // a pass: the core's time between two feeds, less what it slept (the firmware rests
  // between passes while it has nothing to do: Firmware.rest)
  const t = clock.nanos;
  passes += 1;
  if (lastFeedNs !== null) keep(figures.pass_us, Math.round((t - lastFeedNs - (asleepNs - asleepAtFeedNs)) / 1000));
  lastFeedNs = t;
  asleepAtFeedNs = asleepNs;
}
const seen = { tags: 0, gones: 0 };
function keep(ring, value) {
  ring.push(value);
  if (ring.length > 2000) ring.shift();
}
function usbSent(data) {
  report({ usb: Buffer.from(data).toString("hex") });
  for (const b of data) {
    if (b !== 10) { line.push(b); continue; }
    const parts = Buffer.from(line).toString("latin1").trim().split(" ");
    line = [];
    const now = ticksUs();
    const since = (stamp) => (((now - Number(stamp)) + (1 << 29)) & MASK) - (1 << 29);
    if (parts[0] === "BTN" && parts[3] === "D") keep(figures.press_to_usb_us, since(parts[4]));
    if (parts[0] === "TAG") {
      keep(figures.tag_to_usb_us, since(parts[3]));
      if (tapAtNs !== null) keep(figures.tap_to_tag_us, Math.round((nowNs() - tapAtNs) / 1000));
      tapAtNs = null;
      seen.tags += 1;
      tagOut();
    }
    if (parts[0] === "STAT") {               // loop_us=… free=…: the firmware's own figures
      const fields = Object.fromEntries(parts.slice(1).filter((f) => f.includes("=")).map((f) => f.split("=")));
      keep(figures.stat, { at_ns: nowNs(), loop_us: Number(fields.loop_us), free: Number(fields.free),
                           gc_us: Number(fields.gc_us) });
    }
    if (parts[0] === "GONE") seen.gones += 1;
    if (parts[0] === "HELLO") report({ hello: true, emulated_ns: nowNs() });
  }
}
let pendingOut = null;                        // the OUT buffer the Pico armed (its size), until the host has bytes
function moveUsb() {
  if (!usbIn.length) {
    const n = tryRead(spec.usb_in_fd);
    if (n > 0) usbIn = Buffer.from(scratch.subarray(0, n));
  }
  const fifo = cdc.txFIFO;
  let k = 0;
  while (k < usbIn.length && fifo.itemCount < fifo.size) cdc.sendSerialByte(usbIn[k++]);
  usbIn = usbIn.subarray(k);
  hostOut();
}
function hostOut() {
  // the host's next OUT packet, into the buffer the Pico armed, once it has bytes for it
  const fifo = cdc.txFIFO;
  if (pendingOut === null || !fifo.itemCount) return;
  const packet = new Uint8Array(Math.min(pendingOut, fifo.itemCount));
  for (let i = 0; i < packet.length; i++) packet[i] = fifo.pull();
  pendingOut = null;
  mcu.usbCtrl.endpointReadDone(cdc.outEndpoint, packet);
}

// -- a person's hands -------------------------------------------------------------------------------------
const hands = [];                              // what the host asked, done one after another
let handFreeAt = 0;                            // emulated ns
let waitingFor = null;                         // a tap's card: {tags, gones, liftNs, lift_ms}
let seed = 1;
function tagOut() {
  if (waitingFor && waitingFor.liftAt === null && seen.tags > waitingFor.tags) {
    waitingFor.liftAt = nowNs() + waitingFor.lift_ms * 1e6;
    if (!waitingFor.lift_ms) waitingFor = null;
  }
}
function useHands() {
  const now = nowNs();
  if (waitingFor) {
    if (waitingFor.liftAt !== null && now >= waitingFor.liftAt && !waitingFor.lifted) {
      tell(`L ${ticksUs()}`);
      waitingFor.lifted = true;
    }
    if (waitingFor.lifted && seen.gones > waitingFor.gones) { waitingFor = null; handFreeAt = now + HAND_GAP_US * 1000; }
    if (waitingFor) return;
  }
  while (hands.length && now >= handFreeAt && !waitingFor) {
    const c = hands.shift();
    if (c.do === "press") {
      const pin = mcu.gpio[pins.BUTTON_PINS[c.button]];
      const hold = c.hold_us ?? 80_000;
      bounce(pin, 0, false);
      if (c.release !== false) bounce(pin, hold * 1000, true);
      handFreeAt = now + ((c.release !== false ? hold : 0) + HAND_GAP_US) * 1000;
    } else if (c.do === "tap") {
      tell(`T ${ticksUs()} ${c.uid} ${c.text === null || c.text === undefined ? "-" : Buffer.from(c.text, "utf8").toString("hex")}`);
      tapAtNs = nowNs();
      waitingFor = { tags: seen.tags, gones: seen.gones, liftAt: null, lift_ms: c.lift_ms ?? 150, lifted: false };
    } else if (c.do === "lift") {
      tell(`L ${ticksUs()}`);
    }
  }
}
function bounce(pin, delayNs, open) {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  const pattern = IRQ_PATTERNS[seed % IRQ_PATTERNS.length];
  pattern.forEach((offsetUs, i) => {
    const level = i % 2 === 0 ? open : !open;
    const apply = () => pin.setInputValue(level);
    if (delayNs + offsetUs * 1000 === 0) apply();
    else at(delayNs + offsetUs * 1000, apply);
  });
}

let controlPending = "";
function control() {
  const n = tryRead(spec.control_fd);
  if (n === 0) finish();                       // the host closed the pipe: unplugged
  if (n > 0) controlPending += scratch.subarray(0, n).toString("utf8");
  const cut = controlPending.lastIndexOf("\n");
  if (cut < 0) return;
  const lines = controlPending.slice(0, cut).split("\n");
  controlPending = controlPending.slice(cut + 1);
  for (const text of lines) {
    if (!text) continue;
    const c = JSON.parse(text);
    if (c.do === "stats") report(stats());
    else if (c.do === "run") runFor = c.ms * 1e6;          // unpaced: run this much emulated time, then say so
    else hands.push(c);
  }
}
function stats() {
  const chip = JSON.parse(ask("S"));
  return {
    emulated_ns: nowNs(), asleep_ns: asleepNs, passes, boots, ...figures, ...chip, led: led.rgb, led_frames: led.frames,
    buzzer_hz: buzzer.hz, tones: buzzer.tones, waiting: hands.length + (waitingFor ? 1 : 0),
    seen,
  };
}

function finish() {
  if (spec.flash_out) writeFileSync(spec.flash_out, flash.subarray(0, FLASH_SIZE));   // a Pico's 2 MB
  process.exit(0);
}
process.on("SIGTERM", finish);

// -- the run -----------------------------------------------------------------------------------------------
let runFor = null;
const startedWall = process.hrtime.bigint();
function slice() {
  control();
  useHands();
  moveUsb();
  let target = clock.nanos + SLICE_NS;
  let caughtUp = false;                       // paced: emulated time has reached the host's
  if (spec.paced) {
    const wall = Number(process.hrtime.bigint() - startedWall) - bootNs;
    if (wall < target) { target = Math.max(clock.nanos, wall); caughtUp = true; }
  }
  sim.stopped = false;
  const core = mcu.core;
  while (clock.nanos < target && !sim.stopped) {
    if (core.waiting) {
      // asleep (WFE/WFI): on to the next alarm (a timer, a bus byte, a contact's bounce), or
      // to the slice's end when none is set (nanosToNextAlarm is 0 then)
      const skip = clock.nextAlarm ? Math.min(clock.nanosToNextAlarm, target - clock.nanos) : target - clock.nanos;
      clock.tick(skip);
      asleepNs += skip;
    } else {
      clock.tick(core.executeInstruction() * NS_PER_CYCLE);
    }
  }
  if (resetPending) {
    resetPending = false;
    report({ usb: "gone" });
    usbIn = Buffer.alloc(0);
    boot();
  }
  if (runFor !== null) {
    runFor -= SLICE_NS;
    if (runFor <= 0) { runFor = null; report({ ran: true, emulated_ns: nowNs() }); }
  }
  if (caughtUp) setTimeout(slice, 1);
  else setImmediate(slice);
}

boot();
report({ started: true, boots });
slice();
