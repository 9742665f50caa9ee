// A model whose weights live in external data files (model.onnx +
// model.onnx_data, as exporters write models past protobuf's 2 GB): the
// reader lists their locations, and onnxruntime-web needs each file through
// its `externalData` session option. This decides which files a load must
// fetch and from where: each location resolved against the model's URL, as
// onnxruntime resolves it next to the model file, or the URL the caller
// gave for it in onnxruntime-web's own option shape. A location the reader
// says leaves the model's folder (absolute, `..`, a scheme, a backslash) is
// refused before anything is fetched. The files themselves are loaded (and
// cached) by js/cache/data-files.js, where the core refuses a set whose
// bytes cannot fit one session (the wasm32 heap), also before any fetch.
import { OrtkeepError } from './errors.js';

/**
 * @typedef {{path: string, url: string, minBytes: number}} DataFile a file to load: its location
 *   (onnxruntime-web's `path`), its absolute URL, the least size the model's tensors in it need (the
 *   end of its last tensor: a file's length is not known before it is fetched, the model's ranges are)
 * @typedef {{files: DataFile[], given: {path: string, data: unknown}[]}} DataPlan files to load, and
 *   entries of the caller's `externalData` that are bytes already (passed as given)
 */

/**
 * What the model's external data needs, or null when it needs none.
 * @param {{externalData?: {location: string, inFolder: boolean, offset: number, length: number}[]}} report the reader's report
 * @param {string|null} modelUrl where the model came from (null: bytes, a Blob)
 * @param {{externalData?: {path: string, data: unknown}[]}} sessionOptions the caller's onnxruntime-web session options
 * @param {string} [baseUrl] what a relative URL in the caller's option is resolved against (the page)
 * @returns {DataPlan|null}
 */
export function externalDataPlan(report, modelUrl, sessionOptions, baseUrl) {
  const entries = report?.externalData ?? [];
  const given = sessionOptions?.externalData;
  if (!entries.length && !given?.length) return null;
  if (given) {
    if (!Array.isArray(given))
      throw new OrtkeepError('INVALID_ARG', 'ortkeep: externalData must be an array of { path, data }');
    const files = [];
    const rest = [];
    for (const e of given) {
      if (typeof e?.path !== 'string')
        throw new OrtkeepError('INVALID_ARG', 'ortkeep: each externalData entry needs a string path');
      if (typeof e.data === 'string' || e.data instanceof URL) {
        // a URL: fetched and cached like a discovered file
        files.push({
          path: e.path,
          url: new URL(String(e.data), modelUrl ?? baseUrl).href,
          minBytes: needBytes(entries, e.path),
        });
      } else {
        rest.push(e);
      }
    }
    return { files, given: rest };
  }
  // the C reader's verdict per entry (wasm/external_data.c)
  const unsafe = [...new Set(entries.filter((x) => !x.inFolder).map((x) => x.location))];
  if (unsafe.length) {
    throw new OrtkeepError(
      'EXTERNAL_DATA',
      `ortkeep: the model names external data outside its folder (${unsafe.map((l) => JSON.stringify(l)).join(', ')}); refused`,
    );
  }
  const locations = [...new Set(entries.map((e) => e.location))];
  if (!modelUrl) {
    throw new OrtkeepError(
      'EXTERNAL_DATA',
      `ortkeep: the model keeps weights in ${locations.join(', ')}; load it by URL (the files are found next to it) or pass the option externalData: [{ path, data }]`,
    );
  }
  return {
    files: locations.map((path) => ({ path, url: new URL(path, modelUrl).href, minBytes: needBytes(entries, path) })),
    given: [],
  };
}

/** The end of the last tensor the model keeps in file `path`. */
function needBytes(entries, path) {
  return entries
    .filter((e) => e.location === path)
    .reduce((n, e) => Math.max(n, (Number(e.offset) || 0) + (Number(e.length) || 0)), 0);
}
