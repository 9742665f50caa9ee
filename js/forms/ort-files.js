// Where onnxruntime-web's files are, for the loader the forms derive and
// the plain build runtime-choice.js starts: what the page told it
// (env.wasm.wasmPaths, forms options), where it looks itself (the module
// resolver, its script tag), and last a guess beside ortkeep's install,
// only where that may be this version. No request that may fail is made
// where an answer is known without one.
import { isNode } from '../platform/node.js';
import { isWasm, siblingOrtLoaderUrl, siblingOrtWasmUrl } from '../package-files.js';
import { formsOff } from './forms-off.js';
import { readJsonUrl } from './read-json.js';

/** Loader used by each bundle family: the Node and wasm-only bundles load the
 * plain loader; the default/all bundles the JSEP one; the webgpu bundle asyncify. */
export const LOADER_FOR_BUNDLE = {
  wasm: 'ort-wasm-simd-threaded.mjs',
  jsep: 'ort-wasm-simd-threaded.jsep.mjs',
  asyncify: 'ort-wasm-simd-threaded.asyncify.mjs',
  jspi: 'ort-wasm-simd-threaded.jspi.mjs',
};

/**
 * Where the page's loader is, most certain first: forms.loaderUrl, what the
 * page told onnxruntime-web (env.wasm.wasmPaths), the module resolver (Node;
 * an import map), next to the page's onnxruntime-web script tag, then the
 * copy a bundler emits of the onnxruntime-web installed beside ortkeep
 * (package-files.js). A guess not tied to the running onnxruntime-web is
 * tried only where its URL does not name another version (pinnedTo).
 */
export async function loaderCandidates(ort, file, given, version) {
  const out = [];
  if (given) out.push({ url: String(given) });
  const paths = ort.env.wasm.wasmPaths;
  if (typeof paths === 'string') out.push({ url: new URL(file, new URL(paths, globalThis.location?.href)).href });
  const resolved = resolveModule(`onnxruntime-web/${file}`) ?? (isNode ? null : resolvedOrt());
  if (resolved) out.push({ url: new URL(file, resolved).href });
  const script = pageOrtScript(ort);
  if (script && !namesOtherVersion(script, version)) out.push({ url: new URL(file, script).href });
  // the guess beside ortkeep's install carries its check: read only where it may be this version
  const ofThisVersion = (url) => pinnedTo(url, version);
  out.push({ url: siblingOrtLoaderUrl(file).href, ofThisVersion });
  return out;
}

/**
 * The real onnxruntime-web's module URL by the resolver (an import map):
 * ortkeep's own '#onnxruntime-web' (behind the drop-in's alias), else
 * 'onnxruntime-web' where that is onnxruntime-web's file and not the
 * drop-in's entry (js/onnxruntime-web.js) the alias maps it to.
 */
function resolvedOrt() {
  for (const specifier of ['#onnxruntime-web', 'onnxruntime-web']) {
    const url = resolveModule(specifier);
    if (url && /\/ort(\.[\w-]+)*\.m?js$/.test(new URL(url).pathname)) return url;
  }
  return null;
}

/** The page's onnxruntime-web script tag when it is the onnxruntime-web running here (the drop-in copies window.ort, env and all). */
function pageOrtScript(ort) {
  const g = globalThis.ort;
  return g && (g === ort || g.env === ort.env) ? ortScriptUrl() : null;
}

/**
 * The module resolver's answer, hidden from bundlers: webpack resolves a
 * literal import.meta.resolve() at build time against onnxruntime-web's
 * package exports, which have no "." for its conditions, and fails the build.
 */
function resolveModule(specifier) {
  try {
    const meta = import.meta;
    const resolve = meta[['re', 'solve'].join('')];
    return typeof resolve === 'function' ? resolve.call(meta, specifier) : null;
  } catch {
    return null;
  }
}

/**
 * Whether a guessed file may be of this onnxruntime-web version, asking no
 * URL that may not exist: a CDN path's `onnxruntime-web@x.y.z/` says it; an
 * unversioned CDN path (`…/onnxruntime-web/dist/`, outside node_modules)
 * answers whatever release is newest there, so never; under node_modules
 * the package.json npm installed beside dist/ says it, where it can be
 * read; elsewhere it is a bundler's copy of the installed package.
 */
async function pinnedTo(fileUrl, version) {
  const { pathname } = new URL(fileUrl);
  if (/\/onnxruntime-web@[^/]+\//.test(pathname)) return !namesOtherVersion(fileUrl, version);
  const nodeModules = /\/node_modules\/(?:@[^/]+\/)?[^/]+\/dist\/[^/]+$/.test(pathname);
  if (!nodeModules) return !/\/onnxruntime-web\/dist\//.test(pathname);
  try {
    const pkg = await readJsonUrl(new URL('../package.json', fileUrl));
    return pkg?.name !== 'onnxruntime-web' || pkg.version === version;
  } catch {
    return true; // a dev server that serves node_modules' files but not that one: the app's installed package
  }
}

/** Whether a URL's path pins onnxruntime-web to a version other than this one (a CDN's `onnxruntime-web@x.y.z/`). */
function namesOtherVersion(url, version) {
  const at = /\/onnxruntime-web@([^/]+)\//.exec(new URL(url).pathname);
  return !!at && decodeURIComponent(at[1]) !== version;
}

/** The URL of the page's onnxruntime-web script (ort.min.js, ort.webgpu.min.js, …), if one is there. */
export function ortScriptUrl() {
  if (typeof document === 'undefined') return null;
  for (const el of document.querySelectorAll('script[src]')) {
    try {
      const url = new URL(el.src, document.baseURI);
      if (/\/ort(\.[\w-]+)*\.js$/.test(url.pathname)) return url;
    } catch {
      /* not a URL */
    }
  }
  return null;
}

/**
 * The URL of onnxruntime-web's own .wasm for a loader: the binary is never
 * changed, only the JS loader is. What the page told onnxruntime-web
 * (env.wasm.wasmPaths, or forms.wasmUrl) is taken as given (a loader it named
 * without a .wasm: the one beside it, where that loader looks); failing that,
 * where the running onnxruntime-web looks itself, asking nothing: beside its
 * module (the resolver: Node's package exports, an import map) or its script
 * tag (unless its URL pins another version); last, onnxruntime-web installed
 * beside ortkeep (package-files.js), only where that URL may be this version
 * (pinnedTo) and answers with a wasm binary: a loader paired with another
 * release's .wasm never settles.
 * @returns {Promise<string|null>} null: the page named a blob: loader and no .wasm (left to that loader)
 * @throws {OrtkeepError} FORMS_OFF no-wasm-url
 */
export async function wasmUrlFor(ort, file, explicit, version, named) {
  const wasmFile = file.replace(/\.mjs$/, '.wasm');
  if (explicit) return String(explicit);
  const paths = ort.env.wasm.wasmPaths;
  if (typeof paths === 'string') return new URL(wasmFile, new URL(paths, globalThis.location?.href)).href;
  if (paths?.wasm) return String(paths.wasm.href ?? paths.wasm);
  if (named) return /^(blob|data):/.test(named.url) ? null : new URL(wasmFile, named.url).href;
  const guesses = [];
  if (isNode) {
    const url = resolveModule(`onnxruntime-web/${wasmFile}`);
    if (url) return url;
    guesses.push(`onnxruntime-web/${wasmFile}`);
  } else {
    // where the running onnxruntime-web itself looks, beside its module (the
    // resolver's answer) or its script tag, is taken without a request
    const resolved = resolvedOrt();
    if (resolved) return new URL(wasmFile, resolved).href;
    const script = pageOrtScript(ort);
    if (script && !namesOtherVersion(script, version)) return new URL(wasmFile, script).href;
    // a guess beside ortkeep's install: of this version, and answering with a wasm binary
    const sibling = siblingOrtWasmUrl(wasmFile).href;
    guesses.push(sibling);
    if ((await pinnedTo(sibling, version)) && (await answersWasm(sibling))) return sibling;
  }
  throw formsOff(
    'no-wasm-url',
    `cannot find onnxruntime-web ${version ?? ''}'s ${wasmFile}${guesses.length ? ` (none of this version at ${guesses.join(', ')})` : ''}; ` +
      `tell onnxruntime-web where it is served before load(): ort.env.wasm.wasmPaths = { wasm: url } (in Vite: import url from 'onnxruntime-web/${wasmFile}?url'), ` +
      `or ort.env.wasm.wasmPaths = '/path/to/onnxruntime-web/dist/'; or pass load(src, { forms: { wasmUrl: url } })`,
  );
}

/**
 * onnxruntime-web's plain build (its loader and .wasm) of the version
 * running here, where it is known without a request that may fail: in the
 * folder the app named (env.wasm.wasmPaths, a whole dist/), beside
 * the module the resolver names (an import map) or the page's script tag
 * (unless its URL pins another version), or in the onnxruntime-web folder
 * installed beside ortkeep where node_modules is served as is (a bundled
 * app renames its assets and emits only the files it references: none).
 * @param {object} ort onnxruntime-web
 * @param {unknown} [paths] env.wasm.wasmPaths as the app set it (by default: as it is now)
 * @returns {Promise<{mjs: string, wasm: string} | null>}
 */
export async function plainBuildUrls(ort, paths = ort.env?.wasm?.wasmPaths) {
  const version = ort.env?.versions?.web;
  const wasmFile = 'ort-wasm-simd-threaded.wasm';
  // a folder the app named (runtime-choice.js: only a whole dist/ of this version)
  let base = typeof paths === 'string' ? new URL(paths, globalThis.location?.href) : resolvedOrt();
  const script = base ? null : pageOrtScript(ort);
  if (script && !namesOtherVersion(script, version)) base = script;
  if (!base) {
    const sibling = siblingOrtWasmUrl(wasmFile);
    if (
      /\/node_modules\/onnxruntime-web\/dist\/[^/]+$/.test(sibling.pathname) &&
      (await pinnedTo(sibling.href, version)) &&
      (await answersWasm(sibling.href))
    )
      base = sibling;
  }
  return base ? { mjs: new URL(LOADER_FOR_BUNDLE.wasm, base).href, wasm: new URL(wasmFile, base).href } : null;
}

/**
 * Whether a URL answers with a wasm binary: its first four bytes, asked for
 * with `Range: bytes=0-3` (CORS-safelisted: no preflight), must be the wasm
 * magic. Not a HEAD: a host that refuses HEAD (405) prints an error in the
 * app's console that plain onnxruntime-web never causes. A host that ignores
 * Range answers it whole: only its start is read, then the body is dropped
 * (the page fetches this file in a moment anyway).
 */
async function answersWasm(url) {
  try {
    const response = await fetch(url, { headers: { Range: 'bytes=0-3' } });
    if (!response.ok || !response.body) return false;
    const reader = response.body.getReader();
    const first = new Uint8Array(4);
    let n = 0;
    while (n < 4) {
      const { value, done } = await reader.read();
      if (done) break;
      const take = value.subarray(0, 4 - n);
      first.set(take, n);
      n += take.byteLength;
    }
    reader.cancel().catch(() => {});
    return n === 4 && isWasm(first);
  } catch {
    return false;
  }
}
