// Forms for whatever onnxruntime-web a page runs, in Chromium: the
// script-tag bundle after each onnxruntime-web's own ort.min.js (1.21.0,
// 1.22.0, 1.27.0, 1.30.0 and 1.31.0-dev, installed as devDependencies under aliases,
// so nothing is fetched from outside). ortkeep's build derived its capturing
// loaders from 1.30.0 only: every other version's loader is derived in the
// page from the one next to its ort.min.js and imported from a Blob URL.
// Two visits in one profile: the first captures, verifies and stores a form
// in the background (the .ort first: the second visit creates it in place,
// in every version); the second is served from that verified form at
// 'disabled', with outputs equal to plain onnxruntime-web in the same page.
// A Content-Security-Policy that forbids blob: scripts turns forms off with
// exactly one FORMS_OFF through onWarning, and outputs stay right.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { launchBrowser } from '../../scripts/chromium.mjs';
import { REPO_ROOT, startServer } from '../../scripts/static-server.mjs';
import { REAL_MODELS } from '../models.mjs';

const PAGES = path.join(REPO_ROOT, 'build/scratch-forms-versions');
const MODEL = `/${REAL_MODELS.find((m) => m.name === 'silero_vad_v5').path}`;
/** The alias each version is installed under (package.json devDependencies). */
const VERSIONS = {
  '1.21.0': 'ort121',
  '1.22.0': 'ort122',
  '1.27.0': 'ort127',
  '1.30.0': 'onnxruntime-web',
  '1.31.0-dev.20260914-8d85527a0': 'ort131',
};
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'";
// What the page passes to load(): nothing about forms (on by default), a warnings handler.
const LOAD_OPTIONS = '{ onWarning: (w) => warnings.push(w) }';

const RUN_JS = `const ort = window.ort;
ort.env.wasm.numThreads = 1;
const feeds = () => ({
  input: new ort.Tensor('float32', Float32Array.from({ length: 512 }, (_, i) => Math.sin(i / 9)), [1, 512]),
  state: new ort.Tensor('float32', new Float32Array(256), [2, 1, 128]),
  sr: new ort.Tensor('int64', BigInt64Array.from([16000n]), []),
});
const warnings = [];
try {
  const session = await window.ortkeep.load(${JSON.stringify(MODEL)}, ${LOAD_OPTIONS});
  const ours = await session.run(feeds());
  const background = await session.formsReady;
  // a second load() in the same page: no second warning
  await (await window.ortkeep.load(${JSON.stringify(MODEL)}, { ...${LOAD_OPTIONS}, memory: false })).release();
  const plain = await ort.InferenceSession.create(${JSON.stringify(MODEL)});
  const theirs = await plain.run(feeds());
  window.result = {
    ok: true, version: ort.env.versions.web, ours: Array.from(ours.output.data), theirs: Array.from(theirs.output.data),
    tier: session.info.cache.tier, form: session.info.form, stored: background.stored, failed: background.failed,
    warnings: warnings.map((w) => ({ code: w.code, reason: w.reason, message: w.message })),
  };
} catch (e) {
  window.result = { ok: false, code: e?.code, message: String(e?.message ?? e), warnings };
}
`;

let server;
let browser;

/** |a-b| <= 1e-4 + 1e-3|a|, the forms' round-trip tolerance (fusions reorder float sums). */
function assertClose(ours, theirs, what) {
  assert.equal(ours.length, theirs.length, what);
  ours.forEach((a, i) =>
    assert.ok(Math.abs(a - theirs[i]) <= 1e-4 + 1e-3 * Math.abs(a), `${what}: output ${i}: ${a} vs ${theirs[i]}`),
  );
}

async function visit(context, page) {
  const tab = await context.newPage();
  const console = [];
  tab.on('console', (m) => {
    if (m.type() === 'warning' || m.type() === 'error') console.push(m.text());
  });
  try {
    await tab.goto(`${server.origin}/build/scratch-forms-versions/${page}`);
    await tab.waitForFunction(() => window.result !== undefined, null, { timeout: 120000 });
    return { ...(await tab.evaluate(() => window.result)), console };
  } finally {
    await tab.close();
  }
}

describe('forms for every onnxruntime-web, script-tag bundle (Chromium)', () => {
  before(async () => {
    mkdirSync(PAGES, { recursive: true });
    writeFileSync(path.join(PAGES, 'run.js'), RUN_JS);
    for (const [version, pkg] of Object.entries(VERSIONS)) {
      const installed = JSON.parse(
        readFileSync(path.join(REPO_ROOT, 'node_modules', pkg, 'package.json'), 'utf8'),
      ).version;
      assert.equal(installed, version, `node_modules/${pkg} is onnxruntime-web ${version}`);
      writeFileSync(
        path.join(PAGES, `${pkg}.html`),
        `<!doctype html><html><body>
<script src="/node_modules/${pkg}/dist/ort.min.js"></script>
<script src="/dist/ortkeep.iife.js"></script>
<script type="module" src="run.js"></script>
</body></html>`,
      );
    }
    server = await startServer({
      handler: (req, res, { pathname, serveFile }) => {
        if (!pathname.endsWith('.html') || !req.url.includes('csp=1')) return false;
        res.setHeader('Content-Security-Policy', CSP);
        return serveFile(req, res, pathname, {}).then(() => true);
      },
    });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  for (const [version, pkg] of Object.entries(VERSIONS)) {
    test(`onnxruntime-web ${version}: load() captures, verifies and stores a form; the second visit is served from it at 'disabled', equal to plain onnxruntime-web`, async () => {
      const context = await browser.newContext();
      try {
        const first = await visit(context, `${pkg}.html`);
        assert.equal(first.ok, true, `first visit: ${first.code}: ${first.message} ${first.console.join(' | ')}`);
        assert.equal(first.version, version);
        assert.equal(first.tier, 'network');
        assert.deepEqual(first.ours, first.theirs, 'the original equals plain onnxruntime-web');
        assert.equal(
          first.form.chosen,
          'capturing',
          `forms are on: ${JSON.stringify(first.form)} ${first.console.join(' | ')}`,
        );
        assert.ok(
          ['onnx', 'ort'].includes(first.stored),
          `a form was verified and stored: ${JSON.stringify(first.failed)}`,
        );
        const second = await visit(context, `${pkg}.html`);
        assert.equal(second.ok, true, `second visit: ${second.code}: ${second.message}`);
        assert.equal(second.tier, 'indexeddb');
        assert.deepEqual(
          { form: second.form.form, level: second.form.level, chosen: second.form.chosen },
          { form: first.stored, level: 'disabled', chosen: 'verified' },
        );
        console.log(
          `[forms-versions] ${version}: the second visit served .${second.form.form}${second.form.inPlace ? ' in place' : ''}`,
        );
        // every loader from 1.21 on hands ortkeep its module: the .ort form lies where it was placed
        assert.equal(
          second.form.inPlace,
          second.form.form === 'ort',
          `${version}: an .ort form is created in place: ${JSON.stringify(second.form)}`,
        );
        assertClose(second.ours, second.theirs, `${version}: the verified form against plain onnxruntime-web`);
        for (const v of [first, second]) {
          assert.deepEqual(v.warnings, [], 'no warning');
          assert.deepEqual(
            v.console.filter((w) => /ortkeep/.test(w)),
            [],
            'no ortkeep console warning',
          );
        }
      } finally {
        await context.close();
      }
    });
  }

  test('a Content-Security-Policy without blob: scripts (onnxruntime-web 1.27.0, derived in the page): one FORMS_OFF through onWarning saying why and what to do; outputs equal to plain onnxruntime-web', async () => {
    const context = await browser.newContext();
    try {
      const r = await visit(context, 'ort127.html?csp=1');
      assert.equal(r.ok, true, `${r.code}: ${r.message}`);
      assert.deepEqual(r.ours, r.theirs);
      assert.equal(r.form.chosen, 'off');
      assert.equal(r.form.why, 'loader-blocked');
      assert.equal(r.warnings.length, 1, JSON.stringify(r.warnings));
      assert.equal(r.warnings[0].code, 'FORMS_OFF');
      assert.equal(r.warnings[0].reason, 'loader-blocked');
      assert.match(r.warnings[0].message, /script-src must allow blob:/);
      assert.match(r.warnings[0].message, /onnxruntime-web 1\.30\.0/, 'names the version whose loader ortkeep ships');
    } finally {
      await context.close();
    }
  });
});
