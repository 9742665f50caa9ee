// Where the page can fetch this package's own files (the core's .wasm, the
// capturing loaders) and onnxruntime-web's default .wasm. Every URL is written
// as a literal `new URL('…', import.meta.url)` because that is what bundlers
// look for: a Vite or webpack build emits the file with the app and rewrites
// the URL; Vite's dev server rewrites it to the install path. This module
// sits one folder below the package root, as the script-tag bundle does
// (dist/ortkeep.iife.js, whose import.meta.url is its own URL), so '../dist/'
// is the package's dist/ from both.

/** The C core's wasm. */
export function coreWasmUrl() {
  return new URL('../dist/ortkeep-core.wasm', import.meta.url);
}

/**
 * The capturing loaders derived at build time (dist/ort-capture/, by
 * scripts/derive-capture-loader.mjs) and their manifest; one literal per
 * file, since a built app renames each (content hashes) and a folder URL
 * points nowhere there.
 * @returns {{manifest: URL, loaders: Record<string, URL>}}
 */
export function captureUrls() {
  return {
    manifest: new URL('../dist/ort-capture/manifest.json', import.meta.url),
    loaders: {
      'ort-wasm-simd-threaded.mjs': new URL('../dist/ort-capture/ort-wasm-simd-threaded.mjs', import.meta.url),
      'ort-wasm-simd-threaded.jsep.mjs': new URL(
        '../dist/ort-capture/ort-wasm-simd-threaded.jsep.mjs',
        import.meta.url,
      ),
      'ort-wasm-simd-threaded.asyncify.mjs': new URL(
        '../dist/ort-capture/ort-wasm-simd-threaded.asyncify.mjs',
        import.meta.url,
      ),
      'ort-wasm-simd-threaded.jspi.mjs': new URL(
        '../dist/ort-capture/ort-wasm-simd-threaded.jspi.mjs',
        import.meta.url,
      ),
    },
  };
}

/**
 * onnxruntime-web's .wasm as installed beside this package (a peer
 * dependency is a sibling folder with npm, pnpm and yarn's node_modules).
 * Only the default bundle's file is a literal: a bundler then emits the same
 * asset onnxruntime-web's own bundle does (one file, not a copy), and never
 * the other bundles' binaries (tens of MB each) into an app that does not use
 * them; those are looked up beside it, which holds where node_modules is
 * served as is.
 * @param {string} wasmFile e.g. 'ort-wasm-simd-threaded.jsep.wasm'
 * @returns {URL}
 */
export function siblingOrtWasmUrl(wasmFile) {
  const jsep = new URL('../../onnxruntime-web/dist/ort-wasm-simd-threaded.jsep.wasm', import.meta.url);
  return wasmFile === 'ort-wasm-simd-threaded.jsep.wasm' ? jsep : new URL(wasmFile, jsep);
}

/**
 * onnxruntime-web's own loader as installed beside this package, for a page
 * whose onnxruntime-web is not the one ortkeep's build derived from (its
 * capturing loader is then derived from this text in the page). The default
 * bundle's loader is a literal, so a bundler emits the app's installed copy
 * of it; the others are looked up beside it.
 * @param {string} loaderFile e.g. 'ort-wasm-simd-threaded.jsep.mjs'
 * @returns {URL}
 */
export function siblingOrtLoaderUrl(loaderFile) {
  const jsep = new URL('../../onnxruntime-web/dist/ort-wasm-simd-threaded.jsep.mjs', import.meta.url);
  return loaderFile === 'ort-wasm-simd-threaded.jsep.mjs' ? jsep : new URL(loaderFile, jsep);
}

const PREBUNDLED = '/node_modules/.vite/';

/**
 * Vite 5-7's dev server pre-bundles ortkeep into /node_modules/.vite/deps/,
 * so a URL made from import.meta.url lands under /node_modules/.vite/, where
 * nothing is and the SPA fallback answers index.html; the package's files
 * are still served at its install path. That URL, for a URL made here, or
 * null when it was not moved.
 * @param {URL} url
 * @returns {URL|null}
 */
export function installedUrl(url) {
  if (!url.pathname?.includes(PREBUNDLED)) return null;
  const moved = new URL(url);
  moved.pathname = moved.pathname.replace(PREBUNDLED, '/node_modules/ortkeep/');
  return moved;
}

/** The first bytes of what a URL answered are wasm's magic (a dev server's SPA fallback answers HTML instead). */
export const isWasm = (b) => b[0] === 0 && b[1] === 0x61 && b[2] === 0x73 && b[3] === 0x6d;
