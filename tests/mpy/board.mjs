// The inside of a simulated Pico for tests/mpy/pico.py: real MicroPython (the WebAssembly
// build) with a file system that outlives its reboots. The Python side speaks the USB
// serial port (the REPL, the station's frames); this side runs what reaches MicroPython.
//
// One JSON request a line on stdin, one JSON answer a line on stdout:
//   {"op": "boot", "uid": "hex"}        a fresh interpreter over the same files (a reset);
//                                        the Pico-only modules are hardware/sim/pico's
//   {"op": "exec", "code": "..."}       run code as the raw REPL does → {out, err, reset}
//   {"op": "main"}                       what MicroPython does with main.py at boot:
//                                        → {mode: "station", out} or {mode: "repl", err}
//   {"op": "feed", "hex": "..."}         bytes from USB to the running station → {out, reset}
//   {"op": "files"}                      → {files: {name: hex}} (what is on the flash)
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript";

const here = dirname(fileURLToPath(import.meta.url));
let mp = null;
let out = [];
let flash = {};            // name -> Uint8Array: the Pico's flash, kept across reboots

function saveFlash() {
  if (mp === null) return;
  flash = {};
  for (const name of mp.FS.readdir("/flash")) {
    if (name !== "." && name !== "..") flash[name] = mp.FS.readFile("/flash/" + name);
  }
}

async function boot(uid) {
  saveFlash();
  mp = await loadMicroPython({
    heapsize: 4 * 1024 * 1024, linebuffer: false,
    stdout: (bytes) => out.push(...bytes), stderr: (bytes) => out.push(...bytes),
  });
  mp.FS.mkdir("/fakes");
  const pico = join(here, "..", "..", "hardware", "sim", "pico");       // the simulated Pico: machine, neopixel
  for (const name of readdirSync(pico)) {
    if (name.endsWith(".py")) mp.FS.writeFile("/fakes/" + name, readFileSync(join(pico, name)));
  }
  mp.FS.mkdir("/flash");
  for (const [name, data] of Object.entries(flash)) mp.FS.writeFile("/flash/" + name, data);
  mp.runPython(`import sys, os\nos.chdir('/flash')\nsys.path.append('/fakes')\nimport machine, binascii\n` +
               `machine.unique_id = lambda: binascii.unhexlify('${uid}')`);
}

function run(code) {
  out = [];
  try {
    mp.runPython(code);
    return { out: Buffer.from(out).toString("hex"), err: "", reset: false };
  } catch (e) {
    const reset = e.type === "Reset";
    return { out: Buffer.from(out).toString("hex"), err: reset ? "" : String(e.message || e), reset };
  }
}

const STATION = `
class _Stream:
    def __init__(self):
        self.data = bytearray()
        self.written = bytearray()
    def read(self, n):
        got = bytes(self.data[:n])
        self.data = self.data[n:]
        return got
    def write(self, data):
        self.written += data
        return len(data)
class _Poll:
    def __init__(self, ready):
        self.ready = ready
    def poll(self, timeout):
        return self.ready()
_usb_in, _usb_out = _Stream(), _Stream()
_station = main.Firmware(_usb_in, _usb_out, _Poll(lambda: len(_usb_in.data) > 0), _Poll(lambda: True))
`;

function sent() {
  const got = run("print(binascii.hexlify(_usb_out.written).decode())\n_usb_out.written = bytearray()");
  return got.out ? Buffer.from(got.out, "hex").toString().trim() : "";
}

async function handle(request) {
  if (request.op === "boot") {
    await boot(request.uid);
    return { ok: true };
  }
  if (request.op === "exec") return run(request.code);
  if (request.op === "main") {
    // main.py's own test decides: a mark left by UPDATE keeps this boot at the REPL
    const started = run("import main\n_update = main.updating()\nprint(int(_update))");
    if (started.err) return { mode: "repl", err: started.err };
    if (Buffer.from(started.out, "hex").toString().trim() === "1") return { mode: "repl", err: "" };
    const made = run(STATION + "_station.step()");
    if (made.err) return { mode: "repl", err: made.err };
    return { mode: "station", out: sent() };
  }
  if (request.op === "feed") {
    const stepped = run(`_usb_in.data += binascii.unhexlify('${request.hex}')\n` +
                        "for _ in range(3):\n    _station.step()");
    if (stepped.reset) return { out: "", reset: true };
    return { out: sent(), reset: false, err: stepped.err };
  }
  if (request.op === "files") {
    saveFlash();
    const files = {};
    for (const [name, data] of Object.entries(flash)) files[name] = Buffer.from(data).toString("hex");
    return { files };
  }
  return { error: "unknown op " + request.op };
}

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  const answer = await handle(JSON.parse(line));
  process.stdout.write(JSON.stringify(answer) + "\n");
}
