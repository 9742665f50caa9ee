// load(url, { manifest }): a model prepared ahead of time by `ortkeep
// prepare` (js/forms/prepare.js writes MODEL.ortkeep.json beside its forms).
// The best form for this page is one prepare verified, for the onnxruntime
// version the page runs and an execution provider the page asked for, the
// fastest to create as prepare measured it; it is loaded instead of the
// original (cached like any model, its SHA-256 as integrity) and created at
// 'disabled'. Nothing usable: the original, and an event saying why. Only
// .onnx forms are served this way: the cache takes a URL's bytes only when
// the C ONNX reader accepts them, and an .ort file is a FlatBuffer.
import { OrtkeepError } from '../errors.js';
import { getCore } from '../core/module.js';
import { PREPARED_FACT } from '../core-constants.js';
import { pickPreparedIndex } from './policy.js';
import { readJsonUrl } from './read-json.js';

/** prepare's --ep names → the onnxruntime-web execution providers they stand for. */
const EP_OF = { wasm: ['wasm', 'cpu'] };

/**
 * @param {string|URL|object} manifest the MODEL.ortkeep.json URL, or its parsed contents (with `base`: where its files are)
 * @param {object} ort onnxruntime-web
 * @param {Array<string|object>} eps the page's execution providers
 * @returns {Promise<{url: string, format: string, integrity: string, createMs: number} | {why: string}>}
 */
export async function pickPrepared(manifest, ort, eps) {
  let doc = manifest;
  let base = manifest?.base ?? globalThis.location?.href;
  if (typeof manifest === 'string' || manifest instanceof URL) {
    base = new URL(String(manifest), globalThis.location?.href).href;
    doc = await readJson(base);
  }
  if (doc?.ortkeep !== 1 || !Array.isArray(doc.forms)) {
    throw new OrtkeepError('INVALID_ARG', 'ortkeep: manifest is not an ortkeep prepare manifest (MODEL.ortkeep.json)');
  }
  const version = ort.env?.versions?.web;
  const wanted = new Set(eps.map((ep) => (typeof ep === 'string' ? ep : ep.name)));
  // the facts; which form serves is the core's (ok_form_pick_prepared)
  const facts = doc.forms.map((f) => ({
    facts:
      (f.format === 'onnx' ? PREPARED_FACT.ONNX : 0) |
      (f.file ? PREPARED_FACT.HAS_FILE : 0) |
      (f.verified?.equal ? PREPARED_FACT.VERIFIED_EQUAL : 0) |
      (f.onnxruntime === version ? PREPARED_FACT.SAME_ORT : 0) |
      ((EP_OF[f.ep] ?? [f.ep]).some((ep) => wanted.has(ep)) ? PREPARED_FACT.EP_WANTED : 0),
    createMs: f.createMs,
  }));
  const pick = pickPreparedIndex(await getCore(), facts);
  if (pick < 0) {
    const made = [...new Set(doc.forms.map((f) => `${f.onnxruntime}/${f.ep}`))].join(', ');
    return {
      why: `no verified form for onnxruntime-web ${version} and ${[...wanted].join(',')} (the manifest has ${made || 'none'})`,
    };
  }
  const best = doc.forms[pick];
  return {
    url: new URL(best.file, base).href,
    format: best.format,
    integrity: `sha256-${base64(best.sha256)}`,
    createMs: best.createMs,
  };
}

async function readJson(url) {
  try {
    return await readJsonUrl(url);
  } catch (e) {
    throw new OrtkeepError('NETWORK', `ortkeep: the manifest ${url} could not be read (${e?.message ?? e})`, {
      cause: e,
    });
  }
}

function base64(hex) {
  const bytes = hex.match(/../g).map((h) => parseInt(h, 16));
  return btoa(String.fromCharCode(...bytes));
}
