// The normalization stamp on a captured .onnx form (the C core's encoder, wasm/stamp.h).
import { sha256Hex } from '../util/sha256.js';

/** The .onnx form with the normalization stamp as its last metadata_props entry. */
export async function stamped(core, bytes, forms, sourceSha) {
  const artifact = await sha256Hex(bytes);
  const tail = core.stampTail({
    producer: 'ortkeep',
    ort: forms.version,
    ep: forms.eps.join(','),
    level: forms.level,
    source: sourceSha,
    artifact,
  });
  const out = new Uint8Array(bytes.byteLength + tail.byteLength);
  out.set(bytes);
  out.set(tail, bytes.byteLength);
  return out;
}
