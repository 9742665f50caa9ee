// Whether captured bytes are trusted as an artifact: a model ortkeep's own
// readers accept. An .onnx form must pass the C reader (core.inspect); the C
// reader reads ONNX protobuf only, so an .ort form (a FlatBuffer) is checked
// for its file identifier and an in-bounds root table here until the C core
// reads ORT format too.
import { getCore } from '../core.js';
import { OrtkeepError } from '../errors.js';

/**
 * @param {Uint8Array} bytes
 * @param {'onnx'|'ort'} format
 * @returns {Promise<object>} what the reader found (inspect() for .onnx; {format, size} for .ort)
 */
export async function selfTest(bytes, format) {
  if (format === 'onnx') {
    const core = await getCore();
    try {
      return core.inspect(bytes);
    } catch (e) {
      throw new OrtkeepError('FORM_SELF_TEST', `ortkeep: the captured .onnx form fails the C reader (${e?.code ?? ''} ${e?.message ?? e}); it is not used`, { cause: e });
    }
  }
  // FlatBuffer: u32 root offset, then the 4-byte file identifier "ORTM".
  const ok = bytes.byteLength >= 16
    && String.fromCharCode(bytes[4], bytes[5], bytes[6], bytes[7]) === 'ORTM'
    && new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0, true) < bytes.byteLength;
  if (!ok) throw new OrtkeepError('FORM_SELF_TEST', 'ortkeep: the captured .ort form is not an ORT-format FlatBuffer (no ORTM identifier); it is not used');
  return { format: 'ort', size: bytes.byteLength };
}
