// A model whose weights live in external data files (model.onnx +
// model.onnx_data, as exporters write models past protobuf's 2 GB): the
// reader lists their locations, and onnxruntime-web needs each file through
// its `externalData` session option. For a model loaded by URL, each
// location is resolved against the model's URL, as onnxruntime resolves it
// next to the model file; a location the reader says leaves the model's
// folder (absolute, `..`, a scheme, a backslash) is refused, and so is a set whose
// bytes cannot fit one session (the wasm32 heap), before anything of the data
// is fetched. onnxruntime-web fetches the files itself: they are not cached
// yet.
import { LOAD_POLICY } from './core-constants.js';
import { OrtkeepError } from './errors.js';

/**
 * The `externalData` session option for a model the reader reported, or
 * null when it needs none or the caller gave one.
 * @param {{externalData?: {location: string}[]}} report the reader's report
 * @param {string|null} modelUrl where the model came from (null: bytes, a Blob)
 * @param {object} sessionOptions the caller's onnxruntime-web session options
 */
export function externalDataOption(report, modelUrl, sessionOptions) {
  const locations = [...new Set((report?.externalData ?? []).map((e) => e.location))];
  if (!locations.length || sessionOptions?.externalData) return null;
  // the C reader's verdict per entry (wasm/external_data.c)
  const unsafe = [...new Set((report.externalData ?? []).filter((x) => !x.inFolder).map((x) => x.location))];
  if (unsafe.length) {
    throw new OrtkeepError('EXTERNAL_DATA', `ortkeep: the model names external data outside its folder (${unsafe.map((l) => JSON.stringify(l)).join(', ')}); refused`);
  }
  // what the model's initializers take of each file (a file's length is
  // not known before it is fetched: the model's own ranges are)
  const dataBytes = (report.externalData ?? []).reduce((n, x) => n + (Number(x.length) || 0), 0);
  if (dataBytes > LOAD_POLICY.MAX_SESSION_BYTES) {
    throw new OrtkeepError('LIMIT', `ortkeep: the model's external data holds ${dataBytes} bytes; one onnxruntime-web session holds at most ${LOAD_POLICY.MAX_SESSION_BYTES} (the wasm32 heap)`);
  }
  if (!modelUrl) {
    throw new OrtkeepError('EXTERNAL_DATA', `ortkeep: the model keeps weights in ${locations.join(', ')}; load it by URL (the files are found next to it) or pass sessionOptions.externalData: [{ path, data }]`);
  }
  return locations.map((path) => ({ path, data: new URL(path, modelUrl).href }));
}
