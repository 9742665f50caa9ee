// One server + one headless Chromium for a browser test file.
import { after, before } from 'node:test';
import { launchBrowser } from '../../scripts/chromium.mjs';
import { startServer } from '../../scripts/static-server.mjs';
import { ensurePageBundle } from './page-bundle.mjs';

/**
 * Registers before/after hooks and returns an object whose `server`,
 * `browser` and `newPage(path)` are live during the tests.
 */
export function useBrowser(options = {}) {
  const env = {};
  before(async () => {
    await ensurePageBundle();
    env.server = await startServer({ handler: (...a) => env.handler?.(...a) ?? false, files: options.files });
    env.browser = await launchBrowser(options);
  });
  after(async () => {
    await env.browser?.close();
    await env.server?.close();
  });
  env.newPage = async (pagePath) => {
    const context = await env.browser.newContext();
    const page = await context.newPage();
    page.on('pageerror', (e) => console.error('[page error]', e.message));
    await page.goto(env.server.origin + pagePath);
    await page.waitForFunction(() => window.ready === true, null, { timeout: 20000 });
    return page;
  };
  return env;
}
