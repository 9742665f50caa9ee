// Entry of dist/ortkeep-onnxruntime-web.iife.js, the script-tag drop-in:
// loaded after ort.min.js, it is ortkeep's bundle (window.ortkeep) that also
// replaces window.ort with onnxruntime-web whose InferenceSession is
// ortkeep's. ort.min.js's own object has read-only exports, so window.ort
// becomes a copy: the same Tensor, env and functions, another InferenceSession.
import '../browser-global.js';
import { OrtkeepError } from '../errors.js';
import { makeInferenceSession } from './inference-session.js';
import { entryOfScript } from '../forms/entry-bundle.js';
import { ortScriptUrl } from '../forms/ort-files.js';

const ort = globalThis.ort;
if (!ort?.InferenceSession) {
  throw new OrtkeepError(
    'ORT_MISSING',
    'ortkeep: load ort.min.js (onnxruntime-web) before ortkeep-onnxruntime-web.iife.js',
  );
}
// the page's onnxruntime-web script names its entry (ort.webgpu.min.js: /webgpu)
globalThis.ort = { ...ort, InferenceSession: makeInferenceSession(ort, { entry: entryOfScript(ortScriptUrl()) }) };
