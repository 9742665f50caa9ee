// Measures what creating an .ort form in place saves (js/forms/in-place.js):
// for each model, onnxruntime-node writes its optimized .onnx and .ort
// (level 'extended'); Chromium then creates each at 'disabled' with the plain
// onnxruntime-web build, as the page's first model session after the runtime
// started, one page per creation: the .onnx, the .ort as bytes, and the .ort
// in place (copied into the heap, onnxruntime told to use it there). Prints
// the median creation time and the wasm heap for each. Not a test, not part
// of `npm run bench`: the numbers behind docs/forms.md's table.
//
//   node scripts/measure-in-place.mjs [pages per variant, default 3]
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import * as ortNode from 'onnxruntime-node';
import { REAL_MODELS } from '../tests/models.mjs';
import { launchBrowser } from './chromium.mjs';
import { REPO_ROOT, startServer } from './static-server.mjs';

const OUT = path.join(REPO_ROOT, 'build/measure-in-place');
const N = Number(process.argv[2] ?? 3);
const MODELS = [
  ...REAL_MODELS.filter((m) => ['ppocr_v2_cls', 'silero_vad_v5', 'ppocr_v4_det'].includes(m.name)),
  { name: 'isnet_quint8', path: 'build/models/isnet_quint8.onnx' },
  { name: 'isnet_fp16', path: 'build/models/isnet_fp16.onnx' },
  { name: 'bench-bert', path: 'build/hf-models/bench-bert/onnx/model.onnx' },
].filter((m) => existsSync(path.join(REPO_ROOT, m.path)));

// the plain build's loader, keeping its module where the page can reach its heap
const LOADER = `import factory from '/node_modules/onnxruntime-web/dist/ort-wasm-simd-threaded.mjs';
export default async (arg) => (globalThis.measuredModule = await factory(arg));`;
const PAGE = `<!doctype html><meta charset="utf-8"><script type="module">
const q = new URLSearchParams(location.search);
const how = q.get('how');
const dist = '/node_modules/onnxruntime-web/dist/';
const bytesP = fetch('/build/measure-in-place/' + q.get('model') + (how === 'onnx' ? '/m.onnx' : '/m.ort')).then((r) => r.arrayBuffer());
const ort = await import(dist + 'ort.wasm.min.mjs');
ort.env.wasm.numThreads = 1;
ort.env.wasm.wasmPaths = { mjs: '/build/measure-in-place/loader.mjs', wasm: dist + 'ort-wasm-simd-threaded.wasm' };
// the runtime's start, on a one-node model (Identity)
const TINY = 'CAg6NwoQCgF4EgF5IghJZGVudGl0eRIBc1oPCgF4EgoKCAgBEgQKAggBYg8KAXkSCgoICAESBAoCCAFCBAoAEA0=';
await ort.InferenceSession.create(Uint8Array.from(atob(TINY), (c) => c.charCodeAt(0)));
const m = globalThis.measuredModule;
let bytes = new Uint8Array(await bytesP);
await new Promise((r) => setTimeout(r, 300));
const options = { graphOptimizationLevel: 'disabled' };
const t0 = performance.now();
if (how === 'in-place') {
  const p = m._malloc(bytes.byteLength);
  m.HEAPU8.set(bytes, p);
  bytes = new Uint8Array(m.HEAPU8.buffer, p, bytes.byteLength);
  const free = m._free;
  m._free = (x) => (x === p ? undefined : free(x)); // kept for the session's life
  options.extra = { session: { use_ort_model_bytes_directly: '1', use_ort_model_bytes_for_initializers: '1' } };
}
await ort.InferenceSession.create(bytes, options);
window.result = { ms: performance.now() - t0, heapMiB: m.HEAPU8.byteLength / 1048576 };
</script>`;

await mkdir(OUT, { recursive: true });
await writeFile(path.join(OUT, 'loader.mjs'), LOADER);
await writeFile(path.join(OUT, 'page.html'), PAGE);
for (const m of MODELS) {
  const dir = path.join(OUT, m.name);
  await mkdir(dir, { recursive: true });
  for (const [format, file] of [
    ['ONNX', 'm.onnx'],
    ['ORT', 'm.ort'],
  ])
    await ortNode.InferenceSession.create(path.join(REPO_ROOT, m.path), {
      graphOptimizationLevel: 'extended',
      optimizedModelFilePath: path.join(dir, file),
      extra: { session: { save_model_format: format } },
    });
}
const server = await startServer();
const browser = await launchBrowser();
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
try {
  console.log('model           .onnx ms, heap MiB   .ort          .ort in place');
  for (const m of MODELS) {
    const out = { onnx: [], ort: [], 'in-place': [] };
    for (let i = 0; i < N; i++)
      for (const how of Object.keys(out)) {
        const context = await browser.newContext();
        const page = await context.newPage();
        await page.goto(`${server.origin}/build/measure-in-place/page.html?model=${m.name}&how=${how}`);
        out[how].push(
          await page.waitForFunction(() => window.result, null, { timeout: 120000 }).then((h) => h.jsonValue()),
        );
        await context.close();
      }
    const cell = (rs) => `${median(rs.map((r) => r.ms)).toFixed(0)}, ${median(rs.map((r) => r.heapMiB)).toFixed(0)}`;
    console.log(
      `${m.name.padEnd(16)}${Object.values(out)
        .map((rs) => cell(rs).padEnd(14))
        .join('')}`,
    );
  }
} finally {
  await browser.close();
  await server.close();
}
