// Launches Debian's Chromium through playwright-core with the flags this
// sandbox needs (PLATFORM.md). Playwright starts Chromium in its own process
// group, so callers must always close() what they launch.
import { chromium } from 'playwright-core';

export const CHROMIUM_PATH = process.env.ORTKEEP_CHROMIUM ?? '/usr/bin/chromium';

const BASE_ARGS = [
  '--no-sandbox',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/** @param {{webgpu?: boolean, args?: string[]}} [options] */
export function chromiumArgs({ webgpu = false, args = [] } = {}) {
  return [
    ...BASE_ARGS,
    ...(webgpu ? ['--enable-unsafe-webgpu', '--enable-features=Vulkan', '--use-angle=swiftshader'] : []),
    ...args,
  ];
}

/** A headless browser with an in-memory profile. */
export function launchBrowser(options = {}) {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: chromiumArgs(options) });
}

/** A headless browser with an on-disk profile (survives restarts). */
export function launchPersistent(userDataDir, options = {}) {
  return chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: chromiumArgs(options),
  });
}
