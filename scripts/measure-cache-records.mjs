// Measures, in Chromium here, what docs/cache.md reports (Blob records, chunk checks):
//   1. IndexedDB chunk records as Blob vs ArrayBuffer: write and read of a
//      44 MB model in 4 MiB chunks, read assembled into one preallocated buffer;
//   2. a warm load (IndexedDB tier) with and without chunk verification.
// Usage: node scripts/measure-cache-records.mjs  (after scripts/bootstrap.sh)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { launchPersistent } from './chromium.mjs';
import { startServer } from './static-server.mjs';
import { assembleChunkedModel, CHUNKED_MODELS } from '../tests/models.mjs';

const model = CHUNKED_MODELS.find((m) => m.name === 'isnet_quint8');
await assembleChunkedModel(model);
const server = await startServer();
const dir = await mkdtemp(path.join(tmpdir(), 'ortkeep-measure-'));
const context = await launchPersistent(dir);
try {
  const page = await context.newPage();
  await page.goto(`${server.origin}/tests/browser/pages/cache.html`);
  await page.waitForFunction(() => window.ready === true);
  const out = await page.evaluate(async (url) => {
    const { IdbStore, valueBytes } = await import('/js/cache/idb-store.js');
    const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
    const CS = 4 << 20;
    const n = Math.ceil(bytes.length / CS);
    const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
    const records = {};
    for (const form of ['arraybuffer', 'blob', 'arraybuffer', 'blob']) {
      const store = await IdbStore.open(`measure-${form}`, { recordForm: form });
      await store.clearAll();
      let t = performance.now();
      for (let i = 0; i < n; i++)
        await store.storeChunk('m#1', i, bytes.subarray(i * CS, (i + 1) * CS), new Uint8Array(8));
      const writeMs = performance.now() - t;
      const reads = [];
      for (let k = 0; k < 5; k++) {
        t = performance.now();
        const out = new Uint8Array(bytes.length);
        for (let i = 0; i < n; i += 8) {
          const values = await store.readChunks('m#1', i, Math.min(n, i + 8));
          for (let j = 0; j < values.length; j++) out.set(await valueBytes(values[j]), (i + j) * CS);
        }
        reads.push(performance.now() - t);
      }
      await store.clearAll();
      store.close();
      records[form] = {
        writeMs,
        readMs: median(reads),
        writeMBs: bytes.length / 1e6 / (writeMs / 1e3),
        readMBs: bytes.length / 1e6 / (median(reads) / 1e3),
      };
    }
    // warm loads through the public API, verification on and off
    const { ortkeep } = window;
    await ortkeep.cache.clear();
    await (await ortkeep.load(url)).dispose();
    const warm = { verify: [], noVerify: [], readVerify: [], readNoVerify: [], createVerify: [], createNoVerify: [] };
    for (let k = 0; k < 7; k++) {
      for (const verify of k % 2 ? [true, false] : [false, true]) {
        const t0 = performance.now();
        const s = await ortkeep.load(url, { verify, memory: false });
        const total = performance.now() - t0;
        if (s.info.cache.tier !== 'indexeddb') throw new Error(`not warm: ${s.info.cache.tier}`);
        (verify ? warm.verify : warm.noVerify).push(total);
        (verify ? warm.readVerify : warm.readNoVerify).push(s.info.cache.timings.readMs);
        (verify ? warm.createVerify : warm.createNoVerify).push(s.info.cache.timings.createMs);
        await s.dispose();
      }
    }
    const m = Object.fromEntries(Object.entries(warm).map(([k, v]) => [k, median(v.slice(1))]));
    return { bytes: bytes.length, records, warm: m };
  }, `/${model.path}`);
  console.log(JSON.stringify(out, null, 2));
} finally {
  await context.close();
  await server.close();
  await rm(dir, { recursive: true, force: true });
}
