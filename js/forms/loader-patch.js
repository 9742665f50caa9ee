// The capturing loader's text edits: pure string work on one of
// onnxruntime-web's Emscripten loaders (ort-wasm-simd-threaded*.mjs), shared
// by the build (scripts/derive-capture-loader.mjs, from node_modules) and the
// page (js/forms/capture-loader.js, from the loader the page already uses).
// No imports: it runs in Node and in every browser build as it is.
//
// Why: the wasm build of onnxruntime has no file system, so the bytes of
// `optimizedModelFilePath` reach Emscripten's no-filesystem fd_write stub
// (which only knows stdout/stderr) and fd_close returns ENOSYS. The derived
// loader sends writes and closes of any fd other than 1/2 to a sink that
// ortkeep arms on globalThis for one session creation; unarmed, it behaves
// exactly like the original. The .wasm binary is never touched.
//
// The minified names differ in every onnxruntime-web release, so they are
// read off the text by the shape Emscripten gives these two stubs; every
// edit must then match exactly once, or nothing is derived (never a fuzzier
// match). Read from 1.22.0, 1.27.0, 1.30.0 and 1.31.0-dev loaders.

/** globalThis keys the derived loaders share with ortkeep (Symbol.for keys cross module copies). */
export const SINK_KEY = 'ortkeep.capture.sink';
export const LOADED_KEY = 'ortkeep.capture.loaded';

const ID = '[\\w$]+';
/** fd_close: `function C(a){return PT?PX(N,1,a):52}` (52: ENOSYS). */
const CLOSE = new RegExp(`function (${ID})\\((${ID})\\)\\{return (${ID})\\?(${ID})\\((\\d+),1,\\2\\):52\\}`, 'g');
/**
 * fd_write: `function W(fd,iov,cnt,pnum){if(PT)return PX(N,1,fd,iov,cnt,pnum);iov>>>=0;cnt>>>=0;pnum>>>=0;`
 * then a loop over the iovecs that reads HEAPU32 (`(v(),D)` or `I()`) and
 * HEAPU8 byte by byte: the views the derived code reads through.
 */
const WRITE = new RegExp(
  `function (${ID})\\((${ID}),(${ID}),(${ID}),(${ID})\\)\\{if\\((${ID})\\)return (${ID})\\((\\d+),1,\\2,\\3,\\4,\\5\\);` +
    '\\3>>>=0;\\4>>>=0;\\5>>>=0;' +
    `for\\(var ${ID}=0,${ID}=0;${ID}<\\4;${ID}\\+\\+\\)\\{var (${ID})=(\\(${ID}\\(\\),${ID}\\)|${ID}\\(\\))\\[\\3>>>2>>>0\\],(${ID})=\\10\\[\\3\\+4>>>2>>>0\\];` +
    `\\3\\+=8;for\\(var (${ID})=0;\\12<\\11;\\12\\+\\+\\)\\{(?:var ${ID}=${ID},)?(?:var )?${ID}=(\\(${ID}\\(\\),${ID}\\)|${ID}\\(\\))\\[\\9\\+\\12>>>0\\]`,
  'g',
);
/** Where the module factory's body starts (1.23+ and 1.22's shapes). */
const FACTORIES = ['async function ortWasmThreaded(moduleArg={}){', 'async function(moduleArg = {}) {'];

/** A derivation failure: `what` names the pattern, the message says how it failed. */
export class LoaderPatchError extends Error {
  constructor(what, message) {
    super(message);
    this.what = what;
  }
}

function only(text, re, what, file) {
  const found = [...text.matchAll(re)];
  if (found.length !== 1)
    throw new LoaderPatchError(what, `${file}: the ${what} stub occurs ${found.length} times (exactly 1 expected)`);
  return found[0];
}

/**
 * The names a loader's edits use, read off its text.
 * @param {string} text the loader's JavaScript
 * @param {string} [file] its name, for messages
 * @returns {{factory: string, pthread: string, proxy: string, close: string, closeCall: number, write: string,
 *   writeCall: number, args: string[], u32: string, u8: string}}
 */
export function loaderNames(text, file = 'the loader') {
  const c = only(text, CLOSE, 'fd_close', file);
  const w = only(text, WRITE, 'fd_write', file);
  if (c[3] !== w[6] || c[4] !== w[7]) {
    throw new LoaderPatchError(
      'pthread',
      `${file}: fd_close and fd_write guard their proxying differently (${c[3]}/${c[4]}, ${w[6]}/${w[7]})`,
    );
  }
  const factories = FACTORIES.filter((f) => text.split(f).length === 2);
  if (factories.length !== 1) throw new LoaderPatchError('factory', `${file}: no single module factory to mark`);
  return {
    factory: factories[0],
    pthread: c[3],
    proxy: c[4],
    close: c[1],
    closeCall: Number(c[5]),
    write: w[1],
    writeCall: Number(w[8]),
    args: [w[2], w[3], w[4], w[5]],
    u32: w[10],
    u8: w[13],
  };
}

/** The exact edits for one loader: [what, find, replace]. */
export function loaderEdits(version, file, n) {
  const [fd, iov, iovcnt, pnum] = n.args;
  const sink = `globalThis[Symbol.for(${JSON.stringify(SINK_KEY)})]`;
  const loaded = `globalThis[Symbol.for(${JSON.stringify(LOADED_KEY)})]`;
  const proxyClose = `${n.proxy}(${n.closeCall},1,a)`;
  const closeStub = `function ${n.close}(a){return ${n.pthread}?${proxyClose}:52}`;
  const args = n.args.join();
  const writeHead =
    `function ${n.write}(${args}){if(${n.pthread})return ${n.proxy}(${n.writeCall},1,${args});` +
    `${iov}>>>=0;${iovcnt}>>>=0;${pnum}>>>=0;`;
  const { u32, u8 } = n; // `(v(),D)` or `I()`: an expression that indexes as it is
  return [
    // Says which derivation is live in this realm: ortkeep checks it after
    // session creation (onnxruntime-web may have loaded another loader first);
    // heapBytes() reads the wasm memory's size, for session.info.memory;
    // module is the Emscripten module onnxruntime-web drives (every loader
    // from 1.21 on makes its moduleArg the module), whose heap an .ort form
    // is created in place from (js/forms/in-place.js).
    [
      'factory',
      n.factory,
      `${n.factory}${loaded}={...${JSON.stringify({ version, loader: file })},heapBytes:()=>${u8}.length,module:moduleArg};`,
    ],
    // fd_close: with the sink armed, any fd but stdout/stderr closes cleanly.
    [
      'fd_close',
      closeStub,
      `function ${n.close}(a){if(${n.pthread})return ${proxyClose};var ortkeepSink=${sink};` +
        'if(ortkeepSink&&a!==1&&a!==2){ortkeepSink.close(a);return 0}return 52}',
    ],
    // fd_write: with the sink armed, copy each iovec of any fd but stdout/stderr.
    [
      'fd_write',
      writeHead,
      `${writeHead}var ortkeepSink=${sink};if(ortkeepSink&&${fd}!==1&&${fd}!==2){` +
        `for(var ortkeepN=0,ortkeepI=0;ortkeepI<${iovcnt};ortkeepI++){` +
        `var ortkeepP=${u32}[${iov}>>>2>>>0],ortkeepL=${u32}[${iov}+4>>>2>>>0];${iov}+=8;` +
        `ortkeepSink.write(${fd},${u8}.slice(ortkeepP,ortkeepP+ortkeepL));ortkeepN+=ortkeepL}` +
        `${u32}[${pnum}>>>2>>>0]=ortkeepN;return 0}`,
    ],
  ];
}

/**
 * Derives the capturing loader from a loader's text.
 * @param {string} text the original loader
 * @param {{version: string, file: string, baseUrl?: string}} where version: the onnxruntime-web it
 *   belongs to; file: its name (ort-wasm-simd-threaded.jsep.mjs, …); baseUrl: where the original is
 *   served, for a copy imported from elsewhere (a Blob URL): its `import.meta.url` then still names
 *   the original's place, where onnxruntime-web's .wasm and its worker script are.
 * @returns {string}
 * @throws {LoaderPatchError} naming the pattern that is not there exactly once
 */
export function deriveLoaderText(text, { version, file, baseUrl }) {
  if (text.includes('ortkeepSink'))
    throw new LoaderPatchError('input', `${file}: the input is already a derived loader`);
  let out = text;
  for (const [what, find, replace] of loaderEdits(version, file, loaderNames(text, file))) {
    const at = out.indexOf(find);
    const count = at < 0 ? 0 : out.split(find).length - 1;
    if (count !== 1) {
      throw new LoaderPatchError(
        what,
        `${file}: the ${what} pattern occurs ${count} times (exactly 1 expected) in onnxruntime-web ${version}`,
      );
    }
    out = out.slice(0, at) + replace + out.slice(at + find.length);
  }
  if (baseUrl) out = rebaseImportMetaUrl(out, file, version, baseUrl);
  return out;
}

/**
 * Every `import.meta.url` of a loader replaced by the original's URL, only where each is a
 * URL value as onnxruntime-web 1.21.0-1.31.0-dev's loaders use it (an argument or an
 * assignment: followed by `)`, `,` or `;`, or read by `.startsWith(`): anything else (a
 * property written, a longer expression) would change meaning as a string, so it throws.
 * @param {string} text @param {string} file @param {string} version @param {string|URL} baseUrl
 */
function rebaseImportMetaUrl(text, file, version, baseUrl) {
  const all = text.split('import.meta.url').length - 1;
  const asValue = text.match(/import\.meta\.url(?=[),;]|\.startsWith\()/g)?.length ?? 0;
  if (all === 0 || asValue !== all)
    throw new LoaderPatchError(
      'import.meta.url',
      `${file}: ${all - asValue} of ${all} import.meta.url uses are not a plain URL value in onnxruntime-web ${version}`,
    );
  return text.split('import.meta.url').join(JSON.stringify(String(baseUrl)));
}

/**
 * Which flavour of onnxruntime-web's loaders a text is, by what only that
 * flavour carries (read from the 1.21.0-1.31.0-dev loaders): JSPI's
 * WebAssembly.promising, JSEP's jsepInit, the native WebGPU EP's webgpuInit
 * (asyncify), and the plain (wasm-only) loader's lack of all of them and of
 * WebNN. A loader of no flavour here is not one ortkeep knows (null).
 * @param {string} text
 * @returns {'jspi'|'jsep'|'asyncify'|'wasm'|null}
 */
export function loaderFlavour(text) {
  if (typeof text !== 'string' || (!text.includes('ortWasmThreaded') && !text.includes('moduleArg'))) return null;
  if (text.includes('WebAssembly.promising')) return 'jspi';
  if (text.includes('jsepInit')) return 'jsep';
  if (text.includes('webgpuInit')) return 'asyncify';
  if (!text.includes('webnn')) return 'wasm';
  return null;
}
