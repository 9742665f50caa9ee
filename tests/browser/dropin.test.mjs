// The drop-in onnxruntime-web (ortkeep/onnxruntime-web), in Chromium with the
// bundler alias written as an import map: the app's code is onnxruntime-web
// code, unchanged. Tensor and env are onnxruntime-web's own; a library-style
// InferenceSession.create(arrayBuffer) and the (buffer, byteOffset,
// byteLength) overload run equal to onnxruntime-web; create(url) is cached
// (the second visit reads IndexedDB); onnxruntime-web's flat SessionOptions
// reach it (externalData with URLs and bytes, freeDimensionOverrides,
// graphOptimizationLevel); an unknown option is INVALID_ARG naming the
// nearest known one. The script-tag drop-in patches window.ort.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { REPO_ROOT } from '../../scripts/static-server.mjs';
import { modelPath, NOT_CACHED, serving, useCacheBrowser } from './cache-env.mjs';

const FIXTURES = path.join(REPO_ROOT, 'build/fixtures');
const SILERO = modelPath('silero_vad_v5');
const env = useCacheBrowser();

async function dropinPage() {
  const page = await env.context.newPage();
  page.on('pageerror', (e) => console.error('[page error]', e.message));
  await page.goto(`${env.origin}/tests/browser/pages/dropin.html`);
  await page.waitForFunction(() => window.ready === true, null, { timeout: 20000 });
  return page;
}

/** The same page code on `n` visits (a new page each, one profile), given `args` and `visit`: its answers. */
async function onVisits(n, fn, args) {
  const answers = [];
  for (let visit = 0; visit < n; visit++) {
    const page = await dropinPage();
    answers.push(await page.evaluate(fn, { ...args, visit }));
    await page.close();
  }
  return answers;
}

/** silero v5's feeds and both runs, in the page: ours through the drop-in, theirs through the real package. */
const SILERO_RUN = `
  const feeds = (T) => ({
    input: new T('float32', Float32Array.from({ length: 512 }, (_, i) => Math.sin(i / 9)), [1, 512]),
    state: new T('float32', new Float32Array(256), [2, 1, 128]),
    sr: new T('int64', BigInt64Array.from([16000n]), []),
  });
`;

describe('ortkeep/onnxruntime-web, aliased', () => {
  before(async () => {
    if (!existsSync(path.join(FIXTURES, 'scan.onnx')))
      execFileSync('/usr/bin/python3', [path.join(REPO_ROOT, 'tests/fixtures/make_models.py'), FIXTURES]);
    await env.reset();
  });

  test("Tensor and env are onnxruntime-web's own; InferenceSession is ortkeep's", async () => {
    const page = await dropinPage();
    const r = await page.evaluate(() => {
      const { ort, real } = window;
      const names = Object.keys(real).filter((k) => k !== 'InferenceSession' && k !== 'default');
      return {
        same: names.filter((k) => ort[k] === real[k]).length,
        names: names.length,
        tensor: ort.Tensor === real.Tensor,
        env: ort.env === real.env,
        replaced:
          ort.InferenceSession !== real.InferenceSession && ort.default.InferenceSession === ort.InferenceSession,
        instance: new ort.Tensor('float32', [1], [1]) instanceof real.Tensor,
      };
    });
    await page.close();
    assert.equal(r.same, r.names, 'every other export is the real one');
    assert.deepEqual([r.tensor, r.env, r.replaced, r.instance], [true, true, true, true]);
  });

  test('library-style create(arrayBuffer) and the (buffer, byteOffset, byteLength, options) overload run equal to onnxruntime-web', async () => {
    const page = await dropinPage();
    const r = await page.evaluate(
      async ({ url, SILERO_RUN }) => {
        const { ort, real } = window;
        const feeds = new Function(`${SILERO_RUN}; return feeds;`)();
        const model = await (await fetch(url)).arrayBuffer();
        const plain = await real.InferenceSession.create(new Uint8Array(model));
        const theirs = await plain.run(feeds(real.Tensor));
        const session = await ort.InferenceSession.create(model);
        const ours = await session.run(feeds(ort.Tensor));
        // the model inside a bigger buffer, as a library that packs files may hand it
        const packed = new Uint8Array(model.byteLength + 96);
        packed.set(new Uint8Array(model), 64);
        const sliced = await ort.InferenceSession.create(packed.buffer, 64, model.byteLength, {
          executionProviders: ['wasm'],
        });
        const fetched = await sliced.run(feeds(ort.Tensor), ['output'], { logSeverityLevel: 3, tag: 'drop-in' });
        const out = {
          isSession: session instanceof ort.InferenceSession,
          hasPool: typeof session.pool?.stats,
          inputNames: session.inputNames,
          outputNames: session.outputNames,
          metadata: JSON.stringify(session.inputMetadata) === JSON.stringify(plain.inputMetadata),
          ours: Array.from(ours.output.data),
          theirs: Array.from(theirs.output.data),
          oursState: Array.from(ours.stateN.data),
          theirsState: Array.from(theirs.stateN.data),
          tensorClass: ours.output instanceof ort.Tensor,
          fetched: Object.keys(fetched),
          sliced: Array.from(fetched.output.data),
        };
        await session.release();
        await sliced.release();
        await plain.release();
        return out;
      },
      { url: SILERO, SILERO_RUN },
    );
    await page.close();
    assert.equal(r.isSession, true);
    assert.equal(r.hasPool, 'function');
    assert.deepEqual(r.inputNames, ['input', 'state', 'sr']);
    assert.equal(r.metadata, true);
    assert.deepEqual(r.ours, r.theirs);
    assert.deepEqual(r.oursState, r.theirsState);
    assert.equal(r.tensorClass, true);
    assert.deepEqual(r.fetched, ['output']);
    assert.deepEqual(r.sliced, r.theirs);
  });

  test('a library that runs onnxruntime-web in its proxy worker (env.wasm.proxy): create(arrayBuffer) and create(url), state fed back over three runs, equal to onnxruntime-web in the same worker', async () => {
    // the worker takes the model's ArrayBuffer and every input's: through
    // the drop-in every creation failed on a detached buffer before ortkeep
    // handed it a copy; plain onnxruntime-web detaches the library's buffer
    const page = await dropinPage();
    const r = await page.evaluate(
      async ({ url, SILERO_RUN }) => {
        const { ort, real } = window;
        ort.env.wasm.proxy = true;
        const feeds = new Function(`${SILERO_RUN}; return feeds;`)();
        try {
          const model = await (await fetch(url)).arrayBuffer();
          const plain = await real.InferenceSession.create(new Uint8Array(await (await fetch(url)).arrayBuffer()));
          const fromBytes = await ort.InferenceSession.create(model);
          const fromUrl = await ort.InferenceSession.create(url);
          const steps = [];
          let state = { theirs: null, bytes: null, url: null };
          for (let i = 0; i < 3; i++) {
            const run = async (session, T, prev) => {
              const f = feeds(T);
              return session.run(prev ? { ...f, state: prev } : f);
            };
            const theirs = await run(plain, real.Tensor, state.theirs);
            const bytes = await run(fromBytes, ort.Tensor, state.bytes);
            const viaUrl = await run(fromUrl, ort.Tensor, state.url);
            steps.push([
              Array.from(bytes.output.data).join() === Array.from(theirs.output.data).join(),
              Array.from(viaUrl.output.data).join() === Array.from(theirs.output.data).join(),
            ]);
            state = { theirs: theirs.stateN, bytes: bytes.stateN, url: viaUrl.stateN };
          }
          await Promise.all([plain.release(), fromBytes.release(), fromUrl.release()]);
          return { ok: true, steps, modelBytes: model.byteLength };
        } catch (e) {
          return { ok: false, message: String(e) };
        } finally {
          ort.env.wasm.proxy = false;
        }
      },
      { url: SILERO, SILERO_RUN },
    );
    await page.close();
    await env.reset(); // create(url) stored the model: the tests after start from an empty cache
    assert.equal(r.ok, true, r.message);
    assert.deepEqual(r.steps, [
      [true, true],
      [true, true],
      [true, true],
    ]);
    assert.ok(r.modelBytes > 0, "the library's buffer is still its own");
  });

  test('create(url) is cached: the second visit creates from IndexedDB with no model request', async () => {
    env.server.resetCounts();
    for (const visit of [1, 2]) {
      const page = await dropinPage();
      const r = await page.evaluate(
        async ({ url }) => {
          const s = await window.ort.InferenceSession.create(url, { executionProviders: ['wasm'] });
          const out = { tier: s.info.cache.tier, stored: s.info.cache.stored };
          await s.release();
          // the page stays a moment: the download, served before it was stored, is stored
          await (await import('/js/index.js')).cache.settled();
          return out;
        },
        { url: SILERO },
      );
      await page.close();
      assert.equal(r.tier, visit === 1 ? 'network' : 'indexeddb', `visit ${visit}`);
      assert.equal(r.stored, true);
    }
    assert.equal(env.server.count(SILERO), 1, 'one model request over two visits');
  });

  test("a library's create(arrayBuffer) in two visits: the second creates from the verified form of those very bytes, equal to onnxruntime-web", async () => {
    await env.reset();
    const visits = await onVisits(
      2,
      async ({ url, SILERO_RUN }) => {
        const { ort, real } = window;
        const feeds = new Function(`${SILERO_RUN}; return feeds;`)();
        const model = await (await fetch(url)).arrayBuffer();
        // ortkeep's first: its capturing loader must be in before onnxruntime-web starts
        const s = await ort.InferenceSession.create(model);
        const ours = await s.run(feeds(ort.Tensor));
        const plain = await real.InferenceSession.create(new Uint8Array(model));
        const theirs = await plain.run(feeds(real.Tensor));
        await plain.release();
        const out = {
          form: s.info.form,
          source: s.info.source,
          same: JSON.stringify(Array.from(ours.output.data)) === JSON.stringify(Array.from(theirs.output.data)),
          background: await s.formsReady,
          list: (await (await import('/js/index.js')).cache.list()).map((e) => ({ key: e.key, form: e.form })),
        };
        await s.release();
        return out;
      },
      { url: SILERO, SILERO_RUN },
    );
    const [first, second] = visits;
    assert.equal(first.same, true);
    assert.equal(first.form.chosen, 'capturing', JSON.stringify(first.form));
    const kept = first.background.stored;
    assert.ok(kept === 'onnx' || kept === 'ort', JSON.stringify(first.background));
    // only the form is stored, under the bytes' content: the library keeps its own bytes
    // (in any order: with .ort judged slower, its tombstone is listed before the .onnx form kept)
    assert.deepEqual(
      first.list.map((e) => e.form).sort(),
      [...first.background.failed.map((f) => f.form), kept].sort(),
    );
    assert.ok(
      first.list.every((e) => e.key.startsWith(`sha256:${first.source.sha256}|form:`)),
      JSON.stringify(first.list),
    );
    assert.equal(second.same, true);
    assert.equal(second.form.form, kept);
    assert.equal(second.form.chosen, 'verified');
    assert.equal(second.form.level, 'disabled');
    assert.deepEqual(second.source, first.source, 'the source is the bytes given, whatever form serves');
    assert.equal(second.background.stored, null, 'nothing captured again');
  });

  test('bytes are keyed by a fingerprint only once their full SHA-256 agrees: other bytes with the same fingerprint get their own session and form, equal to onnxruntime-web', async () => {
    if (!existsSync(path.join(REPO_ROOT, 'build/fixtures-wide/wide.onnx')))
      execFileSync('/usr/bin/python3', [
        path.join(REPO_ROOT, 'tests/fixtures/make_wide_model.py'),
        path.join(REPO_ROOT, 'build/fixtures-wide'),
      ]);
    await env.reset();
    // visit 1: a model past the fingerprint's size (its forms stored), then the
    // same bytes with one weight byte changed where the fingerprint does not
    // look, loaded while the first session is live (the memory tier); visit 2:
    // the model again, while the fingerprint names the changed bytes, whose
    // form is stored (a fresh load from IndexedDB)
    const visits = await onVisits(
      2,
      async ({ url, visit }) => {
        const { ort, real } = window;
        const feeds = (T) => ({
          x: new T(
            'float32',
            Float32Array.from({ length: 1024 }, (_, i) => Math.sin(i / 7)),
            [1, 1024],
          ),
        });
        const hex = async (b) =>
          Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', b)), (x) =>
            x.toString(16).padStart(2, '0'),
          ).join('');
        const plainRun = async (bytes) => {
          const p = await real.InferenceSession.create(bytes.slice());
          const r = await p.run(feeds(real.Tensor));
          await p.release();
          return JSON.stringify(Array.from(r.y.data));
        };
        const model = new Uint8Array(await (await fetch(url)).arrayBuffer());
        const remembered = () => JSON.parse(localStorage.getItem('ortkeep:bytes-sha256') ?? '[]');
        const use = async (bytes) => {
          const s = await ort.InferenceSession.create(bytes.buffer);
          const r = await s.run(feeds(ort.Tensor));
          return {
            s,
            form: s.info.form,
            sha: s.info.source.sha256,
            same: JSON.stringify(Array.from(r.y.data)) === (await plainRun(bytes)),
          };
        };
        const out = { sha: await hex(model), before: remembered() };
        // ortkeep's first: its capturing loader must be in before onnxruntime-web starts
        const a = await use(model);
        out.afterFirst = remembered();
        if (visit === 0) {
          await a.s.formsReady;
          // the same gaps the fingerprint in sources.js leaves: 64 pieces of 16 KiB, evenly spaced
          const PIECE = 16 << 10;
          const step = (model.length - PIECE) / 63;
          const expected = await plainRun(model);
          let changed = null;
          for (let i = 1; i < 63 && !changed; i++) {
            const at = Math.round(i * step) + PIECE + Math.floor((step - PIECE) / 2);
            const c = model.slice();
            c[at] ^= 0x40;
            try {
              if ((await plainRun(c)) !== expected) changed = c;
            } catch {
              /* not a weight: try the next gap */
            }
          }
          if (!changed) throw new Error('no weight byte in a gap changes the output');
          out.changedSha = await hex(changed);
          const b = await use(changed);
          out.after = remembered();
          out.loads = [a, b].map(({ s, ...rest }) => rest);
          out.distinct = a.s.info.source.sha256 !== b.s.info.source.sha256;
          await b.s.formsReady;
          await b.s.release();
        } else {
          out.loads = [a].map(({ s, ...rest }) => rest);
        }
        await a.s.release();
        return out;
      },
      { url: '/build/fixtures-wide/wide.onnx' },
    );
    const [first, second] = visits;
    assert.notEqual(first.sha, first.changedSha);
    // one fingerprint for both: it named the model, then the changed bytes, then the model again
    assert.deepEqual(first.before, []);
    assert.equal(first.afterFirst.length, 1);
    assert.equal(first.afterFirst[0][1], first.sha);
    assert.deepEqual(first.after, [[first.afterFirst[0][0], first.changedSha]]);
    assert.deepEqual(second.before, first.after);
    assert.deepEqual(second.afterFirst, first.afterFirst);
    const [a, b] = first.loads;
    assert.deepEqual([a.same, a.sha], [true, first.sha]);
    assert.equal(first.distinct, true, 'the live session of the model is not shared with other bytes');
    assert.deepEqual([b.same, b.sha, b.form.chosen], [true, first.changedSha, 'capturing'], JSON.stringify(b.form));
    const [c] = second.loads;
    assert.deepEqual([c.same, c.sha, c.form.chosen], [true, first.sha, 'verified'], JSON.stringify(c.form));
  });

  // a fallback that never comes is a load that never ends: fail in time
  test('under a CSP without blob: workers, big bytes are hashed on the main thread: the second visit is served from their form, equal to onnxruntime-web', {
    timeout: 120000,
  }, async () => {
    if (!existsSync(path.join(REPO_ROOT, 'build/fixtures-wide/wide.onnx')))
      execFileSync('/usr/bin/python3', [
        path.join(REPO_ROOT, 'tests/fixtures/make_wide_model.py'),
        path.join(REPO_ROOT, 'build/fixtures-wide'),
      ]);
    await env.reset();
    const csp =
      "default-src 'self'; script-src 'self' 'unsafe-inline' blob: 'wasm-unsafe-eval'; " +
      "connect-src 'self' blob: data:; worker-src 'none'";
    env.handler = (req, res, { pathname, serveFile }) => {
      if (pathname !== '/tests/browser/pages/dropin.html') return false;
      res.setHeader('Content-Security-Policy', csp);
      // never cached: a later page's revalidated copy (304) would keep this CSP and refuse its workers
      return serveFile(req, res, pathname, NOT_CACHED).then(() => true);
    };
    const [first, second] = await onVisits(
      2,
      async ({ url }) => {
        const refused = [];
        document.addEventListener('securitypolicyviolation', (e) => refused.push(e.effectiveDirective));
        const { ort, real } = window;
        const x = Float32Array.from({ length: 1024 }, (_, i) => Math.cos(i / 5));
        const model = new Uint8Array(await (await fetch(url)).arrayBuffer());
        // ortkeep's first: its capturing loader must be in before onnxruntime-web starts
        const s = await ort.InferenceSession.create(model.buffer);
        const ours = await s.run({ x: new ort.Tensor('float32', x, [1, 1024]) });
        const plain = await real.InferenceSession.create(model.slice());
        const theirs = await plain.run({ x: new real.Tensor('float32', x, [1, 1024]) });
        await plain.release();
        const out = {
          form: s.info.form,
          same: JSON.stringify(Array.from(ours.y.data)) === JSON.stringify(Array.from(theirs.y.data)),
          background: await s.formsReady,
          refused,
        };
        await s.release();
        return out;
      },
      { url: '/build/fixtures-wide/wide.onnx' },
    );
    env.handler = null;
    assert.equal(first.same, true);
    assert.ok(first.background.stored, JSON.stringify(first.background));
    assert.deepEqual(first.refused, [], 'no worker on a first visit: the hash comes first');
    assert.equal(second.same, true);
    assert.equal(second.form.chosen, 'verified', JSON.stringify(second.form));
    assert.ok(second.refused.includes('worker-src'), `the worker was refused: ${JSON.stringify(second.refused)}`);
  });

  test("bytes with a cache mode other than 'default' keep no forms, and say so", async () => {
    await env.reset();
    const page = await dropinPage();
    const r = await page.evaluate(async (url) => {
      const { ort } = window;
      const model = await (await fetch(url)).arrayBuffer();
      const out = {};
      for (const cache of ['reload', 'no-cache', 'no-store']) {
        const s = await ort.InferenceSession.create(model, { cache });
        out[cache] = s.info.form;
        await s.formsReady;
        await s.release();
      }
      out.list = await (await import('/js/index.js')).cache.list();
      return out;
    }, SILERO);
    await page.close();
    for (const mode of ['reload', 'no-cache', 'no-store']) {
      assert.equal(r[mode].chosen, 'off', `${mode}: ${JSON.stringify(r[mode])}`);
      assert.match(r[mode].why, /nothing is stored/);
    }
    assert.deepEqual(r.list, []);
  });

  test('flat SessionOptions reach onnxruntime-web: graphOptimizationLevel, freeDimensionOverrides, logSeverityLevel', async () => {
    const page = await dropinPage();
    const r = await page.evaluate(async () => {
      const { ort, created } = window;
      created.length = 0;
      const s = await ort.InferenceSession.create('/build/fixtures/scan.onnx', {
        graphOptimizationLevel: 'basic',
        freeDimensionOverrides: { T: 3 },
        logSeverityLevel: 3,
        cache: 'no-store',
      });
      const given = created.at(-1);
      const run = (T) =>
        s.run({
          s0: new ort.Tensor('float32', [0, 0], [2]),
          xs: new ort.Tensor('float32', new Float32Array(T * 2).fill(1), [T, 2]),
        });
      const three = await run(3);
      let four;
      try {
        await run(4);
        four = 'ran';
      } catch (e) {
        four = `${e.code}: ${e.message}`;
      }
      await s.release();
      return {
        level: given.graphOptimizationLevel,
        dims: given.freeDimensionOverrides,
        log: given.logSeverityLevel,
        ys: Array.from(three.ys.data),
        four,
      };
    });
    await page.close();
    assert.equal(r.level, 'basic');
    assert.deepEqual(r.dims, { T: 3 });
    assert.equal(r.log, 3);
    assert.equal(r.ys.length, 6);
    // T overridden to 3: onnxruntime-web itself refuses T = 4
    assert.match(r.four, /^RUN: .*(dimension|shape)/i);
  });

  test('flat externalData: a URL (fetched and cached) and bytes (used as given)', async () => {
    const moved = serving('/moved/external.onnx', readFileSync(path.join(FIXTURES, 'external.onnx')));
    env.handler = moved.handler;
    const page = await dropinPage();
    const r = await page.evaluate(async () => {
      const { ort, real } = window;
      const x = () =>
        new ort.Tensor(
          'float32',
          Float32Array.from({ length: 16 }, (_, i) => i / 7 - 1),
          [1, 16],
        );
      const model = new Uint8Array(await (await fetch('/build/fixtures/external.onnx')).arrayBuffer());
      const data = new Uint8Array(await (await fetch('/build/fixtures/external.bin')).arrayBuffer());
      const plain = await real.InferenceSession.create(model, { externalData: [{ path: 'external.bin', data }] });
      const theirs = Array.from((await plain.run({ x: x() })).y.data);
      // the model where no data file is next to it: the flat option is the only way to the file
      const byUrl = await ort.InferenceSession.create('/moved/external.onnx', {
        externalData: [{ path: 'external.bin', data: '/build/fixtures/external.bin' }],
        memory: false,
      });
      const fromUrl = Array.from((await byUrl.run({ x: x() })).y.data);
      const files = byUrl.info.cache.stored
        ? (await window.ortkeep.cache.list()).find((e) => e.url.endsWith('/moved/external.onnx'))?.dataFiles
        : null;
      // a library's habit: the model as bytes, its data file by URL
      const mixed = await ort.InferenceSession.create(model.buffer, {
        externalData: [{ path: 'external.bin', data: '/build/fixtures/external.bin' }],
        memory: false,
      });
      const fromMixed = Array.from((await mixed.run({ x: x() })).y.data);
      await mixed.release();
      const byBytes = await ort.InferenceSession.create(model, {
        externalData: [{ path: 'external.bin', data: new Uint8Array(data.length) }],
        memory: false,
      });
      const fromZeros = Array.from((await byBytes.run({ x: x() })).y.data);
      for (const s of [plain, byUrl, byBytes]) await s.release();
      return { theirs, fromUrl, fromMixed, fromZeros, files: files?.map((f) => f.path) ?? null };
    });
    await page.close();
    env.handler = null;
    assert.equal(moved.seen.length, 1);
    assert.equal(env.server.count('/moved/external.bin'), 0, 'nothing looked for next to the model');
    assert.deepEqual(r.fromUrl, r.theirs);
    assert.deepEqual(r.fromMixed, r.theirs);
    assert.ok(r.theirs.some((v) => v !== 0));
    assert.deepEqual(r.files, ['external.bin'], 'the data file named by the option is cached with its model');
    assert.deepEqual(r.fromZeros, Array(16).fill(0), 'the bytes given are the weights used');
  });

  test('an unknown option is INVALID_ARG naming it and the nearest known name; so is a bad overload', async () => {
    const page = await dropinPage();
    const r = await page.evaluate(
      async ({ url }) => {
        const { ort, ortkeep } = window;
        const attempt = async (fn) => {
          try {
            await fn();
            return { ok: true };
          } catch (e) {
            return { name: e.name, code: e.code, message: e.message, details: e.details };
          }
        };
        return {
          create: await attempt(() => ort.InferenceSession.create(url, { graphOptimisationLevel: 'all' })),
          load: await attempt(() => ortkeep.load(url, { executionProvider: ['wasm'] })),
          run: await attempt(async () => {
            const s = await ort.InferenceSession.create(url);
            try {
              await s.run({}, { kepp: ['output'] });
            } finally {
              await s.release();
            }
          }),
          overload: await attempt(() => ort.InferenceSession.create(new ArrayBuffer(8), 9)),
        };
      },
      { url: SILERO },
    );
    await page.close();
    assert.equal(r.create.name, 'OrtkeepError');
    assert.equal(r.create.code, 'INVALID_ARG');
    assert.match(r.create.message, /'graphOptimisationLevel'.*did you mean 'graphOptimizationLevel'/);
    assert.equal(r.load.code, 'INVALID_ARG');
    assert.equal(r.load.details.nearest, 'executionProviders');
    assert.equal(r.run.code, 'INVALID_ARG');
    assert.equal(r.run.details.nearest, 'keep');
    assert.equal(r.overload.code, 'INVALID_ARG');
  });
});

describe('the script-tag drop-in (after ort.min.js)', () => {
  test("window.ort.InferenceSession is ortkeep's; Tensor and env stay; outputs equal onnxruntime-web", async () => {
    const page = await env.context.newPage();
    page.on('pageerror', (e) => console.error('[page error]', e.message));
    await page.goto(`${env.origin}/tests/browser/pages/dropin-script-tag.html`);
    await page.waitForFunction(() => window.ready === true, null, { timeout: 20000 });
    const r = await page.evaluate(
      async ({ url, SILERO_RUN }) => {
        const { ort, realOrt } = window;
        const feeds = new Function(`${SILERO_RUN}; return feeds;`)();
        const model = await (await fetch(url)).arrayBuffer();
        const session = await ort.InferenceSession.create(model);
        const ours = Array.from((await session.run(feeds(ort.Tensor))).output.data);
        const plain = await realOrt.InferenceSession.create(new Uint8Array(model));
        const theirs = Array.from((await plain.run(feeds(realOrt.Tensor))).output.data);
        return {
          pool: typeof session.pool?.stats,
          ours,
          theirs,
          tensor: ort.Tensor === realOrt.Tensor,
          env: ort.env === realOrt.env,
          global: typeof window.ortkeep?.load,
        };
      },
      { url: SILERO, SILERO_RUN },
    );
    await page.close();
    assert.equal(r.pool, 'function');
    assert.deepEqual(r.ours, r.theirs);
    assert.deepEqual([r.tensor, r.env, r.global], [true, true, 'function']);
  });
});
