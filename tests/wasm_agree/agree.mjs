// Native and wasm agree: every built-in scenario, run inside WebAssembly,
// gives the byte-identical trace the native `kzsim run --trace` gives.
// Usage: node tests/wasm_agree/agree.mjs WASM KZSIM_BINARY SCENARIO...
import { readFileSync, mkdtempSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [wasmPath, kzsim, ...scenarios] = process.argv.slice(2);
const bytes = readFileSync(wasmPath);
const dir = mkdtempSync(join(tmpdir(), "kzsim-agree-"));
let passed = 0, failed = 0;
for (const file of scenarios) {
  const { instance } = await WebAssembly.instantiate(bytes, {});
  const { memory, kzsim_alloc, kzsim_trace } = instance.exports;
  const text = readFileSync(file);
  const ptr = kzsim_alloc(text.length);
  new Uint8Array(memory.buffer, ptr, text.length).set(text);
  const packed = BigInt.asUintN(64, kzsim_trace(ptr, text.length));
  const out = Number(packed >> 32n), len = Number(packed & 0xffffffffn);
  const wasmTrace = Buffer.from(new Uint8Array(memory.buffer, out, len)).toString("utf8");
  const traceFile = join(dir, "native.jsonl");
  try {
    execFileSync(kzsim, ["run", file, "--trace", traceFile, "--quiet"], { stdio: ["ignore", "ignore", "pipe"] });
  } catch (e) {
    if (e.status === 2) throw e; // exit 1 (a failed expect) still writes the trace
  }
  const nativeTrace = readFileSync(traceFile, "utf8");
  const lines = nativeTrace.split("\n").length - 1;
  if (wasmTrace === nativeTrace) {
    passed++;
    console.log(`ok   ${file}: ${lines} steps, ${nativeTrace.length} bytes identical`);
  } else {
    failed++;
    const a = nativeTrace.split("\n"), b = wasmTrace.split("\n");
    const i = a.findIndex((l, k) => l !== b[k]);
    console.log(`FAIL ${file}: first difference at line ${i + 1}\n  native: ${a[i]}\n  wasm:   ${b[i]}`);
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
