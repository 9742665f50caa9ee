// transformers.js's model files, kept by ortkeep (its env.customCache and
// env.fetch). An ONNX model and its external data are ortkeep's: their fetch
// answers a small stand-in naming the file's URL, and the session created
// from it loads that URL through ortkeep's load() (the IndexedDB model cache:
// resumable, verified, quota-aware, one download across tabs, an HTML page
// refused with a typed error and never stored). So transformers.js never
// holds, parses or stores a model file; the second visit asks the cache, not
// the network. The small files beside the model (config.json, tokenizer.json,
// …) are kept in the Cache API under ortkeep's own name, never an error page.

/** The stand-in's first bytes: a 0 byte (no ONNX model starts so: protobuf field 0 is invalid). */
const MAGIC = '\0ortkeep-model-file:';
const MODEL_FILE = /\.onnx(_data(_\d+)?)?$|\.onnx\.data$/;
const FILES_CACHE = 'ortkeep-transformers-files';

/**
 * Forgets every file kept beside transformers.js's models (cache.clear()):
 * a config or tokenizer of one release never meets another release's model.
 */
export async function clearFiles() {
  await globalThis.caches?.delete(FILES_CACHE);
}

/**
 * Forgets the files kept beside a model file (cache.delete(url)): those of
 * its repo and revision, the folder above its `onnx/` folder
 * (`…/<repo>/resolve/<revision>/onnx/model.onnx` on the hub,
 * `…/<repo>/onnx/model.onnx` under localModelPath); a model file outside an
 * `onnx/` folder names none (its folder may hold other models' files).
 * A URL that is not a model file names no such files.
 * @param {string} url the model's absolute URL
 */
export async function deleteFilesBeside(url) {
  let root;
  try {
    if (!isModelFile(url)) return;
    const u = new URL(url);
    u.search = '';
    u.hash = '';
    const at = u.pathname.lastIndexOf('/onnx/');
    // only a hub layout names its repo (the folder above onnx/); any other
    // folder may be a whole origin's, whose other files are not this model's
    if (at < 0) return;
    u.pathname = u.pathname.slice(0, at + 1);
    root = u.href;
  } catch {
    return; // a cache key, not a URL
  }
  if (!(await globalThis.caches?.has(FILES_CACHE))) return; // opening it would make it
  const cache = await globalThis.caches.open(FILES_CACHE);
  for (const request of await cache.keys()) if (request.url.startsWith(root)) await cache.delete(request);
}

const isModelFile = (url) => MODEL_FILE.test(new URL(url, globalThis.location?.href).pathname);
const absolute = (url) => new URL(String(url), globalThis.location?.href).href;

/** The stand-in for a model file at `url`, as transformers.js reads a response. */
function standIn(url) {
  const body = new TextEncoder().encode(MAGIC + absolute(url));
  return new Response(body, {
    status: 200,
    headers: { 'content-type': 'application/octet-stream', 'content-length': String(body.length) },
  });
}

/** The URL a stand-in names, or null when `bytes` are real bytes. */
export function standInUrl(bytes) {
  if (!(bytes instanceof Uint8Array) || bytes.length < MAGIC.length || bytes[0] !== 0 || bytes.length > 8192)
    return null;
  const text = new TextDecoder().decode(bytes);
  return text.startsWith(MAGIC) ? text.slice(MAGIC.length) : null;
}

/**
 * create()'s source and options with stand-ins turned back into URLs: ortkeep loads (and caches) them.
 * @returns {{source: unknown, options: object}}
 */
export function resolveStandIns(source, options) {
  const url = standInUrl(source);
  const externalData = options.externalData?.map((e) => {
    const dataUrl = standInUrl(e?.data);
    return dataUrl ? { ...e, data: dataUrl } : e;
  });
  return { source: url ?? source, options: externalData ? { ...options, externalData } : options };
}

/**
 * env.customCache and env.fetch for transformers.js.
 * @param {{fetch?: typeof fetch, storedUrls: () => Promise<Set<string>>, ready?: Promise<unknown>, probeOnMatch?: ((key: string) => boolean) | null}} deps
 *   storedUrls: the model URLs ortkeep's cache holds; ready: settles once sessions go through ortkeep (no stand-in
 *   is answered before); probeOnMatch: for a transformers.js with no env.fetch (3.x), whether it would fetch a
 *   file from this key: match() then answers a model file that is there (a GET of its first byte says so) with its stand-in
 */
export function transformersStore(deps) {
  const baseFetch = deps.fetch ?? ((...a) => globalThis.fetch(...a));
  const files = () => globalThis.caches?.open(FILES_CACHE);
  /** The stand-in, once create() goes through ortkeep: a plain onnxruntime-web would be handed a file it cannot read. */
  const answer = async (url) => {
    await deps.ready;
    return standIn(url);
  };
  /**
   * A model file that exists is answered with its stand-in; else the server's own answer. A GET of
   * its first byte says so (`Range: bytes=0-0`, CORS-safelisted: no preflight), not a HEAD: a host
   * that refuses HEAD (405, 501, or a 403 from a URL signed for GET only, as object stores sign
   * them) has the browser print the refusal in the app's console, which transformers.js alone
   * leaves clean. A host that ignores Range answers it whole: only its start is read.
   */
  const probe = async (url, headers) => {
    const ranged = new Headers(headers);
    ranged.set('Range', 'bytes=0-0');
    const get = await baseFetch(url, { headers: ranged });
    if (!get.ok) return get;
    await get.body?.cancel().catch(() => {});
    return answer(url);
  };
  return {
    /** transformers.js asks with the local path first, then the hub URL with its revision. */
    async match(key) {
      if (isModelFile(key)) {
        if ((await deps.storedUrls()).has(absolute(key))) return answer(key);
        if (!deps.probeOnMatch?.(key)) return undefined;
        const found = await probe(key).catch(() => null); // a network error: transformers.js's own fetch reports it
        return found?.ok ? found : undefined;
      }
      const cache = await files();
      return (await cache?.match(absolute(key))) ?? undefined;
    },
    /** Model files were not fetched (ortkeep's load stores them); other files are kept when they are real answers. */
    async put(key, response, progress) {
      if (isModelFile(key) || !response?.ok) return;
      if (/^text\/html|^application\/xhtml/i.test(response.headers.get('content-type') ?? '')) return;
      const bytes = new Uint8Array(await response.arrayBuffer());
      progress?.({ progress: 100, loaded: bytes.length, total: bytes.length });
      const cache = await files();
      await cache?.put(absolute(key), new Response(bytes, { status: 200, headers: response.headers }));
    },
    async delete(key) {
      const cache = await files();
      return (await cache?.delete(absolute(key))) ?? false;
    },
    /**
     * env.fetch: a model file that exists (a GET of its first byte says so) is answered with its stand-in;
     * whatever else transformers.js fetches goes to the network as it asked.
     */
    async fetch(url, init) {
      if (!isModelFile(url) || (init?.method && init.method !== 'GET')) return baseFetch(url, init);
      return probe(url, init?.headers);
    },
  };
}
