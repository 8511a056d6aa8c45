// One simulated station: the project's firmware/ files under real MicroPython (the
// WebAssembly build from npm) on the simulated Pico of board.py, its USB on a
// pseudo-terminal the table opens like any station's. Started by hardware/sim/firmware_station.py:
//   node station.mjs <micropython.mjs> <usb fd> <control fd> <spec JSON>
// The USB fd is the pseudo-terminal's master side and the control fd the read end of a pipe
// from the host process (one JSON command a line: press, tap, lift, stats); both are
// non-blocking, so the firmware's loop never waits on them. Reports go to stdout, one JSON
// line each. The process ends when the control pipe closes.
import { readFileSync, readdirSync, readSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const [moduleFile, usbArg, controlArg, specJson] = process.argv.slice(2);
const usb = Number(usbArg);
const control = Number(controlArg);
const spec = JSON.parse(specJson);
const here = dirname(fileURLToPath(import.meta.url));
const sim = join(here, "..");                 // hardware/sim: the chip and card models
const hardware = join(sim, "..");
const { loadMicroPython } = await import(pathToFileURL(moduleFile).href);

const wake = new Int32Array(new SharedArrayBuffer(4));
const buffer = Buffer.alloc(4096);
let pending = "";

function tryRead(fd, max) {
  try {
    return readSync(fd, buffer, 0, Math.min(max, buffer.length), null);
  } catch (err) {
    if (err.code === "EAGAIN" || err.code === "EWOULDBLOCK") return -1;
    if (err.code === "EIO") return -1;            // nobody has the port open: nothing to read
    throw err;
  }
}

globalThis.ticksUs = () => Number((process.hrtime.bigint() / 1000n) % (1n << 30n));
globalThis.ticksMs = () => Number((process.hrtime.bigint() / 1000000n) % (1n << 30n));
globalThis.sleepUs = (us) => { if (us > 0) Atomics.wait(wake, 0, 0, us / 1000); };
globalThis.usbRead = (max) => {
  const n = tryRead(usb, max);
  return n > 0 ? buffer.subarray(0, n).toString("hex") : "";
};
globalThis.usbWrite = (hex) => {
  const data = Buffer.from(hex, "hex");
  try {
    return writeSync(usb, data);
  } catch (err) {
    if (err.code === "EAGAIN" || err.code === "EWOULDBLOCK" || err.code === "EIO") return 0;
    throw err;
  }
};
globalThis.control = () => {
  const n = tryRead(control, buffer.length);
  if (n === 0) process.exit(0);                   // the host process closed the pipe: unplugged
  if (n > 0) pending += buffer.subarray(0, n).toString("utf8");
  const cut = pending.lastIndexOf("\n");
  if (cut < 0) return "";
  const lines = pending.slice(0, cut + 1);
  pending = pending.slice(cut + 1);
  return lines;
};
globalThis.report = (json) => { writeSync(1, json + "\n"); };

const mp = await loadMicroPython({
  heapsize: 2 * 1024 * 1024,
  stdout: (line) => process.stderr.write(line + "\n"),
  stderr: (line) => process.stderr.write(line + "\n"),
});
mp.FS.mkdir("/board");
const firmware = spec.firmware_dir;
for (const name of readdirSync(firmware)) {
  if (name.endsWith(".py")) mp.FS.writeFile("/board/" + name, readFileSync(join(firmware, name)));
}
for (const name of readdirSync(here)) {
  if (name.endsWith(".py")) mp.FS.writeFile("/board/" + name, readFileSync(join(here, name)));
}
for (const name of ["ntag.py", "pn532_chip.py"]) {
  mp.FS.writeFile("/board/" + name, readFileSync(join(sim, name)));
}
// a real chip's figures (the bring-up probe's file) in place of the shipped ones, when named
mp.FS.writeFile("/board/pn532_timing.json", readFileSync(process.env.SPIELTISCH_PN532_TIMING ||
                                                         join(hardware, "data", "pn532_timing.json")));
try {
  mp.runPython(`import sys\nsys.path.insert(0, "/board")\nimport board\nboard.start(${JSON.stringify(specJson)})`);
} catch (err) {
  process.stderr.write(`station ${spec.uid}: ${String(err.message || err).split("\n").slice(-3).join(" ")}\n`);
  process.exit(1);
}
