// Model-cache browser tests: one static server that lives through the whole
// file (IndexedDB is per origin: a restarted browser must see the same port) and
// one headless Chromium with an on-disk (persistent) profile.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import { launchPersistent } from '../../scripts/chromium.mjs';
import { REPO_ROOT, startServer } from '../../scripts/static-server.mjs';
import { REAL_MODELS } from '../models.mjs';
import { ensurePageBundle } from './page-bundle.mjs';

export const PAGE = '/tests/browser/pages/cache.html';
export const modelPath = (name) => `/${REAL_MODELS.find((m) => m.name === name).path}`;
export const modelBytes = (name) => readFile(path.join(REPO_ROOT, modelPath(name)));

/**
 * Registers before/after hooks; `env` holds server, context, origin,
 * newPage(), restart(), and `cdn`: a second origin that is a CORS-only CDN
 * (Access-Control-Allow-Origin: *, no exposed headers, preflights refused),
 * answering through `env.cdnHandler`.
 */
export function useCacheBrowser({ files, webgpu = false } = {}) {
  const env = { handler: null, cdnHandler: null };
  before(async () => {
    await ensurePageBundle();
    env.dir = await mkdtemp(path.join(tmpdir(), 'ortkeep-cache-'));
    // Port 0: the server outlives every browser restart in the file, so the
    // origin a restarted profile sees stays the same without a fixed port
    // (fixed ports collide with any other run on the machine).
    env.server = await startServer({ port: 0, handler: (...a) => env.handler?.(...a) ?? false, files });
    env.origin = env.server.origin;
    env.cdn = await startServer({
      port: 0,
      cors: { refusePreflight: true },
      handler: (...a) => env.cdnHandler?.(...a) ?? false,
    });
    await launch();
  });
  after(async () => {
    await env.context?.close();
    await env.server?.close();
    await env.cdn?.close();
    await rm(env.dir, { recursive: true, force: true });
  });
  env.newPage = async () => {
    const page = await env.context.newPage();
    page.on('pageerror', (e) => console.error('[page error]', e.message));
    await page.goto(env.origin + PAGE);
    await page.waitForFunction(() => window.ready === true, null, { timeout: 20000 });
    return page;
  };
  // The profile's own about:blank page stays open: the browser is driven
  // through it (site data cleared) without a page of the origin's.
  let blank;
  async function launch() {
    env.context = await launchPersistent(env.dir, { webgpu });
    blank = env.context.pages()[0] ?? (await env.context.newPage());
  }
  /** Closes the browser and starts it again on the same profile. */
  env.restart = async () => {
    await env.context.close();
    await launch();
  };
  /**
   * A fresh cache and counters between tests: every page closed, then the
   * origins' site data (IndexedDB, Cache API, localStorage: all ortkeep
   * keeps) cleared by the browser, as a user clearing site data would. A
   * page of the origin's opened only to call cache.clear() cost a page's
   * start per test (the 19 files on this: 725 s run alone, 621 s without
   * it); cache.clear() has tests of its own.
   */
  env.reset = async () => {
    env.handler = null;
    env.cdnHandler = null;
    for (const p of env.context.pages()) if (p !== blank) await p.close();
    const cdp = await env.context.newCDPSession(blank);
    try {
      for (const origin of [env.origin, env.cdn.origin])
        await cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' });
    } finally {
      await cdp.detach();
    }
    env.server.resetCounts();
    env.cdn.resetCounts();
  };
  return env;
}

/**
 * serveFile() options for a page served with headers of a test's own (a
 * CSP): its own ETag, so a copy the profile cached earlier is not
 * revalidated into it, and not stored, so no later page is served with them.
 */
export const NOT_CACHED = { etag: '"not-cached"', lastModified: undefined, headers: { 'cache-control': 'no-store' } };

/**
 * A handler serving `bytes` at `path`; options(n) gives serveBytes()
 * options for the n-th request (1-based). Returns the request log.
 */
export function serving(path, bytes, options = () => ({})) {
  const seen = [];
  return {
    seen,
    handler: (req, res, { pathname, serveBytes }) => {
      if (pathname !== path) return false;
      seen.push({
        range: req.headers.range ?? null,
        ifRange: req.headers['if-range'] ?? null,
        inm: req.headers['if-none-match'] ?? null,
      });
      serveBytes(req, res, bytes, options(seen.length));
      return true;
    },
  };
}

/**
 * A cut made once the page holds what precedes it: a browser drops the body
 * bytes still queued when a connection breaks, so a cut made at the server
 * alone leaves the page with fewer bytes than were sent. `options` goes into
 * serveBytes() for the answer to cut (cutAt and holdAt `at`); `cut(page,
 * readLoaded)` waits until readLoaded() in the page reports `at` bytes, then
 * lets the server cut.
 */
export function cutOnceHeld(at) {
  let release;
  const until = new Promise((resolve) => {
    release = resolve;
  });
  return {
    options: { cutAt: at, holdAt: at, until },
    async cut(page, readLoaded = () => window.downloaded ?? 0) {
      const give = Date.now() + 120000;
      try {
        while (!((await page.evaluate(readLoaded)) >= at)) {
          if (Date.now() > give) throw new Error(`the page never took in the first ${at} bytes`);
          await new Promise((res) => setTimeout(res, 20));
        }
      } finally {
        release(); // never leave the server's answer held
      }
    },
  };
}
