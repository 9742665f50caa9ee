// The capturing loader, found or derived, and installed: one entry point,
// captureLoader(ort, options), called once per page. The fast path is the
// copy derived at build time (dist/ort-capture/, scripts/derive-capture-loader.mjs)
// for the onnxruntime-web ortkeep was built with; for any other version the
// loader the page itself uses is fetched, derived here with the same exact
// edits (js/forms/loader-patch.js) and imported from a Blob URL (a data: URL
// in Node). Any doubt turns forms off with one typed FORMS_OFF that names the
// reason and what to do; onnxruntime-web is pointed at a loader only once it
// has been imported here, since a loader it cannot import fails its
// initialization for good in this page.
import { OrtkeepError } from '../errors.js';
import { isNode } from '../platform/node.js';
import { captureUrls, installedUrl } from '../package-files.js';
import { sha256Hex } from '../util/sha256.js';
import { formsOff } from './forms-off.js';
import { deriveLoaderText, LOADED_KEY, LoaderPatchError, loaderFlavour, SINK_KEY } from './loader-patch.js';
import { LOADER_FOR_BUNDLE, loaderCandidates, wasmUrlFor } from './ort-files.js';
import { readJsonUrl, readTextUrl } from './read-json.js';

export { LOADED_KEY, SINK_KEY };

/** onnxruntime-web's wasm memory in bytes, when a derived loader runs it (else null). */
export function ortHeapBytes() {
  try {
    return globalThis[Symbol.for(LOADED_KEY)]?.heapBytes?.() ?? null;
  } catch {
    return null;
  }
}

/**
 * @typedef {object} CaptureManifest
 * @property {string} onnxruntimeWeb the version the loaders were derived from
 * @property {string} sinkKey Symbol.for key of the sink the loaders write to
 * @property {string} loadedKey Symbol.for key a derived loader sets when it runs
 * @property {Record<string, {wasm: string, sha256: string, sourceSha256: string}>} loaders
 */

/**
 * @typedef {object} CaptureLoader the loader installed in this realm
 * @property {string} file the loader's name (ort-wasm-simd-threaded.jsep.mjs, …)
 * @property {string} version the onnxruntime-web it was derived from
 * @property {'build'|'page'} derived at build time (dist/ort-capture/) or here from the page's loader
 * @property {string} sinkKey
 * @property {string} loadedKey
 */

/**
 * @typedef {object} LoaderOptions
 * @property {'wasm'|'jsep'|'asyncify'|'jspi'} [bundle] which onnxruntime-web bundle the page imports
 * @property {string|URL} [wasmUrl] onnxruntime-web's own .wasm for that bundle, when it cannot be found
 * @property {string|URL} [captureBase] the folder serving a copy of dist/ort-capture/
 * @property {string|URL} [loaderUrl] the page's onnxruntime-web loader (.mjs), when it cannot be found
 * @property {CaptureManifest} [manifest] the build's manifest, if already read
 */

/** Per realm: the loader installed, or why not (onnxruntime-web picks its loader once). */
let installed = null;

/**
 * Makes onnxruntime-web use a capturing loader in this realm, once: call it
 * before the page's first session. Unarmed, the loader behaves as the
 * original, so every other session is unaffected. Later calls answer the
 * first installation.
 * @param {object} ort onnxruntime-web
 * @param {LoaderOptions} [options]
 * @returns {Promise<CaptureLoader>}
 * @throws {OrtkeepError} FORMS_OFF (details.reason: proxy, derivation-missing, loader-unreadable,
 *   loader-unknown, loader-blocked, loader-mismatch, no-wasm-url)
 */
export function captureLoader(ort, options = {}) {
  // a refusal is not kept: nothing was installed, and other options may do
  installed ??= install(ort, options).catch((e) => {
    installed = null;
    throw e;
  });
  return installed;
}

async function install(ort, options) {
  if (ort.env?.wasm?.proxy) {
    throw formsOff(
      'proxy',
      'onnxruntime-web runs in a proxy worker (env.wasm.proxy), where the capturing loader cannot be reached',
    );
  }
  const version = ort.env?.versions?.web;
  // One flavour, always paired: a loader the page named (env.wasm.wasmPaths.mjs,
  // a blob: URL included) is what onnxruntime-web imports, whatever the entry,
  // so its flavour decides the capturing loader's; the .wasm stays the page's.
  const named = await namedLoader(ort);
  const bundle = named?.bundle ?? options.bundle ?? (isNode ? 'wasm' : 'jsep');
  const file = LOADER_FOR_BUNDLE[bundle];
  if (!file)
    throw new OrtkeepError(
      'INVALID_ARG',
      `ortkeep: forms.bundle must be one of ${Object.keys(LOADER_FOR_BUNDLE).join(', ')}; got ${bundle}`,
    );
  const loader = { file, version, sinkKey: SINK_KEY, loadedKey: LOADED_KEY };
  const live = globalThis[Symbol.for(LOADED_KEY)];
  if (live) {
    if (live.loader !== file || live.version !== version) {
      throw formsOff(
        'loader-mismatch',
        `the capturing loader running here is ${live.loader} (${live.version}), not ${file} (${version}); pass the bundle this page imports`,
      );
    }
    return { ...loader, derived: 'build' };
  }
  // where onnxruntime-web's .wasm is, looked for beside reading the manifest and
  // importing the loader (its failure is reported after theirs)
  const wasmHref = ort.env.wasm.wasmBinary
    ? Promise.resolve(null)
    : wasmUrlFor(ort, file, options.wasmUrl, version, named);
  wasmHref.catch(() => {});
  const built = await buildCopy(options, file);
  let use = null;
  if (named?.text != null) {
    // the page's own loader at hand: the build's copy only where it was derived from that very text
    // (and finds its .wasm: a blob: loader named with no .wasm is left to find it as the original would)
    const wasmGiven = !!(ort.env.wasm.wasmBinary || options.wasmUrl || ort.env.wasm.wasmPaths?.wasm);
    const same =
      built.url && built.version === version && built.sourceSha256 && (wasmGiven || !/^(blob|data):/.test(named.url))
        ? built.sourceSha256 === (await textSha256(named.text))
        : false;
    if (same) use = { url: built.url, derived: 'build' };
  } else if (built.url && built.version === version) use = { url: built.url, derived: 'build' };
  // else derived here, from the loader the page named or the one it would import
  use ??= await derivedHere(ort, options, named, file, version, built);
  try {
    await import(/* @vite-ignore */ /* webpackIgnore: true */ use.url);
  } catch (e) {
    const shown =
      use.derived === 'page' ? `derived here from ${use.from} (a ${isNode ? 'data' : 'blob'}: URL)` : use.url;
    throw formsOff(
      'loader-blocked',
      `the capturing loader ${shown} could not be imported (${e?.message ?? e}); ` +
        (use.derived === 'page'
          ? `a Content-Security-Policy script-src must allow blob: for it, or run onnxruntime-web ${built.version ?? 'the version ortkeep was built with'}, whose capturing loader ortkeep ships`
          : 'a Content-Security-Policy script-src must allow it, and it must be served (forms.captureBase: the folder serving a copy of node_modules/ortkeep/dist/ort-capture/)'),
      e,
    );
  }
  const wasmUrl = await wasmHref;
  ort.env.wasm.wasmPaths = wasmUrl ? { mjs: use.url, wasm: wasmUrl } : { mjs: use.url };
  return { ...loader, derived: use.derived };
}

/**
 * The loader the page named (env.wasm.wasmPaths.mjs): its flavour read off
 * its text (a blob: URL's too), else off its file name; null where the page
 * named none (onnxruntime-web then imports its entry's own).
 * @returns {Promise<{url: string, bundle: string, text: string|null} | null>}
 * @throws {OrtkeepError} FORMS_OFF loader-unknown, loader-unreadable
 */
async function namedLoader(ort) {
  const paths = ort.env?.wasm?.wasmPaths;
  const mjs = paths && typeof paths === 'object' ? paths.mjs : null;
  if (!mjs) return null;
  const url = String(mjs.href ?? mjs);
  const byName = /(?:^|\/)ort-wasm-simd-threaded(?:\.(jsep|asyncify|jspi))?\.mjs$/.exec(
    url.startsWith('blob:') || url.startsWith('data:') ? '' : new URL(url, globalThis.location?.href).pathname,
  );
  let text = null;
  try {
    text = await readTextUrl(new URL(url, globalThis.location?.href));
  } catch (e) {
    // a loader ortkeep cannot read (a CSP's connect-src) is known by its name alone, or not at all
    if (byName) return { url, bundle: byName[1] ?? 'wasm', text: null };
    throw formsOff(
      'loader-unreadable',
      `this page's env.wasm.wasmPaths.mjs (${url}) could not be read to tell which onnxruntime-web loader it is ` +
        `(${e?.message ?? e}); a Content-Security-Policy connect-src must allow it, or use forms: false`,
      e,
    );
  }
  const bundle = loaderFlavour(text);
  if (!bundle) {
    throw formsOff(
      'loader-unknown',
      `this page's env.wasm.wasmPaths.mjs (${url}) is not an onnxruntime-web loader ortkeep knows ` +
        '(ort-wasm-simd-threaded{,.jsep,.asyncify,.jspi}.mjs); ortkeep leaves it as it is and loads models in their original form',
    );
  }
  return { url, bundle, text };
}

/** SHA-256 of a text, lowercase hex (null where WebCrypto is missing: an insecure http: page). */
async function textSha256(text) {
  try {
    return await sha256Hex(new TextEncoder().encode(text));
  } catch {
    return null;
  }
}

/**
 * The build's copy: its URL and the version it was derived from, or why
 * there is none (not built, not served; a bundler inlines the small manifest
 * as a data: URL, which a CSP's connect-src may refuse).
 * @returns {Promise<{url?: string, version?: string, sourceSha256?: string, why?: string}>}
 */
async function buildCopy(options, file) {
  let files = captureFiles(options.captureBase);
  let manifest = options.manifest;
  if (!manifest) {
    try {
      ({ manifest, files } = await readManifest(files));
    } catch (e) {
      return { why: e.message };
    }
  }
  const entry = manifest.loaders?.[file];
  if (!entry) return { version: manifest.onnxruntimeWeb, why: `the build derived no ${file}` };
  return { url: files.loader(file).href, version: manifest.onnxruntimeWeb, sourceSha256: entry.sourceSha256 };
}

/** Where the build's files are: forms.captureBase's folder, else where package-files.js finds them. */
function captureFiles(captureBase) {
  if (captureBase != null) {
    const base = new URL(String(captureBase), globalThis.location?.href);
    return { manifest: new URL('manifest.json', base), loader: (file) => new URL(file, base), given: true };
  }
  const { manifest, loaders } = captureUrls();
  return { manifest, loader: (file) => loaders[file] ?? new URL(file, manifest), given: false };
}

/** The build's manifest; where a dev server moved this module, from the install path (package-files.js). */
async function readManifest(files) {
  let first;
  try {
    return { manifest: await readJsonUrl(files.manifest), files };
  } catch (e) {
    first = e;
  }
  const moved = !files.given && installedUrl(files.manifest);
  if (moved) {
    try {
      const manifest = await readJsonUrl(moved);
      return {
        manifest,
        files: {
          ...files,
          manifest: moved,
          loader: (file) => installedUrl(files.loader(file)) ?? new URL(file, moved),
        },
      };
    } catch {
      /* the first failure is the one to report */
    }
  }
  const at =
    files.manifest.protocol === 'data:'
      ? 'the manifest a bundler inlined as a data: URL (a CSP connect-src must allow data:)'
      : files.manifest;
  throw new Error(`no capturing loader at ${at} (${first?.message ?? first})`);
}

/**
 * The capturing loader derived here from the page's own loader, in one pass:
 * its text (the loader the page named, else the file onnxruntime-web would
 * import, found by pageLoaderText), its edits (loader-patch.js), handed over
 * as a Blob URL (a data: URL in Node) whose import.meta.url still names the
 * original's place.
 * @returns {Promise<{url: string, derived: 'page', from: string}>}
 */
async function derivedHere(ort, options, named, file, version, built) {
  const why =
    built.why ??
    `the build's is for onnxruntime-web ${built.version}, this page runs ${version ?? 'an unknown version'}`;
  if (!version)
    throw formsOff('derivation-missing', `onnxruntime-web does not say its version (ort.env.versions.web); ${why}`);
  const { text, from } =
    named?.text != null
      ? { text: named.text, from: named.url }
      : await pageLoaderText(ort, options.loaderUrl, file, version, why);
  let derived;
  try {
    derived = deriveLoaderText(text, { version, file, baseUrl: from });
  } catch (e) {
    if (!(e instanceof LoaderPatchError)) throw e;
    throw formsOff(
      'loader-unknown',
      `${why}, and ${from} is not a loader ortkeep can derive from (${e.message}); ` +
        `run onnxruntime-web ${built.version ?? 'of a version ortkeep was tested with'}, or report this version`,
      e,
    );
  }
  const url = isNode
    ? `data:text/javascript;base64,${Buffer.from(derived).toString('base64')}`
    : URL.createObjectURL(new Blob([derived], { type: 'text/javascript' }));
  return { url, derived: 'page', from };
}

/**
 * The page's own loader's text, read from the first of loaderCandidates
 * that answers (a guess that may be another version only once pinnedTo
 * says it is not).
 * @returns {Promise<{text: string, from: string}>}
 * @throws {OrtkeepError} FORMS_OFF loader-unreadable
 */
async function pageLoaderText(ort, given, file, version, why) {
  const tried = [];
  for (const { url, ofThisVersion } of await loaderCandidates(ort, file, given, version)) {
    try {
      if (ofThisVersion && !(await ofThisVersion(url))) {
        tried.push(`${url} (another onnxruntime-web)`);
        continue;
      }
      return { text: await readTextUrl(url), from: url };
    } catch (e) {
      tried.push(`${url} (${e?.message ?? e})`);
    }
  }
  throw formsOff(
    'loader-unreadable',
    `${why}, and this page's ${file} could not be read to derive one` +
      `${tried.length ? ` (tried ${tried.join(', ')})` : ''}; tell onnxruntime-web where its files are served before load(): ` +
      `ort.env.wasm.wasmPaths = '/path/to/onnxruntime-web/dist/' (a Content-Security-Policy connect-src must allow it), ` +
      'or pass load(src, { forms: { loaderUrl } }); or use forms: false',
  );
}
