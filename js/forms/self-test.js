// Whether captured bytes are trusted as an artifact: a model ortkeep's own C
// readers accept: an .onnx form the ONNX reader (core.inspect), an .ort form
// the ORT-format reader (core.inspectOrt, wasm/ort_format.c).
import { getCore } from '../core/module.js';
import { OrtkeepError } from '../errors.js';

/**
 * @param {Uint8Array} bytes
 * @param {'onnx'|'ort'} format
 * @returns {Promise<object>} what the reader found (inspect() or inspectOrt())
 */
export async function selfTest(bytes, format) {
  const core = await getCore();
  try {
    return format === 'ort' ? core.inspectOrt(bytes) : core.inspect(bytes);
  } catch (e) {
    throw new OrtkeepError(
      'FORM_SELF_TEST',
      `ortkeep: the captured .${format} form fails the C reader (${e?.code ?? ''} ${e?.message ?? e}); it is not used`,
      { cause: e },
    );
  }
}
