// The one error that turns artifact forms off: FORMS_OFF, its reason in
// details (what the page lacks, or what onnxruntime-web refused).
import { OrtkeepError } from '../errors.js';

/** @param {string} reason @param {string} message @param {unknown} [cause] */
export function formsOff(reason, message, cause) {
  return new OrtkeepError('FORMS_OFF', `ortkeep: artifact forms are off (${reason}): ${message}`, {
    details: { reason },
    ...(cause === undefined ? {} : { cause }),
  });
}
