// Runs check_firmware.py under MicroPython's WebAssembly build: the firmware's files, the
// simulated Pico below them (hardware/sim/pico: machine, neopixel), the simulated PN532 with its
// timing and the NTAG model (hardware/), the checks' own helpers (fakes/) and the shared
// test vectors are copied into MicroPython's in-memory file system first. Exit code 0 only
// if every check passed. Usage: node tests/mpy/run.mjs
// (CHECKS=a,b node tests/mpy/run.mjs: only the checks a and b)
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
// the host's microseconds, for the simulated chip and the checks: this MicroPython's own
// ticks_us counts whole milliseconds (ports/webassembly/mphalport.c)
const wake = new Int32Array(new SharedArrayBuffer(4));
globalThis.ticksUs = () => Number((process.hrtime.bigint() / 1000n) % (1n << 30n));
globalThis.sleepUs = (us) => { if (us > 0) Atomics.wait(wake, 0, 0, us / 1000); };
let out = "";
const mp = await loadMicroPython({
  heapsize: 8 * 1024 * 1024,
  stdout: (line) => { out += line + "\n"; process.stdout.write(line + "\n"); },
  stderr: (line) => process.stderr.write(line + "\n"),
});

function copyDir(from, to, ending) {
  mp.FS.mkdir(to);
  for (const name of readdirSync(from)) {
    if (name.endsWith(ending)) mp.FS.writeFile(join(to, name), readFileSync(join(from, name)));
  }
}
copyDir(join(root, "firmware"), "/firmware", ".py");
copyDir(join(here, "fakes"), "/fakes", ".py");
for (const name of readdirSync(join(root, "hardware", "sim", "pico"))) {
  if (name.endsWith(".py")) mp.FS.writeFile("/fakes/" + name, readFileSync(join(root, "hardware", "sim", "pico", name)));
}
// the NTAG model and the PN532 the host's simulations use too (written in the Python both run)
for (const name of ["ntag.py", "pn532_chip.py"]) {
  mp.FS.writeFile("/fakes/" + name, readFileSync(join(root, "hardware", "sim", name)));
}
// a real chip's figures (the bring-up probe's file) in place of the shipped ones, when named
mp.FS.writeFile("/fakes/pn532_timing.json", readFileSync(process.env.SPIELTISCH_PN532_TIMING ||
                                                         join(root, "hardware", "data", "pn532_timing.json")));
copyDir(join(root, "tests", "vectors"), "/vectors", ".json");

// CHECKS=name,name runs only those checks (while working on them); unset, all of them
mp.runPython(`ONLY = ${JSON.stringify((process.env.CHECKS || "").split(",").filter(Boolean))}`);
try {
  mp.runPython(readFileSync(join(here, "check_firmware.py"), "utf8"));
} catch (err) {
  process.stderr.write(String(err.message || err) + "\n");
  process.exit(1);
}
process.exit(/^ALL PASSED/m.test(out) ? 0 : 1);
