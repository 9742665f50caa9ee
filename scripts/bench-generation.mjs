// The tensor pool under its best real workload: transformers.js text
// generation (tests/fixtures/make_hf_models.py's tiny-gpt2: a GPT-2-shaped
// decoder whose past key values grow by a token each step and are fed back),
// greedy, as an app runs it: transformers.js 4.3.1's web build alone, and
// with `import 'ortkeep/transformers'` (bundled, as apps ship it). Per token:
// the page's wall time (transformers.js's own work included, as the person
// waits for it) and GPUBuffers made (counted by wrapping
// GPUDevice.prototype.createBuffer), on 'wasm' and on 'webgpu' (SwiftShader).
// Each round is a fresh page per side, the order alternating; a page warms
// up (shaders, V8 and wasm tiers, ortkeep's background form work) and then
// times GENERATIONS generations; a round's ratio is ortkeep's median over
// alone's. The goals: <= 1.03x on wasm, <= 1.0x on WebGPU, and no
// more GPUBuffers per token than alone.
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { launchBrowser } from './chromium.mjs';
import { startServer } from './static-server.mjs';
import { buildApp } from './bench-transformers.mjs';

const DEVICES = ['wasm', 'webgpu'];
const MODES = ['alone', 'ortkeep'];
/** New tokens per generation: the prompt's 13 byte tokens plus these stay under the model's 64 positions. */
const TOKENS = 40;
const WARMUP = 5;
const GENERATIONS = 5;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const spread = (xs) => `${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)}`;

/** One page: medians over its timed generations of ms and GPUBuffers per token. */
async function page(browser, origin, mode, device) {
  const context = await browser.newContext();
  try {
    const p = await context.newPage();
    await p.goto(`${origin}/tests/browser/pages/transformers.html${mode === 'ortkeep' ? '?ortkeep=bundle' : ''}`);
    await p.waitForFunction(() => window.ready === true, null, { timeout: 120000, polling: 20 });
    return await p.evaluate(
      async ({ device, TOKENS, WARMUP, GENERATIONS }) => {
        const { pipeline } = window.transformers;
        const generator = await pipeline('text-generation', 'tiny-gpt2', { dtype: 'fp32', device });
        const generate = () => generator('hello ortkeep', { max_new_tokens: TOKENS, do_sample: false });
        for (let i = 0; i < WARMUP; i++) await generate();
        const session = generator.model.sessions.model;
        // ortkeep: its first visit's background work (the form's capture and check) is over
        if (session.formsReady) {
          await session.formsReady;
          await (await import('/js/index.js')).cache.settled();
          await generate();
        }
        const ms = [];
        const buffers = [];
        let text = null;
        for (let i = 0; i < GENERATIONS; i++) {
          const b0 = window.gpu.created;
          const t0 = performance.now();
          const [out] = await generate();
          ms.push((performance.now() - t0) / TOKENS);
          buffers.push((window.gpu.created - b0) / TOKENS);
          text = out.generated_text;
        }
        const placement = session.pool?.stats?.().placement ?? null;
        await generator.dispose();
        const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
        return { ms: med(ms), buffers: med(buffers), text, placement };
      },
      { device, TOKENS, WARMUP, GENERATIONS },
    );
  } finally {
    await context.close();
  }
}

export async function run({ log = console.log, repeats = 5 } = {}) {
  await buildApp();
  const server = await startServer();
  const browser = await launchBrowser({ webgpu: true });
  const rows = [];
  try {
    log(
      `transformers.js 4.3.1 text-generation, tiny-gpt2, ${TOKENS} tokens greedy; ms and GPUBuffers per token, medians of ${GENERATIONS} generations per page after warm-up, ${repeats} rounds of fresh pages`,
    );
    log(
      `${'device'.padEnd(8)}${'alone'.padStart(8)}${'ortkeep'.padStart(9)}  ortkeep/alone (rounds)   GPUBuffers/token alone, ortkeep  goal`,
    );
    for (const device of DEVICES) {
      const r = { alone: [], ortkeep: [] };
      for (let i = 0; i < repeats; i++) {
        for (const mode of i % 2 ? [...MODES].reverse() : MODES)
          r[mode].push(await page(browser, server.origin, mode, device));
      }
      const texts = new Set([...r.alone, ...r.ortkeep].map((x) => x.text));
      if (texts.size !== 1)
        throw new Error(`bench-generation: the generated texts differ on ${device}: ${[...texts].join(' | ')}`);
      const ratios = r.ortkeep.map((x, i) => x.ms / r.alone[i].ms);
      const row = {
        device,
        aloneMs: median(r.alone.map((x) => x.ms)),
        ortkeepMs: median(r.ortkeep.map((x) => x.ms)),
        ratio: median(ratios),
        ratios,
        aloneBuffers: median(r.alone.map((x) => x.buffers)),
        ortkeepBuffers: median(r.ortkeep.map((x) => x.buffers)),
        placement: r.ortkeep[0].placement,
        goal: device === 'wasm' ? 1.03 : 1.0,
      };
      rows.push(row);
      log(
        `${device.padEnd(8)}${row.aloneMs.toFixed(2).padStart(8)}${row.ortkeepMs.toFixed(2).padStart(9)}  ${row.ratio.toFixed(2).padStart(6)}x (${spread(ratios)})${''.padStart(6)}${row.aloneBuffers.toFixed(2).padStart(8)}, ${row.ortkeepBuffers.toFixed(2)}${''.padStart(12)}<= ${row.goal.toFixed(2)}x`,
      );
    }
  } finally {
    await browser.close();
    await server.close();
  }
  return rows;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await run({ repeats: Number(process.argv[2] ?? 5) });
