// Words for what the load machine decided: a FAIL or WARN action carries a
// code, a reason and a number; this only turns them into one line that says
// what happened and what to do.
import { FORM, REASON, STATUS_NAME, WARN } from '../core-constants.js';
import { OrtkeepError } from '../errors.js';

const REASON_NAME = Object.fromEntries(Object.entries(REASON).map(([k, v]) => [v, k]));
const FORM_NAME = Object.fromEntries(Object.entries(FORM).map(([k, v]) => [v, k]));
/** A form as callers see it: 'original', 'onnx', 'ort'. */
export const formName = (form) => FORM_NAME[form] ?? String(form);
/** A reason as callers see it in events and cache.list(): 'form-outputs', 'checksum', ... */
export const reasonName = (reason) => REASON_NAME[reason]?.toLowerCase().replace(/_/g, '-');
const WARN_NAME = Object.fromEntries(Object.entries(WARN).map(([k, v]) => [v, k]));
const mb = (n) => `${(n / 1e6).toFixed(1)} MB`;

/** A URL fit for a message: a data: URL is a model's worth of base64. */
function shown(url) {
  if (typeof url !== 'string') return url;
  return url.length > 200 ? `${url.slice(0, 60)}…(${url.length} characters)` : url;
}

function why(reason, n, url = 'the model') {
  switch (REASON_NAME[reason]) {
    case 'HTTP_STATUS':
      if (url.startsWith('file:')) return `${url} ${n === 404 ? 'does not exist' : 'cannot be read'}; check the path`;
      return `the server answered HTTP ${n} for ${url}; check the URL and that the file is deployed`;
    case 'FETCH_FAILED':
      return `fetching ${url} failed (offline, DNS, or a CORS policy that refuses this page); check the URL, the network and the server's Access-Control-Allow-Origin`;
    case 'BODY_BROKEN':
      return `the download of ${url} kept breaking off (${n} bytes arrived); try again on a better connection`;
    case 'SHORT_BODY':
      return `${url} ended before its Content-Length (${n} bytes arrived); the server or a proxy cut it`;
    case 'LONG_BODY':
      return `${url} sent more bytes than its Content-Length (${n}); the server is misbehaving`;
    case 'HTML':
      return `${url} answered an HTML page, not an ONNX model: a single-page-app fallback (index.html for unknown paths) or a missing file; check that the model is deployed at that path`;
    case 'NOT_A_MODEL':
      return `${url} is not an ONNX model the reader accepts${n ? ` (at byte ${n})` : ''}`;
    case 'DIGEST':
      return `${url} does not match its integrity; nothing was stored. Check the integrity value, or the file the server has`;
    case 'BAD_RANGE':
      return `${url} answered a partial response (206) to a plain request; the server's Range handling is broken`;
    case 'SESSION':
      return `onnxruntime-web could not create a session from ${url}`;
    case 'CHECKSUM':
      return `a stored copy of ${url} failed its checksum`;
    case 'MISSING':
      return `a stored copy of ${url} is missing a record`;
    case 'NOT_CACHED':
      return `${url} is not in the model cache (cache: 'only-if-cached'); load it once with the network`;
    case 'EMPTY_SOURCE':
      return "load('') names no model: pass the model's URL, bytes or a Blob";
    case 'PAGE_ITSELF':
      return `${url} is this page, not a model: pass the model's URL`;
    case 'SCHEME':
      return `${url} cannot hold a model here: use http(s), blob: or data: (file: and paths only in Node)`;
    case 'BAD_INTEGRITY':
      return "integrity must be Subresource Integrity metadata like 'sha256-<base64>' (sha256, sha384 or sha512)";
    case 'TOO_BIG':
      return `${url} is ${mb(n)}: more than fits here`;
    case 'IDB':
      return 'IndexedDB failed';
    default:
      return url ? `loading ${url} failed` : 'the load failed';
  }
}

/** The error a FAIL action means. */
export function failError(status, reason, number, url, cause) {
  url = shown(url ?? undefined);
  const code = STATUS_NAME[status] ?? `CORE_${status}`;
  let text;
  if (code === 'ABORTED') text = `the load of ${url ?? 'the model'} was aborted`;
  else if (code === 'NOMEM') text = 'ortkeep ran out of wasm memory';
  else if (code === 'CORRUPT') text = `${why(reason, number, url)}, again after fetching it anew; try again`;
  else if (code === 'SESSION_CREATE') text = `${why(reason, number, url)}: ${cause?.message ?? 'it refused the model'}`;
  else if (code === 'LIMIT' && REASON_NAME[reason] === 'TOO_BIG')
    text = `${why(reason, number, url)} (the wasm32 heap holds about 4 GB); use a smaller model or external data`;
  else text = why(reason, number, url);
  return new OrtkeepError(code, `ortkeep: ${text}`, {
    ...(code !== 'ABORTED' && REASON_NAME[reason] === 'NOT_A_MODEL' && number ? { offset: number } : {}),
    ...(cause ? { cause } : {}),
  });
}

/** { code, message } of a WARN action. */
export function warning(warnCode, reason, number, url) {
  url = shown(url ?? 'the model');
  const code = WARN_NAME[warnCode] ?? `WARN_${warnCode}`;
  const r = REASON_NAME[reason];
  let text;
  switch (code) {
    case 'QUOTA':
      text = `${url} (${mb(number)}) does not fit the storage quota even after evicting unused models; it is loaded without storing it`;
      break;
    case 'CORRUPT':
      text = `${why(reason, number, url)}; it was dropped and the model is fetched again`;
      break;
    case 'REFUSED':
      text = `onnxruntime-web refused the stored copy of ${url}; it was dropped and the model is fetched again`;
      break;
    case 'RESUMING':
      text = `the download of ${url} broke off at ${mb(number)}; resuming from the last stored chunk`;
      break;
    case 'RETRYING':
      text =
        r === 'CHANGED'
          ? `${url} changed while it was being resumed; downloading it whole`
          : `${why(reason, number, url)}; retrying`;
      break;
    case 'UNCACHED':
      text = `${url} cannot be stored (${r === 'TOO_BIG' ? 'too big' : (r?.toLowerCase() ?? 'unknown')}); it is loaded without storing it`;
      break;
    case 'CACHE_UNAVAILABLE':
      text = `the model cache (IndexedDB) is unavailable here; ${url} is loaded from the network without storing it`;
      break;
    case 'CACHE_ERROR':
      text = `IndexedDB failed while loading ${url}; it is loaded without storing it`;
      break;
    default:
      text = `${code} for ${url}`;
  }
  return { code, message: `ortkeep: ${text}` };
}
