// Runs check_firmware.py under MicroPython's WebAssembly build: the firmware's files, the
// fakes of the Pico-only modules (machine, neopixel, rp2), the NTAG model and the shared
// test vectors are copied into MicroPython's in-memory file system first. Exit code 0 only
// if every check passed. Usage: node tests/mpy/run.mjs
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
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
// the NTAG model the host's simulations use too (written in the Python both run)
mp.FS.writeFile("/fakes/ntag.py", readFileSync(join(root, "hardware", "ntag.py")));
copyDir(join(root, "tests", "vectors"), "/vectors", ".json");

try {
  mp.runPython(readFileSync(join(here, "check_firmware.py"), "utf8"));
} catch (err) {
  process.stderr.write(String(err.message || err) + "\n");
  process.exit(1);
}
process.exit(/^ALL PASSED/m.test(out) ? 0 : 1);
